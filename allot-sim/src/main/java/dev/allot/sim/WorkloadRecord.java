package dev.allot.sim;

/**
 * How one workload fared under one policy: one row of {@code --workloads-out}.
 *
 * @param firstStartSeconds -1 when it never started
 * @param endSeconds        -1 when it never ended
 * @param waitSeconds       first start minus submission; -1 when it never started
 * @param finalState        {@code completed}, {@code preempted} (not resumable, stopped for good) or {@code pending}
 */
public record WorkloadRecord(String policy, String id, String allocation, long submitSeconds, long firstStartSeconds,
                             long endSeconds, long waitSeconds, int preemptions, String finalState) {
}
