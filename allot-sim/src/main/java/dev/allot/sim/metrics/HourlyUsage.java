package dev.allot.sim.metrics;

import java.util.List;

/**
 * Hour-by-hour usage of one simulation, per allocation (leaf order of the tree): GPU-seconds received allocated
 * and unallocated, GPU-seconds asked for by allocated work, and cluster-wide healthy, busy and busy-unallocated
 * GPU-seconds and GPU-seconds asked for by all waiting and running work.
 */
public record HourlyUsage(List<Hourly> receivedAllocated, List<Hourly> receivedUnallocated, List<Hourly> demand,
                          Hourly healthy, Hourly busy, Hourly busyUnallocated, Hourly demandAll) {
}
