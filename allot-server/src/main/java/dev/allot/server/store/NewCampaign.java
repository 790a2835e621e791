package dev.allot.server.store;

import dev.allot.core.campaign.ShardBrakes;
import dev.allot.core.model.Priority;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;

/**
 * A campaign as submitted, before the store keeps it: its fields as {@link Campaign} has them (state running) and its
 * shards, numbered from 0 in the order given. The API checks every field and names the wrong ones; here they are
 * invariants.
 */
public record NewCampaign(
        String name,
        String owner,
        String allocationPath,
        List<String> command,
        SortedMap<String, String> environment,
        int gpus,
        long minRuntimeSeconds,
        Integer protectedShards,
        Integer protectedGpus,
        Double secondsPerUnit,
        Priority priority,
        ShardBrakes brakes,
        int failureRetries,
        List<Shard> shards) {

    /** At most this many shards in one campaign. */
    public static final int MAX_SHARDS = 10_000;

    /** A shard as submitted: its units of work in all, and optionally the family whose rate stands in for its own. */
    public record Shard(long units, String family) {
        public Shard {
            if (units < 1) {
                throw new IllegalArgumentException("a shard has at least 1 unit of work, got " + units);
            }
        }
    }

    public NewCampaign {
        shards = List.copyOf(shards);
        if (shards.isEmpty() || shards.size() > MAX_SHARDS) {
            throw new IllegalArgumentException("campaign " + name + ": 1 to " + MAX_SHARDS + " shards, got "
                    + shards.size());
        }
        // the campaign's own checks (the fields are not assigned yet: the parameters are passed)
        Objects.requireNonNull(new Campaign(name, owner, allocationPath, command, environment, gpus, minRuntimeSeconds,
                protectedShards, protectedGpus, secondsPerUnit, priority, brakes, failureRetries, Campaign.State.RUNNING, 0),
                "campaign");
    }

    /** The campaign as it is stored at first: running, created at {@code createdAtMillis}. */
    public Campaign as(long createdAtMillis) {
        return new Campaign(name, owner, allocationPath, command, environment, gpus, minRuntimeSeconds, protectedShards,
                protectedGpus, secondsPerUnit, priority, brakes, failureRetries, Campaign.State.RUNNING, createdAtMillis);
    }
}
