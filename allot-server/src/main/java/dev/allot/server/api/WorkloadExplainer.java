package dev.allot.server.api;

import dev.allot.core.explain.WaitExplanation;
import java.util.Optional;

/**
 * Where the API gets the scheduler's explanation of a workload ({@code GET /v1/workloads/{id}/explain}). The service
 * answers from the scheduling loop's live state ({@code SchedulerLoop.inspect}); times in the explanation are seconds
 * since the epoch.
 */
@FunctionalInterface
public interface WorkloadExplainer {
    /** No scheduler: every workload is "not yet seen by the scheduler". */
    WorkloadExplainer NONE = id -> Optional.empty();

    /** The explanation, or empty when the scheduler has not loaded yet or does not hold the workload. */
    Optional<WaitExplanation> explain(String workloadId);

    /**
     * Tells the scheduler that a workload reported progress ({@code POST /v1/workloads/{id}/progress}), so that the
     * work it ran up to then is not counted as lost if it is preempted later (an explanation's "GPU-hours lost").
     * Nothing by default.
     */
    default void progressReported(String workloadId) {
    }
}
