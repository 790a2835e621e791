package dev.allot.sim.metrics;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.SortedMap;

/**
 * The headline numbers of one policy on one scenario. Everything is deterministic: same inputs, same numbers.
 * Window-based figures cover the measurement window (whole hours from time 0 through the hour of the last
 * submission); waits and counts cover every workload; lost and delivered GPU-hours cover the whole run.
 *
 * @param occupancy         busy GPU-time over healthy GPU-time, on healthy nodes
 * @param occupancyWhileWaiting the same over the moments when some submitted work waited (its workloads asked for
 *                          more GPUs than ran); null if none did. Idle GPUs when nothing waits are the demand's, not the
 *                          policy's: a policy that finishes work sooner has more such moments
 * @param unallocatedShare  share of busy GPU-time that ran unallocated
 * @param paidFraction      sum over allocations and hours of min(received, owed) over sum of owed: the headline
 * @param paidFractionDaily the same with each allocation paid per day instead of per hour: sum over allocations and
 *                          24-hour periods (from time 0; the last may be shorter) of min(received, owed) in the
 *                          period, over the same sum of owed (see {@link AllocationMetrics#paidFractionDaily})
 * @param paidFractionWindow the same per period as long as the lookback window (whole hours, rounded up)
 * @param meanDemandRatio   mean over the window of GPUs asked for by waiting and running work over healthy GPUs
 * @param waits             wait statistics for the classes {@code all}, {@code debug}, {@code large}
 * @param preemptions       running workloads stopped for other work (drains excluded)
 * @param unallocatedPreemptions those of {@code preemptions} whose victim ran unallocated (free, always preemptible
 *                          work, typically restarted on the next idle GPUs): the rest stopped work someone was charged for
 * @param drainEvictions    running workloads stopped because their host was unhealthy
 * @param lostGpuHours      GPU-hours of work thrown away by preemptions and drain evictions, over the whole run
 * @param deliveredGpuHours GPU-hours run by every attempt of every workload, allocated and unallocated, over the
 *                          whole run (time 0 to the run's end, the span of {@code lostGpuHours}), including attempts
 *                          whose work was later lost and time run on unhealthy nodes before a drain: what lost work
 *                          is a share of
 * @param lostShare         lostGpuHours over deliveredGpuHours (from unrounded GPU-seconds, rounded to 4 decimals);
 *                          0 when nothing ran
 * @param allocatedLostShare the part of {@code lostShare} that allocated work lost (the work of attempts that ran
 *                          with a minimum runtime), over the same delivered GPU-hours
 * @param drainBlockedHours node-hours unhealthy nodes waited, beyond their workloads' minimum runtimes, to drain
 * @param drains            unhealthy episodes that ended drained (or healthy again)
 * @param drainsWithoutWaiting drains that needed no waiting beyond minimum runtimes
 * @param paidBound         when asked for ({@code --paid-bound}): the paid fraction at regular instants and the most
 *                          any schedule could have paid at them ({@link PaidBound}); null otherwise
 */
public record PolicyMetrics(
        String policy,
        SortedMap<String, String> settings,
        int workloads,
        int completed,
        int preemptedFinal,
        int unfinished,
        int cappedMinRuntimes,
        double occupancy,
        Double occupancyWhileWaiting,
        double unallocatedShare,
        Double paidFraction,
        Double paidFractionDaily,
        Double paidFractionWindow,
        double meanDemandRatio,
        SortedMap<String, WaitStats> waits,
        long preemptions,
        long unallocatedPreemptions,
        long drainEvictions,
        long requeues,
        double lostGpuHours,
        double deliveredGpuHours,
        double lostShare,
        double allocatedLostShare,
        double drainBlockedHours,
        int drains,
        int drainsWithoutWaiting,
        long windowSeconds,
        List<AllocationMetrics> allocations,
        @JsonInclude(JsonInclude.Include.NON_NULL) PaidBound.Result paidBound) {

    /** These metrics with {@code bound} as {@link #paidBound}. */
    public PolicyMetrics withPaidBound(PaidBound.Result bound) {
        return new PolicyMetrics(policy, settings, workloads, completed, preemptedFinal, unfinished, cappedMinRuntimes,
                occupancy, occupancyWhileWaiting, unallocatedShare, paidFraction, paidFractionDaily, paidFractionWindow, meanDemandRatio, waits,
                preemptions, unallocatedPreemptions, drainEvictions, requeues, lostGpuHours, deliveredGpuHours, lostShare,
                allocatedLostShare, drainBlockedHours, drains, drainsWithoutWaiting, windowSeconds, allocations, bound);
    }
}
