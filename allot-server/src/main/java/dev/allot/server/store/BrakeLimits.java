package dev.allot.server.store;

/**
 * The safety brakes' limits, cluster-wide ({@link ClusterSettings#brakes()}): a waiting workload that went back to the
 * queue more than {@code maxRequeues} times, or whose runs used {@code maxGpuHoursPerWorkload} GPU-hours or more, is
 * held instead of started again.
 *
 * @param maxRequeues            how many times a workload may go back to the queue after having started; at least 0
 * @param maxGpuHoursPerWorkload GPU-hours of all of a workload's runs (charged or not) at which it is held; null for
 *                               no cap; otherwise finite and at least 0
 */
public record BrakeLimits(int maxRequeues, Double maxGpuHoursPerWorkload) {
    public static final int DEFAULT_MAX_REQUEUES = 20;
    public static final BrakeLimits DEFAULTS = new BrakeLimits(DEFAULT_MAX_REQUEUES, null);

    public BrakeLimits {
        if (maxRequeues < 0) {
            throw new IllegalArgumentException("maxRequeues must be at least 0, got " + maxRequeues);
        }
        if (maxGpuHoursPerWorkload != null && !(maxGpuHoursPerWorkload >= 0 && !maxGpuHoursPerWorkload.isInfinite())) {
            throw new IllegalArgumentException("maxGpuHoursPerWorkload must be a finite number >= 0 or null (no cap), got "
                    + maxGpuHoursPerWorkload);
        }
    }
}
