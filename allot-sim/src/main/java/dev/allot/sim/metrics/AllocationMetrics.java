package dev.allot.sim.metrics;

/**
 * What one allocation (leaf) was owed and got over the measurement window.
 *
 * @param entitlement        fraction of the cluster it is entitled to (product of normalised shares)
 * @param owedGpuHours       sum over hours of min(entitlement x healthy GPUs, GPUs its allocated work could use)
 * @param receivedGpuHours   GPU-hours its allocated work ran (charged)
 * @param paidFraction       sum over hours of min(received, owed) / sum of owed; null when nothing was owed
 * @param unallocatedGpuHours GPU-hours its unallocated work ran (free)
 * @param preemptions        preemptions its workloads suffered (drains excluded)
 */
public record AllocationMetrics(String name, String path, double entitlement, double owedGpuHours,
                                double receivedGpuHours, Double paidFraction, double unallocatedGpuHours,
                                int workloads, long preemptions, WaitStats waits) {
}
