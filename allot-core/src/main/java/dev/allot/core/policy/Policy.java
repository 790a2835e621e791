package dev.allot.core.policy;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;

/**
 * A scheduling policy: given the live state at a moment, decide what to start and what to stop.
 *
 * <p>A policy never changes the state: it works on its own per-cycle copies and returns a {@link Plan}; the
 * caller carries it out. The caller has advanced the state to {@code nowSeconds} before asking.
 */
public interface Policy {
    /** The registered name, e.g. {@code allocation}. */
    String name();

    Plan schedule(ClusterState state, long nowSeconds);

    /**
     * Whether this policy promised not to preempt the running job at this moment (its minimum runtime under
     * {@code allocation}, non-preemptible work under {@code legacy}). Host loss is the only excuse for breaking it;
     * the simulator's invariant checks hold every policy to its own promise.
     */
    boolean isProtected(Job job, long nowSeconds);

    /**
     * What happens to preempted work that cannot resume (not resumable): false, it ends, lost for good (Allot's
     * contract: the workload declared it cannot be requeued); true, it goes back to the queue to start over from the
     * beginning, as Kubernetes Jobs evicted by Kueue and Slurm jobs preempted with {@code PreemptMode=REQUEUE} do.
     * Resumable work is requeued with its checkpointed progress either way.
     */
    default boolean restartsWorkThatCannotResume() {
        return false;
    }
}
