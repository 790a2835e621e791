package dev.allot.server.api;

import dev.allot.core.explain.QueueSnapshot;
import dev.allot.core.explain.WaitExplanation;
import java.util.List;
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

    /**
     * The whole queue in serving order with the fair-share levels of each allocation ({@code GET /v1/queue}); empty
     * when the scheduler has not loaded yet. Empty by default.
     */
    default Optional<QueueSnapshot> queue() {
        return Optional.empty();
    }

    /**
     * The latest forecast of the waiting work's starts ({@code GET /v1/forecasts}, the explanations and the queue);
     * empty before the first and when forecasting is off. Empty by default.
     */
    default Optional<dev.allot.server.forecast.LiveForecast> forecast() {
        return Optional.empty();
    }

    /** Whether forecasts are being made (false: forecasting is off, or there is no scheduler). */
    default boolean forecasting() {
        return false;
    }

    /**
     * The scheduler's view of every node that is not healthy ({@code GET /v1/drains}): draining (still running work)
     * or drained. Empty when the scheduler has not loaded yet, and by default.
     */
    default Optional<List<NodeDrain>> drains() {
        return Optional.empty();
    }

    /**
     * What a what-if ({@code POST /v1/whatif}) plays forward: an exact, independent copy of the scheduler's live state
     * and the models of durations and new work it assumes. Empty when the scheduler has not loaded yet, and by
     * default.
     */
    default Optional<WhatIfInputs> whatIfInputs() {
        return Optional.empty();
    }

    /**
     * Which scheduler state the answers come from: the leader's (also the only instance's), or a standby's view of it
     * (several instances on one PostgreSQL), and when it was last brought up to date with the store (epoch millis).
     * Empty when the scheduler has not loaded yet, and by default.
     */
    default Optional<LiveView> view() {
        return Optional.empty();
    }

    /**
     * Why the scheduler has not loaded, when it waits for the store to have a node or an allocation: a sentence that
     * says what is missing and how it comes. Empty once it has loaded (and then also for work not yet taken in), and by
     * default.
     */
    default Optional<String> awaiting() {
        return Optional.empty();
    }

    /**
     * The waiting workloads the scheduler has decided to start whose start waits for GPUs that work it stopped still
     * holds (deferred starts): the store has them waiting, the scheduler has placed them, so they have no place in the
     * queue. Empty when there is none, and by default (a standby's view has none: it has them waiting).
     */
    default java.util.Set<String> aboutToStart() {
        return java.util.Set.of();
    }

    /**
     * Why the scheduler refused to take a waiting workload in, when it did (its shape no longer fits the cluster, its
     * allocation is no longer a leaf): the reason it logged, and the cluster it holds now, so that an explanation can
     * say what the workload asks for against what the cluster has. Empty when it is not refused, and by default.
     */
    default Optional<Refusal> refusal(String workloadId) {
        return Optional.empty();
    }

    /**
     * Why the scheduler cannot take a waiting workload in, in {@link Refusal#words}, or null when it can (or the
     * workload is held, running or ended): the queue's {@code cannotRun} and the workload's, one rule.
     */
    default String cannotRun(dev.allot.server.store.Workload w) {
        return w.held() || !w.state().waiting() ? null
                : refusal(w.id()).map(r -> r.words(w.gpus(), w.gpusPerNode())).orElse(null);
    }

    /** See {@link #refusal}: {@code cluster} is the scheduler's cluster now. */
    record Refusal(String reason, dev.allot.core.model.ClusterSpec cluster) {
        /**
         * The refusal in words, for a workload of {@code gpus} ({@code gpusPerNode} per node): what it asks for
         * against what the cluster has and what would let it run when its shape is the cause, else the logged reason.
         * The explanation and the queue's {@code cannotRun} both say this.
         */
        String words(int gpus, int gpusPerNode) {
            return dev.allot.core.rules.ShapeFit.whyNotNow(cluster, gpus, gpusPerNode)
                    .orElse("The scheduler refused it: " + reason + ".");
        }
    }

    /** See {@link #view}. */
    record LiveView(boolean standby, long asOfMillis) {
    }

    /**
     * A node that is not healthy, as the scheduler holds it.
     *
     * @param status             {@code draining} (work still runs on it) or {@code drained} (empty)
     * @param workloads          the ids of the workloads still running on it
     * @param completesAtSeconds when the last of them passes its minimum runtime and may be preempted, so the drain
     *                           can complete (seconds since the epoch); null when drained or when nothing on it is
     *                           protected (it completes at the scheduler's next cycle)
     */
    record NodeDrain(String node, String status, List<String> workloads, Long completesAtSeconds) {
        public NodeDrain {
            workloads = List.copyOf(workloads);
        }
    }
}
