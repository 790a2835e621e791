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
 * @param terms       what its scheduling contract says, for a backend that shows it (Slurm's partitions or QOS)
 * @param account     the Unix account the attempt must run as (its submitter's, through the service's account map);
 *                    null when the backend runs everything as the service's own user (the simulated backend, or a
 *                    service that is not root and was told it runs on a single-user host)
 * @param startedAtMillis when Allot decided to start the attempt (epoch milliseconds, the attempt's start as stored):
 *                    the moment its GPUs are counted held, which a backend passes to the work
 *                    ({@code ALLOT_ATTEMPT_STARTED_AT}) because the process itself starts later (Slurm: about a second
 *                    after sbatch); null when the caller has no stored start (a backend used on its own)
 */
public record Launch(AttemptKey attempt, List<NodeGpus> placement, List<String> command,
                     SortedMap<String, String> environment, Duration duration, Terms terms, String account,
                     Long startedAtMillis) {
    /**
     * The variable a backend sets in the work's environment to {@link #startedAtMillis} (decimal epoch
     * milliseconds), beside {@code ALLOT_WORKLOAD_ID} and {@code ALLOT_ATTEMPT}: a program that must end a given time
     * after Allot started it (as {@code allot replay}'s does) reads it rather than its own start.
     */
    public static final String STARTED_AT_VARIABLE = "ALLOT_ATTEMPT_STARTED_AT";

    /**
     * The variables the backends set in every attempt's environment themselves, over any a submission declares: the
     * GPUs ({@code CUDA_VISIBLE_DEVICES}; Slurm's from its GRES), the workload, the attempt and
     * {@link #STARTED_AT_VARIABLE}. A submission that declares one is refused: it was accepted and then silently
     * replaced (a workload submitted with {@code CUDA_VISIBLE_DEVICES=0,1,2,3} ran on its one GPU).
     */
    public static final java.util.Set<String> ATTEMPT_VARIABLES = java.util.Set.of("CUDA_VISIBLE_DEVICES",
            "ALLOT_WORKLOAD_ID", "ALLOT_ATTEMPT", STARTED_AT_VARIABLE);

    public Launch {
        Objects.requireNonNull(attempt, "attempt");
        Objects.requireNonNull(terms, "terms");
        if (account != null && account.isBlank()) {
            throw new IllegalArgumentException(attempt + ": an account, when given, must not be blank");
        }
        placement = List.copyOf(placement);
        command = List.copyOf(command);
        environment = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(environment));
        if (placement.isEmpty()) {
            throw new IllegalArgumentException(attempt + ": a launch needs at least one node");
        }
    }

    /** A launch with no stored start. */
    public Launch(AttemptKey attempt, List<NodeGpus> placement, List<String> command,
                  SortedMap<String, String> environment, Duration duration, Terms terms, String account) {
        this(attempt, placement, command, environment, duration, terms, account, null);
    }

    /** A launch run as the backend's own user (no account switch). */
    public Launch(AttemptKey attempt, List<NodeGpus> placement, List<String> command,
                  SortedMap<String, String> environment, Duration duration, Terms terms) {
        this(attempt, placement, command, environment, duration, terms, null, null);
    }

    /** A launch of allocated, non-resumable work (what the simpler backends assume), run as the backend's user. */
    public Launch(AttemptKey attempt, List<NodeGpus> placement, List<String> command,
                  SortedMap<String, String> environment, Duration duration) {
        this(attempt, placement, command, environment, duration, Terms.ALLOCATED, null);
    }

    /**
     * The scheduling contract of the workload an attempt runs, as far as a backend may need it: whether it is
     * unallocated (minimum runtime 0: free, always preemptible) and whether it can resume after a stop. Allot alone
     * decides preemption; a backend only mirrors these so that its own tools show the same picture.
     *
     * @param unallocated the workload declared no minimum runtime: it is never charged and always preemptible
     * @param resumable   the workload resumes from where it stopped when it is started again
     */
    public record Terms(boolean unallocated, boolean resumable) {
        /** Allocated and not resumable. */
        public static final Terms ALLOCATED = new Terms(false, false);

        /** The terms of a workload with this minimum runtime (0 means unallocated) and resumability. */
        public static Terms of(long minRuntimeSeconds, boolean resumable) {
            return new Terms(minRuntimeSeconds == 0, resumable);
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
