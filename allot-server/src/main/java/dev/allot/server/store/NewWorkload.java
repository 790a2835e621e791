package dev.allot.server.store;

import dev.allot.core.model.Priority;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A workload as submitted, before the store gives it an id: what it needs, the scheduling contract it asks for
 * and what to run. The same rules as the core's {@code WorkloadSpec} apply; the service checks the allocation and
 * the user against the tree before submitting.
 *
 * @param gpusPerNode     zero for any packing, otherwise whole groups of that many GPUs on each node (a gang)
 * @param durationSeconds the expected running time; null when unknown (a real job usually does not say)
 * @param minRuntimeSeconds the declared minimum runtime; zero means unallocated (free, never charged)
 * @param command         the program and its arguments, not run through a shell
 * @param environment     extra environment variables
 * @param idempotencyKey  null, or a key that makes a retried submission return the first one's workload; keys are
 *                        global, so the API should scope them (for instance by user) before passing them here
 */
public record NewWorkload(
        String allocationPath,
        String user,
        int gpus,
        int gpusPerNode,
        Long durationSeconds,
        long minRuntimeSeconds,
        boolean resumable,
        Priority priority,
        String kind,
        List<String> command,
        SortedMap<String, String> environment,
        long submittedAtMillis,
        String idempotencyKey) {

    public NewWorkload {
        Objects.requireNonNull(allocationPath, "allocationPath");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(priority, "priority");
        Objects.requireNonNull(kind, "kind");
        command = List.copyOf(command);
        environment = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(environment));
        Allocation.checkPath(allocationPath);
        if (user.isBlank()) {
            throw new IllegalArgumentException("a workload needs a user");
        }
        if (gpus < 1) {
            throw new IllegalArgumentException("gpus must be at least 1, got " + gpus);
        }
        if (gpusPerNode < 0) {
            throw new IllegalArgumentException("gpus per node must be zero (any packing) or positive, got " + gpusPerNode);
        }
        if (gpusPerNode > 0 && gpus % gpusPerNode != 0) {
            throw new IllegalArgumentException("gpus (" + gpus + ") must be a multiple of gpus per node (" + gpusPerNode
                    + ") for a whole-node gang");
        }
        if (durationSeconds != null && durationSeconds <= 0) {
            throw new IllegalArgumentException("duration must be positive or unknown, got " + durationSeconds + " s");
        }
        if (minRuntimeSeconds < 0) {
            throw new IllegalArgumentException("minimum runtime must not be negative, got " + minRuntimeSeconds + " s");
        }
        if (idempotencyKey != null && idempotencyKey.isBlank()) {
            throw new IllegalArgumentException("an idempotency key must not be blank; pass null for none");
        }
    }

    /** A builder with defaults (1 GPU, 15 min minimum runtime, normal priority, kind train), mainly for tests. */
    public static Builder builder(String allocationPath, String user) {
        return new Builder(allocationPath, user);
    }

    /** Fluent builder for {@link NewWorkload}. */
    public static final class Builder {
        private final String allocationPath;
        private final String user;
        private int gpus = 1;
        private int gpusPerNode;
        private Long durationSeconds;
        private long minRuntimeSeconds = 900;
        private boolean resumable;
        private Priority priority = Priority.NORMAL;
        private String kind = "train";
        private List<String> command = List.of();
        private Map<String, String> environment = Map.of();
        private long submittedAtMillis;
        private String idempotencyKey;

        private Builder(String allocationPath, String user) {
            this.allocationPath = allocationPath;
            this.user = user;
        }

        public Builder gpus(int n) {
            this.gpus = n;
            return this;
        }

        public Builder gpusPerNode(int n) {
            this.gpusPerNode = n;
            return this;
        }

        public Builder durationSeconds(Long s) {
            this.durationSeconds = s;
            return this;
        }

        public Builder minRuntimeSeconds(long s) {
            this.minRuntimeSeconds = s;
            return this;
        }

        public Builder resumable(boolean r) {
            this.resumable = r;
            return this;
        }

        public Builder priority(Priority p) {
            this.priority = p;
            return this;
        }

        public Builder kind(String k) {
            this.kind = k;
            return this;
        }

        public Builder command(List<String> c) {
            this.command = c;
            return this;
        }

        public Builder environment(Map<String, String> e) {
            this.environment = e;
            return this;
        }

        public Builder submittedAtMillis(long ms) {
            this.submittedAtMillis = ms;
            return this;
        }

        public Builder idempotencyKey(String k) {
            this.idempotencyKey = k;
            return this;
        }

        public NewWorkload build() {
            return new NewWorkload(allocationPath, user, gpus, gpusPerNode, durationSeconds, minRuntimeSeconds, resumable,
                    priority, kind, command, new TreeMap<>(environment), submittedAtMillis, idempotencyKey);
        }
    }
}
