-- When the scheduler asked an attempt to stop, so that a scheduler restarted during the grace period gives the
-- attempt only what is left of it.
ALTER TABLE attempts ADD COLUMN stop_requested_at_ms BIGINT NULL;
