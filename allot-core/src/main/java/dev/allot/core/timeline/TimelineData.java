package dev.allot.core.timeline;

/**
 * The per-GPU timeline of a run in a compact columnar encoding: one entry per run of a workload (not per GPU),
 * runs sorted by start time then workload index. Integers only, so a month of a thousand-GPU cluster is a few
 * arrays of small numbers rather than hundreds of thousands of objects. The simulator's report and the service's
 * live timeline ({@code GET /v1/timeline}) both write it, through {@link TimelineEncoder}, and the shared drawing
 * code (allot-web, {@code dev/allot/web/model.js}) reads it.
 *
 * <p>Run {@code r}: workload {@code workload[r]} (index into the document's workloads), started at the sum of
 * {@code startDelta[0..r]}, ran {@code durationSeconds[r]}, was protected for its first {@code protectedSeconds[r]}
 * (-1: protected for the whole run; 0: preemptible throughout, i.e. unallocated), and ended as {@code end[r]}
 * (index into {@link #ENDS}); if it was stopped, {@code cause[r]} is the rule (index into {@link #CAUSES}, -1 when
 * not stopped) and {@code preemptor[r]} the workload that took its GPUs (-1 when none). Its GPUs are
 * {@code parts[r]} consecutive triples of {@code slots}: node index, first lane, lane count.
 *
 * <p>Node periods: node {@code periodNode[i]} was {@code periodState[i]} (0 unhealthy, 1 drained) from
 * {@code periodFromSeconds[i]} to {@code periodToSeconds[i]}.
 */
public record TimelineData(int runs, int[] workload, long[] startDelta, long[] durationSeconds, long[] protectedSeconds,
                           int[] end, int[] cause, int[] preemptor, int[] parts, int[] slots,
                           int[] periodNode, int[] periodState, long[] periodFromSeconds, long[] periodToSeconds) {
    /** How a run ended: a simulation writes the first {@link #SIMULATED_ENDS}; the service also failed, cancelled, lost. */
    public static final java.util.List<String> ENDS = java.util.List.of("completed", "preempted", "requeued", "running",
            "failed", "cancelled", "lost");
    /** How many of {@link #ENDS}, from the first, a simulation's run can end as (its work neither fails nor is lost). */
    public static final int SIMULATED_ENDS = 4;
    public static final java.util.List<String> CAUSES = java.util.Arrays.stream(
            dev.allot.core.policy.PreemptionCause.Kind.values()).map(Enum::name).toList();
    /** {@link #periodState} of a node that was unhealthy (draining or drained). */
    public static final int UNHEALTHY = 0;
    /** {@link #periodState} of a node that was drained: unhealthy and empty, waiting for repair. */
    public static final int DRAINED = 1;
}
