package dev.allot.sim.campaign;

import java.util.List;

/**
 * How one campaign went in one simulation, counted by the campaign's own bookkeeping (what its shards reported and
 * what it heard of their runs), not read back from the policy.
 *
 * @param strategy           the strategy's name
 * @param submitSeconds      when the campaign was submitted
 * @param endSeconds         when its last unit was done; -1 when it did not finish
 * @param unitsTotal         units of all shards
 * @param unitsDone          units reported done at the end
 * @param chargedGpuSeconds  GPU-seconds its shards ran protected (charged to the allocation), from each protected
 *                           start or promotion to the end of that run
 * @param lostGpuSeconds     GPU-seconds its shards ran that no reported unit kept (preemptions and restarts)
 * @param unallocatedGpuSeconds GPU-seconds its shards ran unallocated (free)
 * @param unitsRedone        units that a run did again after a run had reported them (must be 0)
 * @param restarts           the campaign's own restarts (moves into a protected slot by stopping and requeueing)
 * @param promotions         promotions in place of running shards
 * @param retiers            contract changes of waiting shards (to protected or back)
 * @param preemptions        times the policy stopped one of its shards
 * @param shardEndSeconds    when each shard finished, by index; -1 for one that did not
 * @param attempts           every run of every shard in the order they started (what the report's campaign view
 *                           draws)
 */
public record CampaignOutcome(String strategy, long submitSeconds, long endSeconds, long unitsTotal, long unitsDone,
                              long chargedGpuSeconds, long lostGpuSeconds, long unallocatedGpuSeconds, long unitsRedone,
                              int restarts, int promotions, int retiers, int preemptions, List<Long> shardEndSeconds,
                              List<Attempt> attempts) {
    public CampaignOutcome {
        shardEndSeconds = List.copyOf(shardEndSeconds);
        attempts = List.copyOf(attempts);
    }

    /** How a run of a shard ended. */
    public enum End {
        /** its last unit was done */
        COMPLETED,
        /** the policy stopped it (it resumes from its last reported unit) */
        PREEMPTED,
        /** the campaign stopped it to requeue it as protected (v4, v4.1) */
        RESTARTED,
        /** it still ran when the simulation ended */
        RUNNING
    }

    /**
     * One run of a shard, from the driver's books.
     *
     * @param shard                the shard's index
     * @param startSeconds         when it started
     * @param endSeconds           when it stopped (the simulation's end for one still {@link End#RUNNING})
     * @param protectedFromSeconds from when it ran protected (charged): its start when it started protected, the
     *                             time of its promotion in place when it was promoted, -1 when it ran unallocated
     *                             throughout
     * @param fromUnits            the units it resumed from
     * @param toUnits              the units reported by its end
     * @param end                  how it ended
     */
    public record Attempt(int shard, long startSeconds, long endSeconds, long protectedFromSeconds, long fromUnits,
                          long toUnits, End end) {
        public boolean promoted() {
            return protectedFromSeconds > startSeconds;
        }
    }

    public boolean finished() {
        return endSeconds >= 0;
    }

    /** From submission to the last unit done; -1 when the campaign did not finish. */
    public long makespanSeconds() {
        return finished() ? endSeconds - submitSeconds : -1;
    }
}
