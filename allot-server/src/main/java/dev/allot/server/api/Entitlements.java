package dev.allot.server.api;

import dev.allot.core.model.AllocationTree;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AllocationTrees;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Usage against entitlement, computed from one snapshot of the tree. Entitlements are the core's
 * ({@link AllocationTree#entitlement}, on {@link AllocationTrees#of} the stored tree): the product of the normalised
 * shares from the root down, the top-level allocations being siblings of one another. A node's usage is the GPU-seconds charged to it and to everything below it; usage charged to a path
 * no longer in the tree (a removed allocation) counts for its nearest ancestors that remain.
 */
final class Entitlements {
    private Entitlements() {
    }

    /** One row per node, in path order (the order of {@code tree}, which must list a parent before its children). */
    static List<Views.UsageRow> rows(List<Allocation> tree, SortedMap<String, Double> usageByPath) {
        Map<String, Double> entitlement = new HashMap<>();
        if (!tree.isEmpty()) {
            AllocationTree core = AllocationTrees.of(tree);
            for (Allocation a : tree) {
                entitlement.put(a.path(), core.entitlement(core.node(a.path()).orElseThrow()));
            }
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

}
