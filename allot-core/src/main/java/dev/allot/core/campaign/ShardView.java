package dev.allot.core.campaign;

import java.util.Objects;

/**
 * One shard as the campaign's rules see it now.
 *
 * @param index            the shard's number in the campaign (its submission order, and the final tie-break)
 * @param family           the family whose measured rate stands in for this shard's until it has its own; may be null
 * @param gpus             GPUs one run of the shard takes
 * @param unitsTotal       units of work (rows, samples) in all, at least 1
 * @param unitsDone        units reported done; never scheduled again
 * @param measuredSeconds  running time that produced {@code unitsDone} (over all attempts), for its rate
 * @param tier             the contract of its workload now (meaningless when {@link ShardPhase#UNQUEUED})
 */
public record ShardView(int index, String family, int gpus, long unitsTotal, long unitsDone, long measuredSeconds,
                        ShardPhase phase, ShardTier tier) {
    public ShardView {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(tier, "tier");
        if (unitsTotal < 1 || unitsDone < 0 || unitsDone > unitsTotal) {
            throw new IllegalArgumentException("shard " + index + ": units done " + unitsDone + " of " + unitsTotal
                    + "; expected 0 <= done <= total and total >= 1");
        }
        if (gpus < 1 || measuredSeconds < 0) {
            throw new IllegalArgumentException("shard " + index + ": gpus " + gpus + ", measured seconds "
                    + measuredSeconds + "; expected gpus >= 1 and seconds >= 0");
        }
    }

    public long unitsLeft() {
        return unitsTotal - unitsDone;
    }

    /** Running under a protected contract now. */
    public boolean runningProtected() {
        return phase == ShardPhase.RUNNING && tier == ShardTier.PROTECTED;
    }
}
