package dev.allot.core.campaign;

/**
 * What a campaign asks its carrier (the simulator, the service) to do to one shard. Moves never lose reported units.
 */
public sealed interface CampaignMove {
    int shard();

    /** Queue a workload for a shard that has none, under {@code tier}. */
    record Queue(int shard, ShardTier tier) implements CampaignMove {
    }

    /** A waiting shard changes contract before it starts: free, nothing ran. */
    record Retier(int shard, ShardTier tier) implements CampaignMove {
    }

    /**
     * A shard running unallocated takes a protected slot where it runs: the same attempt and process, charged and
     * protected from now.
     */
    record Promote(int shard) implements CampaignMove {
    }

    /**
     * A shard running unallocated is stopped and queued again as protected, as a scheduler that cannot change a
     * running job's contract must do (Slurm's QOS): the work since its last reported unit is lost, and it waits again.
     */
    record Restart(int shard) implements CampaignMove {
    }
}
