package dev.allot.sim;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;

/**
 * Hears the story of a simulation as it happens: submissions, starts, preemptions, completions, protection
 * expiries, health changes and drains. Scenario tests record it; reports can keep the runs. All methods are
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

    default void onHealth(long time, String node, boolean healthy) {
    }

    default void onDrained(long time, String node) {
    }

    SimulationListener NONE = new SimulationListener() {
    };
}
