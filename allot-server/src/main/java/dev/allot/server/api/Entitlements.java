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
 * shares from the root down, the top-level allocations being siblings of one another. A node's usage is the GPU-seconds charged to it and to everything below it; usage charged to a path
 * no longer in the tree (a removed allocation) counts for its nearest ancestors that remain.
 */
final class Entitlements {
    private Entitlements() {
    }

    /**
     * One row per node, in path order (the order of {@code tree}, which must list a parent before its children), over
     * the window {@code [sinceMillis, untilMillis)}; with {@code stepMillis > 0}, each row also carries the series of
     * steps from {@code sinceMillis} (the last one may be shorter).
     */
    static List<Views.UsageRow> rows(List<Allocation> tree, List<Attempts.ChargedRun> runs, long sinceMillis,
                                     long untilMillis, int clusterGpus, long stepMillis) {
        Map<String, Double> entitlement = new HashMap<>();
        if (!tree.isEmpty()) {
            AllocationTree core = AllocationTrees.of(tree);
            for (Allocation a : tree) {
                entitlement.put(a.path(), core.entitlement(core.node(a.path()).orElseThrow()));
            }
        }
        int steps = stepMillis > 0 ? (int) ((untilMillis - sinceMillis + stepMillis - 1) / stepMillis) : 0;
        Map<String, Double> used = new HashMap<>();
        Map<String, double[]> series = new HashMap<>();
        double total = 0;
        for (Attempts.ChargedRun r : runs) {
            double gpuSeconds = r.gpuSecondsIn(sinceMillis, untilMillis);
            if (gpuSeconds <= 0) {
                continue;
            }
            long start = Math.max(r.startedAtMillis(), sinceMillis);
            long end = r.endedAtMillis() == null ? untilMillis : Math.min(r.endedAtMillis(), untilMillis);
            total += gpuSeconds;
            for (String p : Permissions.selfAndAncestors(r.allocationPath())) {
                if (!entitlement.containsKey(p)) {
                    continue;
                }
                used.merge(p, gpuSeconds, Double::sum);
                if (steps > 0) {
                    double[] s = series.computeIfAbsent(p, k -> new double[steps]);
                    for (long t = start; t < end; ) {
                        int i = (int) ((t - sinceMillis) / stepMillis);
                        long stepEnd = Math.min(end, sinceMillis + (i + 1) * stepMillis);
                        s[i] += r.gpus() * (stepEnd - t) / 1000.0;
                        t = stepEnd;
                    }
                }
            }
        }
        double windowSeconds = (untilMillis - sinceMillis) / 1000.0;
        List<Views.UsageRow> rows = new ArrayList<>(tree.size());
        for (Allocation a : tree) {
            double e = entitlement.get(a.path());
            double gpuSeconds = used.getOrDefault(a.path(), 0.0);
            List<Views.UsagePoint> points = null;
            if (steps > 0) {
                double[] s = series.getOrDefault(a.path(), new double[steps]);
                points = new ArrayList<>(steps);
                for (int i = 0; i < steps; i++) {
                    long from = sinceMillis + i * stepMillis;
                    long to = Math.min(untilMillis, from + stepMillis);
                    points.add(new Views.UsagePoint(Views.instant(from), s[i], e * clusterGpus * (to - from) / 1000.0));
                }
            }
            rows.add(new Views.UsageRow(a.path(), a.parentPath(), a.share(), e, e * clusterGpus * windowSeconds,
                    gpuSeconds, total > 0 ? gpuSeconds / total : null, points));
        }
        return rows;
    }
}
