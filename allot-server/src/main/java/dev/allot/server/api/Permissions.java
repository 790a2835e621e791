package dev.allot.server.api;

import dev.allot.server.store.Allocation;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Who may do what, decided against one snapshot of the allocation tree. Administrators may do everything. A user
 * may submit to an allocation they are a member of, or that they manage, or that lies below one they manage (a
 * manager of a node manages its subtree). A workload may be cancelled by its owner, by a manager of its allocation
 * or of an ancestor, or by an administrator. Reading (the queue, the tree, the nodes, usage) needs only a valid
 * token, but a workload's command and environment (which may hold secrets) are shown only to the same people who
 * may cancel it: everyone else sees who, where, how many GPUs, its state and its explanation.
 *
 * <p>Editing the tree: administrators may create, change and remove any node (and only they may touch a root). A
 * manager of a node N may create, change and remove nodes strictly inside N's subtree (its children,
 * grandchildren...), but not N itself: a manager cannot raise their own share or change who manages them. The
 * audit trail may be read by administrators (all of it) and by managers (the entries about their subtrees).
 * Nodes (machines) are administrators' only.
 *
 * <p>A value made per request: the tree may change between requests, and a request should see one tree.
 */
record Permissions(Map<String, Allocation> byPath) {
    Permissions {
        byPath = Map.copyOf(byPath);
    }

    static Permissions of(List<Allocation> allocations) {
        Map<String, Allocation> m = new TreeMap<>();
        for (Allocation a : allocations) {
            m.put(a.path(), a);
        }
        return new Permissions(m);
    }

    Optional<Allocation> allocation(String path) {
        return Optional.ofNullable(byPath.get(path));
    }

    /** Whether the allocation at this path has siblings: others under the same parent, or other roots. */
    boolean hasSiblings(String path) {
        String parent = Allocation.parentOf(path);
        return byPath.values().stream().anyMatch(a -> !a.path().equals(path)
                && Objects.equals(parent, a.parentPath()));
    }

    /** Whether the allocation at this path has children (workloads run only in leaves). */
    boolean hasChildren(String path) {
        String prefix = path + "/";
        return byPath.keySet().stream().anyMatch(p -> p.startsWith(prefix));
    }

    boolean maySubmit(User user, String path) {
        if (user.role() == User.Role.ADMIN) {
            return true;
        }
        Allocation a = byPath.get(path);
        return a != null && (a.members().contains(user.name()) || manages(user, path));
    }

    /** True when the user may cancel a workload: {@link #ownerManagerOrAdmin} of it. */
    boolean mayCancel(User user, Workload w) {
        return ownerManagerOrAdmin(user, w.user(), w.allocationPath());
    }

    /**
     * True when the user may see a workload's command and environment (and output): its submitter, a manager of its
     * allocation or above, or an administrator ({@link #ownerManagerOrAdmin}).
     */
    boolean maySeeDetails(User user, Workload w) {
        return ownerManagerOrAdmin(user, w.user(), w.allocationPath());
    }

    /**
     * The one rule for who may act on something a user owns in an allocation (a workload, a campaign): an
     * administrator, its owner, or a manager of its allocation or above.
     */
    boolean ownerManagerOrAdmin(User user, String owner, String allocationPath) {
        return user.role() == User.Role.ADMIN || owner.equals(user.name()) || manages(user, allocationPath);
    }

    /**
     * True when the user may create, change or remove the allocation at this path: an administrator, or a manager
     * of a strict ancestor (whichever of them exist).
     */
    boolean mayEditAllocation(User user, String path) {
        if (user.role() == User.Role.ADMIN) {
            return true;
        }
        int slash = path.lastIndexOf('/');
        return slash > 0 && manages(user, path.substring(0, slash));
    }

    /** True when the user may read the audit trail at all: an administrator, or a manager of some node. */
    boolean mayReadAudit(User user) {
        return user.role() == User.Role.ADMIN
                || byPath.values().stream().anyMatch(a -> a.managers().contains(user.name()));
    }

    /** True when the user may see an audit entry about this subject: an administrator, or a manager of its subtree. */
    boolean maySeeAudit(User user, String subject) {
        return user.role() == User.Role.ADMIN || (subject != null && manages(user, subject));
    }

    /** True when the user is a manager of this path or of one of its ancestors (whichever of them still exist). */
    boolean manages(User user, String path) {
        for (String p : selfAndAncestors(path)) {
            Allocation a = byPath.get(p);
            if (a != null && a.managers().contains(user.name())) {
                return true;
            }
        }
        return false;
    }

    /** {@code a/b/c} gives {@code a/b/c, a/b, a}. */
    static List<String> selfAndAncestors(String path) {
        List<String> out = new ArrayList<>();
        for (String p = path; p != null; ) {
            out.add(p);
            int slash = p.lastIndexOf('/');
            p = slash < 0 ? null : p.substring(0, slash);
        }
        return out;
    }
}
