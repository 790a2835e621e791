package dev.allot.core.backend;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;

/**
 * Everything a backend needs to start one attempt: where (the GPUs the policy chose, node by node), what (the
 * command and its environment) and, for a backend that only simulates, how long the work takes.
 *
 * @param placement   the GPUs per node, in the policy's placement order
 * @param command     the program and its arguments (not run through a shell)
 * @param environment extra environment variables (the backend adds the GPU assignment, e.g. CUDA_VISIBLE_DEVICES)
 * @param duration    how long the work runs when simulated; null when unknown
 */
public record Launch(AttemptKey attempt, List<NodeGpus> placement, List<String> command,
                     SortedMap<String, String> environment, Duration duration) {
    public Launch {
        Objects.requireNonNull(attempt, "attempt");
        placement = List.copyOf(placement);
        command = List.copyOf(command);
        environment = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(environment));
        if (placement.isEmpty()) {
            throw new IllegalArgumentException(attempt + ": a launch needs at least one node");
        }
    }

    /** The GPUs of one node an attempt runs on: their indexes on that node, ascending. */
    public record NodeGpus(String node, List<Integer> gpus) {
        public NodeGpus {
            Objects.requireNonNull(node, "node");
            gpus = List.copyOf(gpus);
            if (gpus.isEmpty()) {
                throw new IllegalArgumentException("node " + node + ": a placement needs at least one GPU");
            }
        }
    }

    /** GPUs in all. */
    public int gpus() {
        return placement.stream().mapToInt(p -> p.gpus().size()).sum();
    }
}
