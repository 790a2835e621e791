-- High availability (issue 20), PostgreSQL: the lease that makes one of several Allot instances on this database the
-- leader (the one that schedules and talks to the backend). One row per lease name ('scheduler'). epoch rises by one
-- at every change of holder (a fencing token: every write the leader's scheduling loop makes first checks, in the same
-- transaction, that the row still names it at its epoch). expires_at_ms is by the database's clock, so the instances'
-- clocks need not agree. Keep in step with ../sqlite/V8__leader_lease.sql.
CREATE TABLE leader_lease (
    name           TEXT PRIMARY KEY,
    holder         TEXT NOT NULL,
    epoch          BIGINT NOT NULL CHECK (epoch > 0),
    acquired_at_ms BIGINT NOT NULL,
    expires_at_ms  BIGINT NOT NULL
);
