package dev.allot.server.store;

import dev.allot.core.rules.Shares;
import dev.allot.core.rules.Violation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/**
 * The allocations part of the {@link Store} ({@link Store#allocations()}): the allocation tree that fair share
 * divides the GPUs by, and the audit trail of changes to it. They are one part because every change to an
 * allocation is written to the audit trail in the same transaction, so neither can be had without the other.
 */
public final class Allocations {
    private static final String NOT_ENDED = "('pending', 'running', 'requeued')";

    private final Transactions transactions;

    Allocations(Transactions transactions) {
        this.transactions = transactions;
    }

    /** Every allocation, sorted by path (so a parent comes before its children). */
    public List<Allocation> allocations() {
        return transactions.read("list allocations", h ->
                h.createQuery("SELECT path, share, managers, members FROM allocations ORDER BY path")
                        .map((rs, ctx) -> Rows.allocation(rs))
                        .list());
    }

    /**
     * Creates or replaces an allocation, and records the change in the audit trail (action {@code allocation.put},
     * the allocation before, null when new, and after), together.
     *
     * @throws NotFoundException when its parent does not exist
     * @throws ConflictException when it is new and its parent is a leaf with workloads that have not ended, or when
     *                           it would leave it and its siblings with no positive share ({@link Shares})
     */
    /** The refusal of a new allocation whose parent does not exist (the store's and the API's, which checks first). */
    public static NotFoundException missingParent(String path, String parent) {
        return new NotFoundException("allocation '" + path + "' needs its parent '" + parent
                + "', which does not exist; create the parent first");
    }

    public void putAllocation(Allocation allocation, String actor, long nowMillis) {
        Objects.requireNonNull(allocation, "allocation");
        Objects.requireNonNull(actor, "actor");
        String after = allocationJson(allocation);
        transactions.tx("put allocation " + allocation.path(), h -> {
            Optional<Allocation> before = findAllocation(h, allocation.path());
            String parent = allocation.parentPath();
            if (before.isEmpty() && parent != null && findAllocation(h, parent).isEmpty()) {
                throw missingParent(allocation.path(), parent);
            }
            if (before.isEmpty() && parent != null) {
                // Workloads name leaves: a leaf with work that has not ended cannot become an inner node.
                List<String> active = h.createQuery("SELECT id FROM workloads WHERE allocation_path = :path"
                                + " AND state IN " + NOT_ENDED + " ORDER BY seq")
                        .bind("path", parent).mapTo(String.class).list();
                if (!active.isEmpty()) {
                    throw new ConflictException("allocation '" + parent + "' has " + active.size() + " workload"
                            + (active.size() == 1 ? "" : "s") + " not ended (" + sample(active) + "), and workloads"
                            + " run in leaves: it cannot get the child '" + allocation.name()
                            + "' until they end or are cancelled");
                }
            }
            requireSiblingsShare(h, parent, allocation.path(), allocation.share());
            h.createUpdate("INSERT INTO allocations (path, parent_path, name, share, managers, members)"
                            + " VALUES (:path, :parent, :name, :share, :managers, :members)"
                            + " ON CONFLICT (path) DO UPDATE SET share = excluded.share, managers = excluded.managers,"
                            + " members = excluded.members")
                    .bind("path", allocation.path())
                    .bind("parent", parent)
                    .bind("name", allocation.name())
                    .bind("share", allocation.share())
                    .bind("managers", Rows.toJson(allocation.managers()))
                    .bind("members", Rows.toJson(allocation.members()))
                    .execute();
            audit(h, nowMillis, actor, "allocation.put", allocation.path(),
                    before.map(Allocations::allocationJson).orElse(null), after);
            return null;
        });
    }

