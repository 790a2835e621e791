package dev.allot.core.model;

import dev.allot.core.rules.Violation;
import dev.allot.core.rules.WorkloadFields;
import dev.allot.core.rules.WorkloadRules;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One workload as its owner declared it: what it needs and the scheduling contract it asks for.
 *
 * <p>{@code minRuntime} is the declared minimum runtime before any cap; zero means the workload is
 * <em>unallocated</em> (free, never charged, always preemptible). {@code gpusPerNode} zero means any
 * packing; a positive value asks for whole groups of that many GPUs on each node, all or nothing (a gang).
 * {@code checkpointEvery} null means progress is never lost when a resumable workload is preempted (a simulator's
 * model); {@link #NO_CHECKPOINT_KNOWN} means the scheduler learns of no checkpoint (the live service), so a
 * preemption loses everything the attempt ran since its start or its last progress report. The fields
 * obey {@link WorkloadRules}, the same rules every boundary checks; here they are invariants.
 *
 * @param submitSeconds seconds from the start of the scenario (or of the service's epoch)
 * @param duration      the work the workload needs, in running time
 */
public record WorkloadSpec(
        String id,
        long submitSeconds,
        String allocation,
        String user,
        int gpus,
        int gpusPerNode,
        Duration duration,
        Duration minRuntime,
        boolean resumable,
        Priority priority,
        Duration checkpointEvery,
        String kind) {

    /**
     * The {@code checkpointEvery} of resumable work whose checkpoints the scheduler does not know (the live service:
     * a workload checkpoints on its own): no checkpoint falls inside an attempt, so what an attempt keeps when
     * preempted is only what a progress report told of ({@code ClusterState.recordProgress}).
     */
    public static final Duration NO_CHECKPOINT_KNOWN = Duration.ofSeconds(Long.MAX_VALUE);

    public WorkloadSpec {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(allocation, "allocation");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(minRuntime, "minRuntime");
        Objects.requireNonNull(priority, "priority");
        Objects.requireNonNull(kind, "kind");
        List<Violation> violations = WorkloadRules.check(WorkloadFields.builder()
                .id(id)
                .submitSeconds(submitSeconds)
                .allocation(allocation)
                .user(user)
                .gpus((long) gpus)
                .gpusPerNode((long) gpusPerNode)
                .duration(duration)
                .minRuntime(minRuntime)
                .checkpointEvery(checkpointEvery)
                .kind(kind)
                .build());
        if (!violations.isEmpty()) {
            throw new IllegalArgumentException("workload " + id + ": " + Violation.join(violations));
        }
    }

    /** True when the workload declared a minimum runtime: it is charged and protected for that long. */
    public boolean allocated() {
        return !minRuntime.isZero();
    }

    /** The same workload with another minimum runtime: a promotion from unallocated to allocated. */
    public WorkloadSpec withMinRuntime(Duration value) {
        return new WorkloadSpec(id, submitSeconds, allocation, user, gpus, gpusPerNode, duration, value, resumable,
                priority, checkpointEvery, kind);
    }

    /** A fluent builder with sensible defaults, mainly for tests and generators. */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /** Fluent builder for {@link WorkloadSpec}; every field has a default except the id. */
    public static final class Builder {
        private final String id;
        private long submitSeconds;
        private String allocation = "default";
        private String user = "user";
        private int gpus = 1;
        private int gpusPerNode;
        private Duration duration = Duration.ofHours(1);
        private Duration minRuntime = Duration.ofMinutes(15);
        private boolean resumable;
        private Priority priority = Priority.NORMAL;
        private Duration checkpointEvery;
        private String kind = "train";

        private Builder(String id) {
            this.id = id;
        }

        public Builder submitAt(long seconds) {
            this.submitSeconds = seconds;
            return this;
        }

        public Builder allocation(String name) {
            this.allocation = name;
            return this;
        }

        public Builder user(String name) {
            this.user = name;
            return this;
        }

        public Builder gpus(int n) {
            this.gpus = n;
            return this;
        }

        /** Whole-node gang: {@code perNode} GPUs on each of {@code gpus / perNode} nodes. */
        public Builder gpusPerNode(int perNode) {
            this.gpusPerNode = perNode;
            return this;
        }

        public Builder duration(Duration d) {
            this.duration = d;
            return this;
        }

        public Builder minRuntime(Duration d) {
            this.minRuntime = d;
            return this;
        }

        public Builder resumable(Duration checkpointEvery) {
            this.resumable = true;
            this.checkpointEvery = checkpointEvery;
            return this;
        }

        /** Resumable, never losing progress when preempted (the simulator's {@code checkpoint-every: 0s}). */
        public Builder resumable() {
            return resumable(null);
        }

        /** Resumable, with checkpoints the scheduler never learns of ({@link #NO_CHECKPOINT_KNOWN}). */
        public Builder resumableWithoutKnownCheckpoints() {
            return resumable(NO_CHECKPOINT_KNOWN);
        }

        public Builder notResumable() {
            this.resumable = false;
            this.checkpointEvery = null;
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

        public WorkloadSpec build() {
            return new WorkloadSpec(id, submitSeconds, allocation, user, gpus, gpusPerNode, duration, minRuntime,
                    resumable, priority, checkpointEvery, kind);
        }
    }
}
