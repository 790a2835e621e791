-- The scheduler's change feed (issue 21), PostgreSQL: every change of a workload row the scheduler reads (an insert,
-- and an update of any column but the progress columns, which it hears of otherwise) stamps the row with the id of
-- the transaction that made it, so that a cycle reads only the rows changed since what it last saw
-- (Workloads.changesSince) instead of every workload not ended. Transactions commit in any order, so a number taken
-- from a sequence could commit after a higher one was already read and be missed; a transaction id is safe to use as
-- a cursor with the snapshot's xmin instead: every transaction not committed when a snapshot was taken has an id at or
-- above that snapshot's xmin, so a reader that next reads every row stamped at or above the xmin of its last read
-- misses nothing (it reads again the rows of transactions that were in progress). Rows that exist take 0.
-- Keep in step with ../sqlite/V9__workload_changes.sql.
ALTER TABLE workloads ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX workloads_by_change ON workloads (change_seq);
CREATE FUNCTION workloads_stamp_change() RETURNS trigger AS $$
BEGIN
    NEW.change_seq := pg_current_xact_id()::text::bigint;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER workloads_changed_on_insert BEFORE INSERT ON workloads
    FOR EACH ROW EXECUTE FUNCTION workloads_stamp_change();
CREATE TRIGGER workloads_changed BEFORE UPDATE OF seq, id, allocation_path, user_name, gpus, gpus_per_node,
    duration_seconds, min_runtime_seconds, resumable, priority, kind, command, environment, state, submitted_at_ms,
    cancel_requested, idempotency_key, held_reason ON workloads
    FOR EACH ROW EXECUTE FUNCTION workloads_stamp_change();
