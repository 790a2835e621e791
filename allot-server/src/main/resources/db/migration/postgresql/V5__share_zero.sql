-- A share is a finite number >= 0 (dev.allot.core.rules.Shares), as in the simulator's allocations.yaml: an allocation
-- of share 0 is entitled to nothing and its work runs on what others leave idle. The store keeps at least one positive
-- share among siblings.
ALTER TABLE allocations DROP CONSTRAINT allocations_share_check;
ALTER TABLE allocations ADD CONSTRAINT allocations_share_check CHECK (share >= 0);
