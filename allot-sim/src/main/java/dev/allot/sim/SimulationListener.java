package dev.allot.sim;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;

/**
 * Hears the story of a simulation as it happens: submissions, starts, preemptions, completions, protection
 * expiries, health changes and drains, and the contract changes an agent makes ({@link SimulationAgent}). Scenario tests record it; reports can keep the runs. All methods are
 * optional.
 */
public interface SimulationListener {
    /** Called once before the first event, with the state the run will change (read it, never change it). */
    default void onBegin(ClusterState state) {
    }

    default void onSubmit(long time, Job job) {
    }

    default void onStart(long time, Job job, Placement placement, String reason) {
    }

    /** Called after the state applied the preemption; {@code placement} is where the job ran. */
    default void onPreempt(long time, Job job, Placement placement, PreemptionCause cause, ClusterState.PreemptionResult result) {
    }

    default void onComplete(long time, Job job, Placement placement) {
    }

    default void onProtectionEnd(long time, Job job) {
    }

    /**
     * Called after the state made unallocated work allocated in place ({@link ClusterState#promote}): a waiting job
     * now waits as allocated; a running one is charged and protected from {@code time}, in the same attempt.
     */
    default void onPromote(long time, Job job) {
    }

    /** Called after the state made waiting allocated work unallocated ({@link ClusterState#demote}). */
    default void onDemote(long time, Job job) {
    }

    default void onHealth(long time, String node, boolean healthy) {
    }

    default void onDrained(long time, String node) {
    }

    /**
     * With a stop delay ({@link Simulator.Options#stopDelaySeconds}): the policy started {@code job} on GPUs that a
     * stopping attempt still holds. It holds its placement and waits; {@link #onStart} follows when it launches, or
     * {@link #onWithdrawnStart} if it is preempted first.
     */
    default void onWaitingStart(long time, Job job, Placement placement) {
    }

    /** A start that waited ({@link #onWaitingStart}) was preempted before it launched: it never ran. */
    default void onWithdrawnStart(long time, Job job) {
    }

    SimulationListener NONE = new SimulationListener() {
    };

    /** A listener that tells {@code first}, then {@code second}, everything. */
    static SimulationListener both(SimulationListener first, SimulationListener second) {
        if (first == NONE) {
            return second;
        }
        if (second == NONE) {
            return first;
        }
        return new SimulationListener() {
            @Override
            public void onBegin(ClusterState state) {
                first.onBegin(state);
                second.onBegin(state);
            }

            @Override
            public void onSubmit(long time, Job job) {
                first.onSubmit(time, job);
                second.onSubmit(time, job);
            }

            @Override
            public void onStart(long time, Job job, Placement placement, String reason) {
                first.onStart(time, job, placement, reason);
                second.onStart(time, job, placement, reason);
            }

            @Override
            public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause, ClusterState.PreemptionResult result) {
                first.onPreempt(time, job, placement, cause, result);
                second.onPreempt(time, job, placement, cause, result);
            }

            @Override
            public void onComplete(long time, Job job, Placement placement) {
                first.onComplete(time, job, placement);
                second.onComplete(time, job, placement);
            }

            @Override
            public void onProtectionEnd(long time, Job job) {
                first.onProtectionEnd(time, job);
                second.onProtectionEnd(time, job);
            }

            @Override
            public void onPromote(long time, Job job) {
                first.onPromote(time, job);
                second.onPromote(time, job);
            }

            @Override
            public void onDemote(long time, Job job) {
                first.onDemote(time, job);
                second.onDemote(time, job);
            }

            @Override
            public void onHealth(long time, String node, boolean healthy) {
                first.onHealth(time, node, healthy);
                second.onHealth(time, node, healthy);
            }

            @Override
            public void onDrained(long time, String node) {
                first.onDrained(time, node);
                second.onDrained(time, node);
            }

            @Override
            public void onWaitingStart(long time, Job job, Placement placement) {
                first.onWaitingStart(time, job, placement);
                second.onWaitingStart(time, job, placement);
            }

            @Override
            public void onWithdrawnStart(long time, Job job) {
                first.onWithdrawnStart(time, job);
                second.onWithdrawnStart(time, job);
            }
        };
    }
}
