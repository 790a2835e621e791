-- A share is a finite number >= 0 (dev.allot.core.rules.Shares), as in the simulator's allocations.yaml: an allocation
-- of share 0 is entitled to nothing and its work runs on what others leave idle. The store keeps at least one positive
-- share among siblings. SQLite cannot change a CHECK in place: the table is rebuilt, its self-reference named after
-- the new table, which the rename then points back at 'allocations'.
CREATE TABLE allocations_new (
    path        TEXT PRIMARY KEY NOT NULL,
    parent_path TEXT NULL REFERENCES allocations_new (path),
    name        TEXT NOT NULL,
    share       REAL NOT NULL CHECK (share >= 0),
    managers    TEXT NOT NULL,
    members     TEXT NOT NULL
) STRICT;
INSERT INTO allocations_new (path, parent_path, name, share, managers, members)
    SELECT path, parent_path, name, share, managers, members FROM allocations;
DROP TABLE allocations;
ALTER TABLE allocations_new RENAME TO allocations;
CREATE INDEX allocations_by_parent ON allocations (parent_path, path);
