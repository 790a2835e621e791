-- Campaigns (issue 17), PostgreSQL: many shards of one job submitted together to one allocation, each shard run as an
-- ordinary workload of the campaign's owner. Keep in step with ../sqlite/V7__campaigns.sql.

-- A campaign as submitted, its brakes' caps (null: no cap) and where it stands. command is the JSON array template
-- ({shard} replaced by the shard's index), environment a JSON object added to every shard's workload. Exactly one of
-- protected_shards and protected_gpus says how much of it may run protected (charged, minimum runtime) at once.
CREATE TABLE campaigns (
    name                TEXT PRIMARY KEY,
    owner               TEXT NOT NULL,
    allocation_path     TEXT NOT NULL,
    command             TEXT NOT NULL,
    environment         TEXT NOT NULL,
    gpus                INTEGER NOT NULL CHECK (gpus > 0),
    min_runtime_seconds BIGINT NOT NULL CHECK (min_runtime_seconds > 0),
    protected_shards    INTEGER NULL CHECK (protected_shards >= 0),
    protected_gpus      INTEGER NULL CHECK (protected_gpus >= 0),
    seconds_per_unit    DOUBLE PRECISION NULL CHECK (seconds_per_unit > 0),
    priority            TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    shard_gpu_hours     DOUBLE PRECISION NULL CHECK (shard_gpu_hours >= 0),
    shard_requeues      INTEGER NULL CHECK (shard_requeues >= 0),
    campaign_gpu_hours  DOUBLE PRECISION NULL CHECK (campaign_gpu_hours >= 0),
    campaign_cost       DOUBLE PRECISION NULL CHECK (campaign_cost >= 0),
    price_per_gpu_hour  DOUBLE PRECISION NULL CHECK (price_per_gpu_hour >= 0),
    state               TEXT NOT NULL CHECK (state IN ('running', 'done', 'cancelled')),
    created_at_ms       BIGINT NOT NULL,
    CHECK ((protected_shards IS NULL) <> (protected_gpus IS NULL)),
    CHECK (campaign_cost IS NULL OR price_per_gpu_hour IS NOT NULL)
);
-- The scheduler reads the running campaigns every cycle.
CREATE INDEX campaigns_by_state ON campaigns (state, name);

-- A campaign's shards. units_done only grows: a unit reported done is never scheduled again. measured_ms is the
-- running time that produced units_done: each progress report that raises units_done adds the time since the later
-- of its attempt's start and that attempt's previous raising report (measured_attempt, measured_until_ms); the end of
-- a workload that completed adds its last stretch. workload_id is the shard's current workload (null while it has
-- none). A held shard (held_by: 'brakes', 'failure' or 'submission') gets no new workload until released.
CREATE TABLE campaign_shards (
    campaign_name     TEXT NOT NULL REFERENCES campaigns (name),
    shard_index       INTEGER NOT NULL CHECK (shard_index >= 0),
    family            TEXT NULL,
    units_total       BIGINT NOT NULL CHECK (units_total >= 1),
    units_done        BIGINT NOT NULL DEFAULT 0 CHECK (units_done >= 0 AND units_done <= units_total),
    measured_ms       BIGINT NOT NULL DEFAULT 0 CHECK (measured_ms >= 0),
    measured_attempt  TEXT NULL,
    measured_until_ms BIGINT NULL,
    workload_id       TEXT NULL REFERENCES workloads (id),
    held_by           TEXT NULL CHECK (held_by IN ('brakes', 'failure', 'submission')),
    held_reason       TEXT NULL,
    promotion_detail  TEXT NULL,
    done_at_ms        BIGINT NULL,
    PRIMARY KEY (campaign_name, shard_index),
    CHECK ((held_by IS NULL) = (held_reason IS NULL))
);

-- Every workload a shard ever had (it gets a new one after a hold is released, or when it changes contract while
-- waiting): what its runs add up to for the brakes, and which shard a progress report is about.
CREATE TABLE campaign_workloads (
    workload_id   TEXT PRIMARY KEY REFERENCES workloads (id),
    campaign_name TEXT NOT NULL,
    shard_index   INTEGER NOT NULL,
    FOREIGN KEY (campaign_name, shard_index) REFERENCES campaign_shards (campaign_name, shard_index)
);
CREATE INDEX campaign_workloads_by_shard ON campaign_workloads (campaign_name, shard_index);

-- From when an attempt is charged to its allocation: its start for allocated work, the moment of its promotion for
-- unallocated work promoted in place, null for an attempt never charged. Attempts stored before this version were
-- charged from their start exactly when their workload declared a minimum runtime.
ALTER TABLE attempts ADD COLUMN charged_from_ms BIGINT NULL;
UPDATE attempts SET charged_from_ms = started_at_ms
    WHERE workload_id IN (SELECT id FROM workloads WHERE min_runtime_seconds > 0);
