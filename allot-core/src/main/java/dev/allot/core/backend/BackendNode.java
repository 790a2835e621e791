package dev.allot.core.backend;

import java.util.Objects;

/**
 * A node as a backend that manages nodes (Slurm) sees it.
 *
 * @param name   the node's name, as the backend and the policy's placements use it
 * @param gpus   the GPUs it has
 * @param usable whether the backend can run work on it (not down, not failed, not drained by someone else)
 * @param reason why it is not usable, in the backend's words; null when it is
 */
public record BackendNode(String name, int gpus, boolean usable, String reason) {
    public BackendNode {
        Objects.requireNonNull(name, "name");
        if (gpus < 0) {
            throw new IllegalArgumentException("node " + name + ": GPUs must not be negative, got " + gpus);
        }
    }
}
