package dev.allot.server.store;

import dev.allot.core.model.Priority;
import dev.allot.core.rules.Violation;
import dev.allot.core.rules.WorkloadFields;
import dev.allot.core.rules.WorkloadRules;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A workload as submitted, before the store gives it an id: what it needs, the scheduling contract it asks for
 * and what to run. Its fields keep {@link WorkloadRules}, the rules the API checks and reports field by field
 * (here they are invariants); the service checks the allocation and the user against the tree before submitting.
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
        List<Violation> violations = WorkloadRules.check(WorkloadFields.builder()
                .allocation(allocationPath)
                .user(user)
                .gpus((long) gpus)
                .gpusPerNode((long) gpusPerNode)
                .duration(durationSeconds == null ? null : Duration.ofSeconds(durationSeconds))
                .minRuntime(Duration.ofSeconds(minRuntimeSeconds))
                .kind(kind)
                // no command: a workload for the simulated backend, which runs nothing
                .command(command.isEmpty() ? null : command)
                .environment(environment)
                .build());
        if (!violations.isEmpty()) {
            throw new IllegalArgumentException("workload for " + allocationPath + ": " + Violation.join(violations));
        }
        // The stored key is the client's scoped by its user (longer than the client's, which the rules check).
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
