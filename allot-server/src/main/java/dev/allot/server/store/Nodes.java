package dev.allot.server.store;

import java.util.List;
import java.util.Objects;

/**
 * The nodes part of the {@link Store} ({@link Store#nodes()}): the machines the scheduler places work on, with
 * their GPU count and last known health, kept so that a restarted scheduler knows which nodes it had and which it
 * had taken out of service. Nothing else in the store refers to them (a placement names its nodes by name only).
 */
public final class Nodes {
    private final Transactions transactions;

    Nodes(Transactions transactions) {
        this.transactions = transactions;
    }

    /** Creates or replaces a node (GPUs, health, reason, time). */
    public void putNode(Node node) {
        Objects.requireNonNull(node, "node");
        transactions.tx("put node " + node.name(), h -> h.createUpdate("INSERT INTO nodes"
                        + " (name, gpus, healthy, reason, updated_at_ms) VALUES (:name, :gpus, :healthy, :reason, :at)"
                        + " ON CONFLICT (name) DO UPDATE SET"
                        + " gpus = excluded.gpus, healthy = excluded.healthy, reason = excluded.reason,"
                        + " updated_at_ms = excluded.updated_at_ms")
                .bind("name", node.name()).bind("gpus", node.gpus()).bind("healthy", node.healthy())
                .bind("reason", node.reason()).bind("at", node.updatedAtMillis())
                .execute());
    }

    /**
     * Records a node's health.
     *
     * @throws NotFoundException when there is no such node
     */
    public void setHealth(String name, boolean healthy, String reason, long nowMillis) {
        Objects.requireNonNull(name, "name");
        transactions.tx("set the health of node " + name, h -> {
            int n = h.createUpdate("UPDATE nodes SET healthy = :healthy, reason = :reason, updated_at_ms = :at"
                            + " WHERE name = :name")
                    .bind("healthy", healthy).bind("reason", reason).bind("at", nowMillis).bind("name", name)
                    .execute();
            if (n == 0) {
                throw new NotFoundException("no node '" + name + "'");
            }
            return null;
        });
    }

    /** Every node, sorted by name. */
    public List<Node> nodes() {
        return transactions.tx("list nodes", h -> h.createQuery("SELECT name, gpus, healthy, reason, updated_at_ms"
                        + " FROM nodes ORDER BY name")
                .map((rs, ctx) -> new Node(rs.getString(1), rs.getInt(2), rs.getBoolean(3), rs.getString(4),
                        rs.getLong(5)))
                .list());
    }
}
