-- Allot store, SQLite. Everything the service needs to resume after a crash.
-- STRICT tables: SQLite checks column types like other databases do. Booleans are INTEGER 0/1,
-- times are milliseconds since the Unix epoch (*_at_ms), JSON is stored as TEXT.
-- Keep in step with ../postgresql/V1__init.sql: same tables, columns, constraints and indexes.

CREATE TABLE users (
    name TEXT PRIMARY KEY NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'user'))
) STRICT;

-- Only the hex SHA-256 of a token is stored; the plaintext is never written.
CREATE TABLE tokens (
    hash          TEXT PRIMARY KEY NOT NULL CHECK (length(hash) = 64),
    user_name     TEXT NOT NULL REFERENCES users (name),
    label         TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX tokens_by_user ON tokens (user_name, hash);

-- The allocation tree; path is parent_path || '/' || name, or name for a root.
-- managers and members are JSON arrays of user names.
CREATE TABLE allocations (
    path        TEXT PRIMARY KEY NOT NULL,
    parent_path TEXT NULL REFERENCES allocations (path),
    name        TEXT NOT NULL,
    share       REAL NOT NULL CHECK (share > 0),
    managers    TEXT NOT NULL,
    members     TEXT NOT NULL
) STRICT;
CREATE INDEX allocations_by_parent ON allocations (parent_path, path);

CREATE TABLE audit (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms       INTEGER NOT NULL,
    actor       TEXT NOT NULL,
    action      TEXT NOT NULL,
    subject     TEXT NOT NULL,
    before_json TEXT NULL,
    after_json  TEXT NULL
) STRICT;

CREATE TABLE nodes (
    name          TEXT PRIMARY KEY NOT NULL,
    gpus          INTEGER NOT NULL CHECK (gpus > 0),
    healthy       INTEGER NOT NULL CHECK (healthy IN (0, 1)),
    reason        TEXT NULL,
    updated_at_ms INTEGER NOT NULL
) STRICT;

-- AUTOINCREMENT: a seq (and so an id w-<seq>) is never reused, even after the newest row is deleted.
CREATE TABLE workloads (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT NOT NULL UNIQUE,
    allocation_path     TEXT NOT NULL,
    user_name           TEXT NOT NULL,
    gpus                INTEGER NOT NULL CHECK (gpus > 0),
    gpus_per_node       INTEGER NOT NULL CHECK (gpus_per_node >= 0),
    duration_seconds    INTEGER NULL CHECK (duration_seconds > 0),
    min_runtime_seconds INTEGER NOT NULL CHECK (min_runtime_seconds >= 0),
    resumable           INTEGER NOT NULL CHECK (resumable IN (0, 1)),
    priority            TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    kind                TEXT NOT NULL,
    command             TEXT NOT NULL,
    environment         TEXT NOT NULL,
    state               TEXT NOT NULL CHECK (state IN ('pending', 'running', 'preempted', 'requeued',
                                                       'completed', 'failed', 'cancelled')),
    submitted_at_ms     INTEGER NOT NULL,
    progress_done       INTEGER NULL CHECK (progress_done >= 0),
    progress_total      INTEGER NULL CHECK (progress_total >= 0),
    cancel_requested    INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    idempotency_key     TEXT NULL UNIQUE
) STRICT;
CREATE INDEX workloads_by_state ON workloads (state, seq);
CREATE INDEX workloads_by_allocation ON workloads (allocation_path, seq);
CREATE INDEX workloads_by_user ON workloads (user_name, seq);

-- placement is a JSON array [{"node": "...", "gpus": [0, 1]}].
CREATE TABLE attempts (
    workload_id      TEXT NOT NULL REFERENCES workloads (id),
    attempt          INTEGER NOT NULL CHECK (attempt > 0),
    placement        TEXT NOT NULL,
    phase            TEXT NOT NULL CHECK (phase IN ('launching', 'running', 'stopping', 'ended')),
    started_at_ms    INTEGER NOT NULL,
    ended_at_ms      INTEGER NULL,
    outcome          TEXT NULL CHECK (outcome IN ('completed', 'failed', 'preempted', 'requeued', 'cancelled', 'lost')),
    reason           TEXT NULL,
    preemptor        TEXT NULL,
    lost_gpu_seconds REAL NULL,
    PRIMARY KEY (workload_id, attempt),
    CHECK ((phase = 'ended') = (ended_at_ms IS NOT NULL AND outcome IS NOT NULL))
) STRICT;
-- What a restarted scheduler must reconcile with the backend.
CREATE INDEX attempts_open ON attempts (workload_id, attempt) WHERE phase <> 'ended';
-- Usage over a window: attempts that ended after its start (open ones are in attempts_open).
CREATE INDEX attempts_by_end ON attempts (ended_at_ms);
