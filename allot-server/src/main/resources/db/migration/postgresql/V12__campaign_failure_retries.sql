-- A campaign's automatic retries after a failure: a shard whose workload failed is queued again by itself while the
-- shard's failed workloads number at most failure_retries (0, every campaign before this: held at the first failure,
-- until a person retries it). Keep in step with ../sqlite/V12__campaign_failure_retries.sql.
ALTER TABLE campaigns ADD COLUMN failure_retries INTEGER NOT NULL DEFAULT 0 CHECK (failure_retries >= 0);
