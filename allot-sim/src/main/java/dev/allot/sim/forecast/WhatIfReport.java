package dev.allot.sim.forecast;

import java.util.List;
import java.util.SortedMap;

/**
 * What a what-if found: per allocation (every node of the tree, in preorder; an inner node sums the leaves below
 * it), the outcome over the horizon with the settings as they are (base) and with the change (variant), and the
 * difference. Numbers are as they are shown (GPU-hours to 2 decimals, fractions to 4), and deltas are differences
 * of the shown numbers, so a change that changes nothing shows deltas of exactly 0.
 *
 * @param nowSeconds    the state's time, where the horizon starts
 * @param untilSeconds  where it ends
 * @param runs          futures played for each side, with the same draws on both sides
 * @param seed          the seed of the draws
 * @param durations     what the durations rest on, in words
 * @param newWork       what the new work rests on, in words
 * @param shares        the shares changed, by allocation
 * @param settings      the policy settings changed, by {@code <policy>.<setting>}
 * @param allocations   per allocation, in the tree's preorder
 */
public record WhatIfReport(long nowSeconds, long untilSeconds, int runs, long seed, String durations, String newWork,
                           SortedMap<String, Double> shares, SortedMap<String, String> settings,
                           List<Allocation> allocations) {
    public WhatIfReport {
        allocations = List.copyOf(allocations);
    }

    /**
     * One allocation, base against variant.
     *
     * @param name  its name in the tree
     * @param depth 0 for the root
     * @param leaf  whether work runs in it (else its numbers sum its leaves)
     */
    public record Allocation(String name, int depth, boolean leaf, Outcome base, Outcome variant, Delta delta) {
    }

    /**
     * What one side predicts for an allocation over the horizon, over all runs.
     *
     * @param entitlement      its fraction of the cluster on this side's tree
     * @param started          starts within the horizon (per run, averaged over runs, 2 decimals)
     * @param waitP50Seconds   median wait of the work that started within the horizon, all runs pooled, counted from
     *                         the later of its submission and the horizon's start; null when nothing started
     * @param waitP90Seconds   the 90th percentile of the same waits (nearest rank); null when nothing started
     * @param waitingAtEnd     workloads still waiting at the horizon (per run, averaged, 2 decimals)
     * @param chargedGpuHours  GPU-hours its allocated work ran within the horizon (per run, averaged)
     * @param owedGpuHours     what fair share owed it within the horizon, by the simulator's definition (per run)
     * @param paidFraction     the simulator's paid fraction over the horizon: hour by hour, what it received up to
     *                         what it was owed, over what it was owed (all runs pooled); null when nothing was owed
     */
    public record Outcome(double entitlement, double started, Long waitP50Seconds, Long waitP90Seconds,
                          double waitingAtEnd, double chargedGpuHours, double owedGpuHours, Double paidFraction) {
    }

    /** Variant minus base; a wait or paid delta is null when either side has none. */
    public record Delta(double entitlement, double started, Long waitP50Seconds, Long waitP90Seconds,
                        double waitingAtEnd, double chargedGpuHours, double owedGpuHours, Double paidFraction) {
        static Delta of(Outcome b, Outcome v) {
            return new Delta(round(v.entitlement() - b.entitlement(), 6), round(v.started() - b.started(), 2),
                    minus(v.waitP50Seconds(), b.waitP50Seconds()), minus(v.waitP90Seconds(), b.waitP90Seconds()),
                    round(v.waitingAtEnd() - b.waitingAtEnd(), 2), round(v.chargedGpuHours() - b.chargedGpuHours(), 2),
                    round(v.owedGpuHours() - b.owedGpuHours(), 2),
                    v.paidFraction() == null || b.paidFraction() == null ? null
                            : round(v.paidFraction() - b.paidFraction(), 4));
        }

        private static Long minus(Long a, Long b) {
            return a == null || b == null ? null : a - b;
        }
    }

    static double round(double v, int decimals) {
        return java.math.BigDecimal.valueOf(v).setScale(decimals, java.math.RoundingMode.HALF_EVEN).doubleValue();
    }

    /** The allocation named {@code name}. */
    public java.util.Optional<Allocation> allocation(String name) {
        return allocations.stream().filter(a -> a.name().equals(name)).findFirst();
    }
}
