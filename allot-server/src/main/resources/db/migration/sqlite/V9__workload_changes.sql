-- The scheduler's change feed (issue 21), SQLite: every change of a workload row the scheduler reads (an insert, and
-- an update of any column but the progress columns, which it hears of otherwise) stamps the row with a change number
-- higher than every other row's, so that a cycle reads only the rows changed since the last number it saw
-- (Workloads.changesSince) instead of every workload not ended. There is one writer at a time, and the number is taken
-- under its write lock, so change numbers are committed in the order they are taken: a reader that saw number n has
-- seen every change numbered n or lower. Rows that exist take their seq (below any new number).
-- Keep in step with ../postgresql/V9__workload_changes.sql.
ALTER TABLE workloads ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
UPDATE workloads SET change_seq = seq;
CREATE INDEX workloads_by_change ON workloads (change_seq);
CREATE TRIGGER workloads_changed_on_insert AFTER INSERT ON workloads
BEGIN
    UPDATE workloads SET change_seq = (SELECT MAX(change_seq) FROM workloads) + 1 WHERE seq = NEW.seq;
END;
CREATE TRIGGER workloads_changed AFTER UPDATE OF seq, id, allocation_path, user_name, gpus, gpus_per_node,
    duration_seconds, min_runtime_seconds, resumable, priority, kind, command, environment, state, submitted_at_ms,
    cancel_requested, idempotency_key, held_reason ON workloads
BEGIN
    UPDATE workloads SET change_seq = (SELECT MAX(change_seq) FROM workloads) + 1 WHERE seq = NEW.seq;
END;
