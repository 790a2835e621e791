package dev.allot.sim.metrics;

/**
 * What one allocation (leaf) was owed and got over the measurement window.
 *
 * @param entitlement        fraction of the cluster it is entitled to (product of normalised shares)
 * @param owedGpuHours       sum over hours of min(entitlement x healthy GPUs, GPUs its allocated work could use)
 * @param receivedGpuHours   GPU-hours its allocated work ran (charged)
 * @param paidFraction       sum over hours of min(received, owed) / sum of owed; null when nothing was owed. The
 *                           headline: GPU-time received above what was owed in one hour pays nothing for another hour
 * @param paidFractionDaily  the same over days: the window cut into 24-hour periods from time 0 (the last may be
 *                           shorter), each paying min(received in it, owed in it = the sum of its hours' owed), over
 *                           the sum of owed; at least {@code paidFraction}, since surpluses and shortfalls within a
 *                           day even out. Null when nothing was owed
 * @param paidFractionWindow the same over periods as long as the scenario's lookback window (the usage ledger's
 *                           window, in whole hours rounded up), the span fair share balances usage over; at least
 *                           {@code paidFractionDaily} when the lookback is whole days. Null when nothing was owed
 * @param unallocatedGpuHours GPU-hours its unallocated work ran (free)
 * @param preemptions        preemptions its workloads suffered (drains excluded)
 */
public record AllocationMetrics(String name, String path, double entitlement, double owedGpuHours,
                                double receivedGpuHours, Double paidFraction, Double paidFractionDaily,
                                Double paidFractionWindow, double unallocatedGpuHours,
                                int workloads, long preemptions, WaitStats waits) {
}
