package dev.allot.server.api;

import dev.allot.server.store.Allocation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Usage against entitlement, computed from one snapshot of the tree. A node's normalised share is its share over
 * the sum of its siblings' shares (itself included; the roots are siblings of one another); its entitlement is the
 * product of the normalised shares from its root down to it, so the entitlements of a node's children add up to
 * the node's. A node's usage is the GPU-seconds charged to it and to everything below it; usage charged to a path
 * no longer in the tree (a removed allocation) counts for its nearest ancestors that remain.
 */
final class Entitlements {
    private Entitlements() {
    }

    /** One row per node, in path order (the order of {@code tree}, which must list a parent before its children). */
    static List<Views.UsageRow> rows(List<Allocation> tree, SortedMap<String, Double> usageByPath) {
        Map<String, Double> siblingSums = new HashMap<>();
        for (Allocation a : tree) {
            siblingSums.merge(parentKey(a), a.share(), Double::sum);
        }
        Map<String, Double> entitlement = new HashMap<>();
        for (Allocation a : tree) {
            double normalised = a.share() / siblingSums.get(parentKey(a));
            double above = a.parentPath() == null ? 1.0 : entitlement.getOrDefault(a.parentPath(), 0.0);
            entitlement.put(a.path(), above * normalised);
        }
        Map<String, Double> used = new HashMap<>();
        double total = 0;
        for (Map.Entry<String, Double> e : usageByPath.entrySet()) {
            total += e.getValue();
            for (String p : Permissions.selfAndAncestors(e.getKey())) {
                if (entitlement.containsKey(p)) {
                    used.merge(p, e.getValue(), Double::sum);
                }
            }
        }
        List<Views.UsageRow> rows = new ArrayList<>(tree.size());
        for (Allocation a : tree) {
            double gpuSeconds = used.getOrDefault(a.path(), 0.0);
            rows.add(new Views.UsageRow(a.path(), a.parentPath(), a.share(), entitlement.get(a.path()), gpuSeconds,
                    total > 0 ? gpuSeconds / total : null));
        }
        return rows;
    }

    private static String parentKey(Allocation a) {
        return a.parentPath() == null ? "" : "/" + a.parentPath();
    }
}
