package dev.allot.sim;

/**
 * How one workload fared under one policy: one row of {@code --workloads-out}.
 *
 * @param firstStartSeconds -1 when it never started
 * @param endSeconds        -1 when it never ended
 * @param waitSeconds       first start minus submission; -1 when it never started
 * @param finalState        {@code completed}, {@code preempted} (not resumable, stopped for good), {@code pending}
 *                          (waiting when the run stopped), {@code running} (running when the run stopped, a year
 *                          after the last submission) or, for a campaign's shards, {@code cancelled}
 */
public record WorkloadRecord(String policy, String id, String allocation, long submitSeconds, long firstStartSeconds,
                             long endSeconds, long waitSeconds, int preemptions, String finalState) {
}
