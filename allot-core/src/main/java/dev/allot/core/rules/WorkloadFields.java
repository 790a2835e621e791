package dev.allot.core.rules;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A workload's fields as a boundary read them, before {@link WorkloadRules} checks their ranges. Each is null when
 * it was not given, or when the boundary already refused its type (text where a number belongs): the rules then skip
 * it, so that one check can report every other problem at once. Which fields are required is the boundary's to say
 * (the simulator requires a duration, the API does not); a null here is never a violation.
 *
 * @param gpus        a long so that a value beyond an int is a range violation, not an overflow
 * @param gpusPerNode zero for any packing
 * @param duration    the running time the workload needs; positive when given
 * @param command     the program and its arguments; null when the workload has none to run (simulated)
 */
public record WorkloadFields(
        String id,
        Long submitSeconds,
        String allocation,
        String user,
        Long gpus,
        Long gpusPerNode,
        Duration duration,
        Duration minRuntime,
        Duration checkpointEvery,
        String kind,
        List<String> command,
        Map<String, String> environment,
        String idempotencyKey) {

    /** A builder with every field null. */
    public static Builder builder() {
        return new Builder();
    }

    /** Fluent builder for {@link WorkloadFields}; a field never set stays null (not given). */
    public static final class Builder {
        private String id;
        private Long submitSeconds;
        private String allocation;
        private String user;
        private Long gpus;
        private Long gpusPerNode;
        private Duration duration;
        private Duration minRuntime;
        private Duration checkpointEvery;
        private String kind;
        private List<String> command;
        private Map<String, String> environment;
        private String idempotencyKey;

        private Builder() {
        }

        public Builder id(String v) {
            this.id = v;
            return this;
        }

        public Builder submitSeconds(Long v) {
            this.submitSeconds = v;
            return this;
        }

        public Builder allocation(String v) {
            this.allocation = v;
            return this;
        }

        public Builder user(String v) {
            this.user = v;
            return this;
        }

        public Builder gpus(Long v) {
            this.gpus = v;
            return this;
        }

        public Builder gpusPerNode(Long v) {
            this.gpusPerNode = v;
            return this;
        }

        public Builder duration(Duration v) {
            this.duration = v;
            return this;
        }

        public Builder minRuntime(Duration v) {
            this.minRuntime = v;
            return this;
        }

        public Builder checkpointEvery(Duration v) {
            this.checkpointEvery = v;
            return this;
        }

        public Builder kind(String v) {
            this.kind = v;
            return this;
        }

        public Builder command(List<String> v) {
            this.command = v;
            return this;
        }

        public Builder environment(Map<String, String> v) {
            this.environment = v;
            return this;
        }

        public Builder idempotencyKey(String v) {
            this.idempotencyKey = v;
            return this;
        }

        public WorkloadFields build() {
            return new WorkloadFields(id, submitSeconds, allocation, user, gpus, gpusPerNode, duration, minRuntime,
                    checkpointEvery, kind, command, environment, idempotencyKey);
        }
    }
}
