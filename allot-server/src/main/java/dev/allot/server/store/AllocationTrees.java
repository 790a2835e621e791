package dev.allot.server.store;

import dev.allot.core.model.AllocationTree;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The stored allocations as the core's {@link AllocationTree}: nodes named by their full path, the top-level ones
 * children of a made-up root {@link #ROOT} (so they are siblings of one another). The scheduling loop decides on
 * this tree and the API reports entitlements from it, so both use the core's one definition of entitlement.
 */
public final class AllocationTrees {
    /** The name of the made-up root above the top-level allocations. */
    public static final String ROOT = "/";

    private AllocationTrees() {
    }

    /** The core tree of the stored allocations (which must not be empty). */
    public static AllocationTree of(List<Allocation> allocations) {
        Map<String, List<Allocation>> children = new TreeMap<>();
        for (Allocation a : allocations) {
            children.computeIfAbsent(a.parentPath() == null ? ROOT : a.parentPath(), k -> new ArrayList<>()).add(a);
        }
        AllocationTree.Builder b = AllocationTree.builder(ROOT);
        addChildren(b, ROOT, children);
        return b.build();
    }

    private static void addChildren(AllocationTree.Builder b, String parent, Map<String, List<Allocation>> children) {
        for (Allocation a : children.getOrDefault(parent, List.of())) {
            if (children.containsKey(a.path())) {
                b.child(a.path(), a.share());
                addChildren(b, a.path(), children);
                b.up();
            } else {
                b.leaf(a.path(), a.share());
            }
        }
    }
}
