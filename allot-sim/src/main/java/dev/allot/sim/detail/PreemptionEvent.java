package dev.allot.sim.detail;

import java.util.List;

/**
 * One preemption decision as the report lists it: the running workloads a policy stopped at one instant for one
 * waiting workload (or for one unhealthy host), with the policy's reason for the first of them.
 *
 * @param timeSeconds  when
 * @param kind         the rule ({@code UNALLOCATED}, {@code FAIR_SHARE}, {@code PRIORITY}, {@code HOST_DRAIN})
 * @param preemptor    the workload that needed the GPUs; null for a host drain
 * @param node         the unhealthy host for a drain; null otherwise
 * @param victims      the workloads stopped, in the order the policy stopped them
 * @param gpus         GPUs freed
 * @param lostGpuHours GPU-hours of work thrown away
 * @param reason       the policy's explanation for the first victim
 */
public record PreemptionEvent(long timeSeconds, String kind, String preemptor, String node, List<String> victims,
                              int gpus, double lostGpuHours, String reason) {
}
