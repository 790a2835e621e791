package dev.allot.server.store;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A campaign as the store holds it at one moment, read in one transaction: the campaign, its shards in index order,
 * their current workloads, what each shard's runs add up to and the last attempt of each current workload. What the
 * scheduler plans from each cycle and what the API shows, so both see the same numbers.
 *
 * @param workloads    the shards' current workloads, by id
 * @param runs         each shard's runs over all its workloads, by shard index (absent: none yet)
 * @param lastAttempts the newest attempt of each current workload that has one, by workload id
 */
public record CampaignSnapshot(Campaign campaign, List<CampaignShard> shards, Map<String, Workload> workloads,
                               Map<Integer, ShardRuns> runs, Map<String, Attempt> lastAttempts) {
    public CampaignSnapshot {
        shards = List.copyOf(shards);
        workloads = Map.copyOf(workloads);
        runs = Map.copyOf(runs);
        lastAttempts = Map.copyOf(lastAttempts);
    }

    /**
     * What one shard's runs add up to, over every workload it had: how many times it went back to the queue after
     * having started (attempts ended preempted, requeued or lost), GPU-milliseconds of all its runs (an open one
     * counting to the snapshot's time), and of their charged parts; and how many of its workloads failed.
     */
    public record ShardRuns(int requeues, long gpuMillis, long chargedGpuMillis, int failures) {
        public static final ShardRuns NONE = new ShardRuns(0, 0, 0, 0);

        public long gpuSeconds() {
            return gpuMillis / 1000;
        }
    }

    public ShardRuns runsOf(int index) {
        return runs.getOrDefault(index, ShardRuns.NONE);
    }

    /** The shard's current workload, if it has one. */
    public Optional<Workload> workloadOf(CampaignShard s) {
        return s.workloadId() == null ? Optional.empty() : Optional.ofNullable(workloads.get(s.workloadId()));
    }

    /** The newest attempt of the shard's current workload, if it has one. */
    public Optional<Attempt> lastAttemptOf(CampaignShard s) {
        return s.workloadId() == null ? Optional.empty() : Optional.ofNullable(lastAttempts.get(s.workloadId()));
    }

    /** GPU-milliseconds of every run of every shard. */
    public long gpuMillis() {
        return runs.values().stream().mapToLong(ShardRuns::gpuMillis).sum();
    }

    public long chargedGpuMillis() {
        return runs.values().stream().mapToLong(ShardRuns::chargedGpuMillis).sum();
    }
}
