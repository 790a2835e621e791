-- Safety brakes: why a waiting workload is held (not given to the scheduler's queue), null when it is not.
ALTER TABLE workloads ADD COLUMN held_reason TEXT NULL;
-- Cluster-wide settings by name (the brakes' limits); an absent name has its default.
CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
