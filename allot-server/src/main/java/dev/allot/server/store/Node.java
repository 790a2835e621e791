package dev.allot.server.store;

import dev.allot.core.rules.Names;
import dev.allot.core.rules.Violation;
import java.util.Objects;
import java.util.Optional;

/**
 * A machine of the cluster as the store keeps it: how many GPUs it has and whether work may be placed on it.
 *
 * @param reason why it is unhealthy (or what last changed its health); may be null
 */
public record Node(String name, int gpus, boolean healthy, String reason, long updatedAtMillis) {
    public Node {
        Objects.requireNonNull(name, "name");
        Optional<Violation> bad = Names.check("name", name);
        if (bad.isPresent()) {
            throw new IllegalArgumentException("node: " + bad.get());
        }
        if (gpus < 1) {
            throw new IllegalArgumentException("node " + name + ": gpus must be at least 1, got " + gpus);
        }
    }

    /** What the reason of a node a backend made unhealthy starts with: the backend's name ({@code slurm: DOWN...}). */
    public static String backendReasonPrefix(String backend) {
        return backend + ": ";
    }

    /**
     * Whether the backend {@code backend} made it unhealthy (it reports the node down, failed or drained by an
     * operator): only the backend's sync marks it healthy again, once the backend can use it.
     */
    public boolean unhealthyIn(String backend) {
        return !healthy && backend != null && reason != null && reason.startsWith(backendReasonPrefix(backend));
    }
}
