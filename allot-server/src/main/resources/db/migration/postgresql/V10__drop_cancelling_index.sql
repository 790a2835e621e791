-- The partial index of workloads whose cancellation was requested (V2) served the scheduler's per-cycle query of
-- them; since the change feed (V9) brings cancellations with every other change, nothing reads it, and every write
-- that requests a cancellation would still keep it up to date. Issue 21.
DROP INDEX IF EXISTS workloads_cancelling;
