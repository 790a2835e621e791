package dev.allot.core.model;

import java.util.Objects;

/** A node turning unhealthy (takes no new work, drains) or healthy (back in service) at a given time. */
public record HealthEvent(String node, long atSeconds, Health state) {
    public HealthEvent {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(state, "state");
        if (atSeconds < 0) {
            throw new IllegalArgumentException("health event for " + node + ": time must not be negative");
        }
    }

    /** Health of a node as reported by its health check. */
    public enum Health {
        HEALTHY, UNHEALTHY
    }
}
