package dev.allot.server.store;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The nodes part of the {@link Store} ({@link Store#nodes()}): the machines the scheduler places work on, with
 * their GPU count and last known health, kept so that a restarted scheduler knows which nodes it had and which it
 * had taken out of service. Nothing else in the store refers to them (a placement names its nodes by name only).
 *
 * <p>Changes made by someone (an administrator through the API) or by the service itself (registering the local node
 * at start, the backend's node sync, the health checker, each with a {@code system:...} actor) are audited with their
 * actor: {@code node.put} for a registration or a change of GPU count, {@code node.health} for a change of health,
 * subject {@code node:<name>}. A call that changes nothing records nothing.
 */
public final class Nodes {
    private final Transactions transactions;

    Nodes(Transactions transactions) {
        this.transactions = transactions;
    }

    /** Creates or replaces a node (GPUs, health, reason, time), unaudited (seeding, tests). */
    public void putNode(Node node) {
        Objects.requireNonNull(node, "node");
        transactions.tx("put node " + node.name(), h -> upsert(h, node));
    }

    private static int upsert(Handle h, Node node) {
        return h.createUpdate("INSERT INTO nodes"
                        + " (name, gpus, healthy, reason, updated_at_ms) VALUES (:name, :gpus, :healthy, :reason, :at)"
                        + " ON CONFLICT (name) DO UPDATE SET"
                        + " gpus = excluded.gpus, healthy = excluded.healthy, reason = excluded.reason,"
                        + " updated_at_ms = excluded.updated_at_ms")
                .bind("name", node.name()).bind("gpus", node.gpus()).bind("healthy", node.healthy())
                .bind("reason", node.reason()).bind("at", node.updatedAtMillis())
                .execute();
    }

    /**
     * Creates or replaces a node and audits it ({@code node.put}, or {@code node.health} when only its health or
     * reason changed) with its actor, together; nothing is recorded when nothing changed but the time.
     */
    public void putNode(Node node, String actor) {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(actor, "actor");
        transactions.tx("put node " + node.name(), h -> {
            Optional<Node> before = find(h, node.name());
            upsert(h, node);
            if (before.isEmpty() || !same(before.get(), node)) {
                boolean healthOnly = before.isPresent() && before.get().gpus() == node.gpus();
                Allocations.audit(h, node.updatedAtMillis(), actor, healthOnly ? "node.health" : "node.put",
                        "node:" + node.name(), before.map(Nodes::json).orElse(null), json(node));
            }
            return null;
        });
    }

    /**
     * Records a node's health and audits it ({@code node.health}) with its actor, together, when its health or reason
     * changed.
     *
     * @throws NotFoundException when there is no such node
     */
    public void setHealth(String name, boolean healthy, String reason, long nowMillis, String actor) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(actor, "actor");
        transactions.tx("set the health of node " + name, h -> {
            Node before = find(h, name).orElseThrow(() -> new NotFoundException("no node '" + name + "'"));
            Node after = new Node(name, before.gpus(), healthy, reason, nowMillis);
            updateHealth(h, name, healthy, reason, nowMillis);
            if (!same(before, after)) {
                Allocations.audit(h, nowMillis, actor, "node.health", "node:" + name, json(before), json(after));
            }
            return null;
        });
    }

    private static boolean same(Node a, Node b) {
        return a.gpus() == b.gpus() && a.healthy() == b.healthy() && Objects.equals(a.reason(), b.reason());
    }

    private static String json(Node n) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", n.name());
        m.put("gpus", n.gpus());
        m.put("healthy", n.healthy());
        m.put("reason", n.reason());
        return Rows.toJson(m);
    }

    private static Optional<Node> find(Handle h, String name) {
        return h.createQuery("SELECT name, gpus, healthy, reason, updated_at_ms FROM nodes WHERE name = :name")
                .bind("name", name)
                .map((rs, ctx) -> new Node(rs.getString(1), rs.getInt(2), rs.getBoolean(3), rs.getString(4),
                        rs.getLong(5)))
                .findOne();
    }

    /**
     * Records a node's health, unaudited (seeding, tests).
     *
     * @throws NotFoundException when there is no such node
     */
    public void setHealth(String name, boolean healthy, String reason, long nowMillis) {
        Objects.requireNonNull(name, "name");
        transactions.tx("set the health of node " + name, h -> {
            if (updateHealth(h, name, healthy, reason, nowMillis) == 0) {
                throw new NotFoundException("no node '" + name + "'");
            }
            return null;
        });
    }

    private static int updateHealth(Handle h, String name, boolean healthy, String reason, long nowMillis) {
        return h.createUpdate("UPDATE nodes SET healthy = :healthy, reason = :reason, updated_at_ms = :at"
                        + " WHERE name = :name")
                .bind("healthy", healthy).bind("reason", reason).bind("at", nowMillis).bind("name", name)
                .execute();
    }

    /**
     * A change of a node's health as the audit trail recorded it ({@code node.health}, or {@code node.put} when a
     * registration changed it): healthy or not before (null for a registration) and after. Only real changes are
     * listed, and a registration only when the node came unhealthy.
     */
    public record HealthChange(long atMillis, String node, Boolean healthyBefore, boolean healthyAfter) {
    }

    /**
     * The audited changes of nodes' health in {@code [sinceMillis, untilMillis)}, oldest first: what the live GPU
     * timeline shades. Changes made unaudited ({@link #setHealth(String, boolean, String, long)}, seeding and tests)
     * are not among them. Reads the audit trail without an index on time, so its cost grows with the trail.
     */
    public List<HealthChange> healthChanges(long sinceMillis, long untilMillis) {
        return transactions.read("list changes of node health", h -> h.createQuery("SELECT at_ms, subject, before_json,"
                        + " after_json FROM audit WHERE action IN ('node.health', 'node.put') AND at_ms >= :since"
                        + " AND at_ms < :until ORDER BY id")
                .bind("since", sinceMillis).bind("until", untilMillis)
                .map((rs, ctx) -> {
                    String before = rs.getString(3);
                    String after = rs.getString(4);
                    return new HealthChange(rs.getLong(1), rs.getString(2).substring("node:".length()),
                            before == null ? null : Rows.jsonTree(before).path("healthy").asBoolean(true),
                            after == null || Rows.jsonTree(after).path("healthy").asBoolean(true));
                })
                .list()).stream()
                .filter(c -> c.healthyBefore() == null ? !c.healthyAfter() : c.healthyBefore() != c.healthyAfter())
                .toList();
    }

    /** Every node, sorted by name. */
    public List<Node> nodes() {
        return transactions.read("list nodes", h -> h.createQuery("SELECT name, gpus, healthy, reason, updated_at_ms"
                        + " FROM nodes ORDER BY name")
                .map((rs, ctx) -> new Node(rs.getString(1), rs.getInt(2), rs.getBoolean(3), rs.getString(4),
                        rs.getLong(5)))
                .list());
    }
}