    /**
     * Removes an allocation, and records it in the audit trail (action {@code allocation.remove}), together.
     * Refused while it has children (remove them first) or workloads that have not ended (cancel them or let them
     * end); workloads that ended keep its path in their history.
     *
     * @throws NotFoundException when there is no such allocation
     * @throws ConflictException when it has children or workloads not ended, or when its siblings would be left
     *                           with no positive share ({@link Shares})
     */
    public void removeAllocation(String path, String actor, long nowMillis) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(actor, "actor");
        transactions.tx("remove allocation " + path, h -> {
            Allocation before = findAllocation(h, path)
                    .orElseThrow(() -> new NotFoundException("no allocation '" + path + "'"));
            List<String> children = h.createQuery("SELECT path FROM allocations WHERE parent_path = :path ORDER BY path")
                    .bind("path", path).mapTo(String.class).list();
            if (!children.isEmpty()) {
                throw new ConflictException("allocation '" + path + "' has " + children.size() + " child"
                        + (children.size() == 1 ? "" : "ren") + " (" + sample(children) + "); remove them first");
            }
            List<String> active = h.createQuery("SELECT id FROM workloads WHERE allocation_path = :path"
                            + " AND state IN " + NOT_ENDED + " ORDER BY seq")
                    .bind("path", path).mapTo(String.class).list();
            if (!active.isEmpty()) {
                throw new ConflictException("allocation '" + path + "' has " + active.size() + " workload"
                        + (active.size() == 1 ? "" : "s") + " not ended (" + sample(active)
                        + "); cancel them or let them end first");
            }
            requireSiblingsShare(h, before.parentPath(), path, null);
            h.createUpdate("DELETE FROM allocations WHERE path = :path").bind("path", path).execute();
            audit(h, nowMillis, actor, "allocation.remove", path, allocationJson(before), null);
            return null;
        });
    }

    /** The newest {@code limit} entries of the audit trail, newest first. */
    public List<AuditEntry> audit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return transactions.read("read the audit trail", h ->
                h.createQuery("SELECT id, at_ms, actor, action, subject, before_json, after_json FROM audit"
                                + " ORDER BY id DESC LIMIT :limit")
                        .bind("limit", limit)
                        .map((rs, ctx) -> new AuditEntry(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4),
                                rs.getString(5), rs.getString(6), rs.getString(7)))
                        .list());
    }

    static void audit(Handle h, long atMillis, String actor, String action, String subject, String before,
                      String after) {
        h.createUpdate("INSERT INTO audit (at_ms, actor, action, subject, before_json, after_json)"
                        + " VALUES (:at, :actor, :action, :subject, :before, :after)")
                .bind("at", atMillis).bind("actor", actor).bind("action", action).bind("subject", subject)
                .bind("before", before).bind("after", after)
                .execute();
    }

    /**
     * Refuses a change that would leave the children of {@code parent} (the top level when null) with shares
     * summing to zero ({@link Shares#checkSiblings}): the tree the scheduler builds would have none of them entitled
     * to anything. {@code path} is the allocation being put with {@code share}, or removed when {@code share} is null.
     */
    private static void requireSiblingsShare(Handle h, String parent, String path, Double share) {
        List<Double> others = h.createQuery("SELECT share FROM allocations WHERE "
                        + (parent == null ? "parent_path IS NULL" : "parent_path = :parent") + " AND path <> :path")
                .bind("parent", parent).bind("path", path).mapTo(Double.class).list();
        if (share == null && others.isEmpty()) {
            return; // the last child goes: no siblings are left to share anything
        }
        double sum = (share == null ? 0 : share) + others.stream().mapToDouble(Double::doubleValue).sum();
        Optional<Violation> bad = Shares.checkSiblings(parent, sum);
        if (bad.isPresent()) {
            throw new ConflictException("allocation '" + path + "': " + bad.get() + (sum > 0
                    ? "; give it a smaller share (only the ratios of siblings' shares count)" : share == null
                    ? "; give one of its siblings a positive share first" : "; give it or a sibling a positive share"));
        }
    }

    private static Optional<Allocation> findAllocation(Handle h, String path) {
        return h.createQuery("SELECT path, share, managers, members FROM allocations WHERE path = :path")
                .bind("path", path)
                .map((rs, ctx) -> Rows.allocation(rs))
                .findOne();
    }

    private static String sample(List<String> names) {
        String shown = names.stream().limit(5).collect(Collectors.joining(", "));
        return names.size() > 5 ? shown + ", ..." : shown;
    }

    /** An allocation as the audit trail shows it: {@code {"path", "share", "managers", "members"}}. */
    private static String allocationJson(Allocation a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", a.path());
        m.put("share", a.share());
        m.put("managers", a.managers());
        m.put("members", a.members());
        return Rows.toJson(m);
    }
}
