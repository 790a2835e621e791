package dev.allot.server.api;

import dev.allot.core.model.AllocationTree;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AllocationTrees;
import dev.allot.server.store.Attempts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Usage against entitlement, computed from one snapshot of the tree. Entitlements are the core's
 * ({@link AllocationTree#entitlement}, on {@link AllocationTrees#of} the stored tree): the product of the normalised
 * shares from the root down, the top-level allocations being siblings of one another. A node's usage is the
 * GPU-seconds charged to it and to everything below it; usage charged to a path no longer in the tree (a removed
 * allocation) counts for its nearest ancestors that remain.
 *
 * <p>Beside the charged (allocated) GPU time, each node gets the unallocated GPU time its subtree received (work
 * with no minimum runtime, never charged), and what it was <i>owed</i>: step by step, the smaller of what its
 * entitlement buys in the step and what its allocated work asked for (waiting or running), the simulator's measure.
 * Its {@code paidFraction} is the sum over steps of the smaller of allocated GPU time received and owed, over the
 * sum of owed (null when nothing was owed). Without a step, the window is one step.
 */
final class Entitlements {
    private Entitlements() {
    }

    /** GPU-seconds per node and per step of a list of runs. */
    private record Accumulated(Map<String, Double> total, Map<String, double[]> series, double sum) {
    }

    /**
     * One row per node, in path order (the order of {@code tree}, which must list a parent before its children), over
     * the window {@code [sinceMillis, untilMillis)}; with {@code stepMillis > 0}, each row also carries the series of
     * steps from {@code sinceMillis} (the last one may be shorter).
     */
    static List<Views.UsageRow> rows(List<Allocation> tree, List<Attempts.ChargedRun> runs,
                                     List<Attempts.ChargedRun> unallocatedRuns, List<Attempts.ChargedRun> demand,
                                     long sinceMillis, long untilMillis, int clusterGpus, long stepMillis) {
        Map<String, Double> entitlement = new HashMap<>();
        if (!tree.isEmpty()) {
            AllocationTree core = AllocationTrees.of(tree);
            for (Allocation a : tree) {
                entitlement.put(a.path(), core.entitlement(core.node(a.path()).orElseThrow()));
            }
        }
        long window = untilMillis - sinceMillis;
        // a step longer than the window is the window (one step), which also keeps the arithmetic below from overflowing
        long step = stepMillis > 0 ? Math.min(stepMillis, window) : window;
        int steps = (int) (window / step + (window % step == 0 ? 0 : 1));
        Accumulated used = accumulate(runs, entitlement, sinceMillis, untilMillis, step, steps);
        Accumulated unallocated = accumulate(unallocatedRuns, entitlement, sinceMillis, untilMillis, step, steps);
        Accumulated asked = accumulate(demand, entitlement, sinceMillis, untilMillis, step, steps);
        double windowSeconds = (untilMillis - sinceMillis) / 1000.0;
        List<Views.UsageRow> rows = new ArrayList<>(tree.size());
        double[] none = new double[steps];
        for (Allocation a : tree) {
            double e = entitlement.get(a.path());
            double[] s = used.series().getOrDefault(a.path(), none);
            double[] u = unallocated.series().getOrDefault(a.path(), none);
            double[] d = asked.series().getOrDefault(a.path(), none);
            List<Views.UsagePoint> points = stepMillis > 0 ? new ArrayList<>(steps) : null;
            double owed = 0;
            double paid = 0;
            for (int i = 0; i < steps; i++) {
                long from = sinceMillis + i * step;
                long to = Math.min(untilMillis, from + step);
                double entitled = e * clusterGpus * (to - from) / 1000.0;
                double owedHere = Math.min(entitled, d[i]);
                owed += owedHere;
                paid += Math.min(s[i], owedHere);
                if (points != null) {
                    points.add(new Views.UsagePoint(Views.instant(from), s[i], entitled, u[i], owedHere));
                }
            }
            double gpuSeconds = used.total().getOrDefault(a.path(), 0.0);
            rows.add(new Views.UsageRow(a.path(), a.parentPath(), a.share(), e, e * clusterGpus * windowSeconds,
                    gpuSeconds, used.sum() > 0 ? gpuSeconds / used.sum() : null, points,
                    unallocated.total().getOrDefault(a.path(), 0.0), owed, owed > 0 ? paid / owed : null));
        }
        return rows;
    }

    private static Accumulated accumulate(List<Attempts.ChargedRun> runs, Map<String, Double> nodes, long sinceMillis,
                                          long untilMillis, long stepMillis, int steps) {
        Map<String, Double> total = new HashMap<>();
        Map<String, double[]> series = new HashMap<>();
        double sum = 0;
        for (Attempts.ChargedRun r : runs) {
            double gpuSeconds = r.gpuSecondsIn(sinceMillis, untilMillis);
            if (gpuSeconds <= 0) {
                continue;
            }
            long start = Math.max(r.startedAtMillis(), sinceMillis);
            long end = r.endedAtMillis() == null ? untilMillis : Math.min(r.endedAtMillis(), untilMillis);
            sum += gpuSeconds;
            for (String p : Permissions.selfAndAncestors(r.allocationPath())) {
                if (!nodes.containsKey(p)) {
                    continue;
                }
                total.merge(p, gpuSeconds, Double::sum);
                double[] s = series.computeIfAbsent(p, k -> new double[steps]);
                for (long t = start; t < end; ) {
                    int i = (int) ((t - sinceMillis) / stepMillis);
                    long stepEnd = Math.min(end, sinceMillis + (i + 1) * stepMillis);
                    s[i] += r.gpus() * (stepEnd - t) / 1000.0;
                    t = stepEnd;
                }
            }
        }
        return new Accumulated(total, series, sum);
    }
}
