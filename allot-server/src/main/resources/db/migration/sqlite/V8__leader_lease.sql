-- High availability (issue 20), SQLite: a single instance is always the leader and does not use this table; it keeps
-- the schemas alike. The lease that makes one of several Allot instances on a PostgreSQL database the leader (the one
-- that schedules and talks to the backend). One row per lease name ('scheduler'). epoch rises by one at every change
-- of holder (a fencing token). Keep in step with ../postgresql/V8__leader_lease.sql.
CREATE TABLE leader_lease (
    name           TEXT PRIMARY KEY,
    holder         TEXT NOT NULL,
    epoch          INTEGER NOT NULL CHECK (epoch > 0),
    acquired_at_ms INTEGER NOT NULL,
    expires_at_ms  INTEGER NOT NULL
);
