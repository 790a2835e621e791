-- When the scheduler asked an attempt to stop, so that a scheduler restarted during the grace period gives the
-- attempt only what is left of it.
ALTER TABLE attempts ADD COLUMN stop_requested_at_ms INTEGER NULL;
-- The scheduler asks each cycle which workloads still running were asked to stop for good.
CREATE INDEX workloads_cancelling ON workloads (seq) WHERE cancel_requested = 1;
