package dev.allot.sim;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.time.Duration;

/**
 * Something besides the scenario's workloads that acts in a simulation the way a user's tool acts on a live
 * scheduler: a campaign ({@code dev.allot.sim.campaign}) that queues its shards, changes their contracts and
 * restarts them. The simulator lets it act at an instant after that instant's events and submissions and before the
 * policy decides, and again after the policy's decisions when it {@link #wantsToAct() wants to} (the policy stopped
 * or started one of its jobs), so that it reacts at the instant things happen, as the service's loop would let it.
 * It hears the whole story of the run as a {@link SimulationListener} (after the metrics).
 *
 * <p>It changes the cluster only through {@link Actions}, which keep the metrics, the listeners and the simulator's
 * future (ends and protection ends) in step with the state. A simulation without an agent runs exactly as before.
 */
public interface SimulationAgent extends SimulationListener {
    /** The next time the agent wants to act even if nothing else happens then; {@code Long.MAX_VALUE} for none. */
    long nextActionSeconds();

    /**
     * Whether the agent's next action keeps the run going when nothing else is left to happen (a campaign may still
     * submit work); false for an agent that only reads, so that it never lengthens the run it watches.
     */
    default boolean extendsRun() {
        return true;
    }

    /**
     * Whether something the agent watches changed since it last acted (it heard of it as a listener): the simulator
     * then lets it act again at the same instant, after the policy's decisions.
     */
    boolean wantsToAct();

    /** Acts at {@code time}; returns whether it changed anything (then the policy is asked at this instant). */
    boolean act(long time, Actions actions);

    /** What an agent may do to the simulated cluster; each takes effect at the current instant. */
    interface Actions {
        /** The live state, to read (never change it directly). */
        ClusterState state();

        /** Registers and submits a new workload now (its submission time must be now). */
        Job submit(WorkloadSpec spec);

        /**
         * Makes unallocated work allocated in place ({@link ClusterState#promote}): a waiting job waits as allocated,
         * a running one is charged and protected from now, in the same attempt.
         */
        void promote(Job job, Duration minRuntime);

        /**
         * Sets where a job stands among the jobs of its allocation with its priority and submission second
         * ({@link ClusterState#rerank}, lower first).
         */
        void rerank(Job job, long rank);

        /** Makes waiting allocated work unallocated ({@link ClusterState#demote}). */
        void demote(Job job);

        /**
         * Stops a running job that is not protected and sends it back to the queue ({@link ClusterState#preempt}):
         * a resumable job keeps its progress up to its last checkpoint. {@code cause} tells the metrics and the story
         * why.
         *
         * @throws IllegalStateException when the job is protected now or not resumable (it would be lost)
         */
        ClusterState.PreemptionResult restart(Job job, PreemptionCause cause);
    }
}
