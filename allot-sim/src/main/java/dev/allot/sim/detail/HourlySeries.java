package dev.allot.sim.detail;

import java.util.List;

/**
 * Hour-by-hour series of a run, in mean GPUs over each hour (GPU-seconds / 3,600, rounded to 0.01), from hour 0
 * through the last hour the run lasted (partial or whole: a run that stopped at 8h has hours 0 to 7). Entitled is the allocation's share of the healthy GPUs; owed is the part of
 * that its allocated work asked for (what fair share promises to pay).
 *
 * @param hours          length of every series
 * @param healthyGpus    healthy GPUs in the cluster
 * @param busyGpus       busy healthy GPUs
 * @param drainEvictions workloads stopped because their host was unhealthy, per hour
 * @param allocations    one entry per allocation (leaf), in tree order
 */
public record HourlySeries(int hours, double[] healthyGpus, double[] busyGpus, int[] drainEvictions,
                           List<Allocation> allocations) {

    /**
     * @param allocation    the leaf's name
     * @param allocatedGpus GPUs its allocated (charged) work received
     * @param unallocatedGpus GPUs its unallocated (free, preemptible) work received
     * @param entitledGpus  its entitlement times the healthy GPUs
     * @param owedGpus      the smaller of entitled and what its allocated work asked for
     * @param preemptions   its workloads preempted for other work (drains excluded), per hour
     * @param lostGpuHours  GPU-hours of its work thrown away by preemptions and drains, per hour
     */
    public record Allocation(String allocation, double[] allocatedGpus, double[] unallocatedGpus, double[] entitledGpus,
                             double[] owedGpus, int[] preemptions, double[] lostGpuHours) {
    }
}
