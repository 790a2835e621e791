package dev.allot.server.sched;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.server.store.AttemptOutcome;

/**
 * Hears what a {@link SchedulerLoop} does, for metrics and logs ({@link SchedulerLoop#observe}): how long its cycles
 * and its decisions take, and each start, preemption and end it carries out. Called on the loop's thread, inside the
 * cycle: implementations must be quick and must not call back into the loop. Every method does nothing by default.
 * An interface of its own because it is the loop's one way out to metrics, logs and forecasts, apart from running
 * the cycle.
 */
public interface LoopObserver {
    /** A cycle asked the policy: how long the policy took, in all rounds of the cycle, and how many waited. */
    default void cycle(long decisionNanos, int pending, int running) {
    }

    /**
     * A whole cycle ended, whether or not it asked the policy: how long all of it took (reading the store,
     * observing the backend, deciding, carrying out). Told for every cycle that succeeded with the store loaded;
     * not for one that failed, nor while the loop stands by or waits for nodes and allocations.
     */
    default void cycleEnded(long cycleNanos) {
    }

    /** An attempt was launched on the backend, {@code waitSeconds} after its workload was submitted or requeued. */
    default void started(String workloadId, String allocation, long waitSeconds) {
    }

    /** A running workload was preempted by the policy. */
    default void preempted(String workloadId, String allocation, PreemptionCause cause, long lostGpuSeconds) {
    }

    /** An attempt ended, as recorded in the store. */
    default void ended(String workloadId, String allocation, AttemptOutcome outcome) {
    }
}
