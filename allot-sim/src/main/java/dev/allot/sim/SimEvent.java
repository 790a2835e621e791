package dev.allot.sim;

import dev.allot.core.state.Job;

/** What can happen in the simulated future (submissions are read in order from the scenario, not queued). */
sealed interface SimEvent {
    /** The running attempt {@code attempt} of a job finishes its work (stale if the attempt was preempted). */
    record End(Job job, int attempt) implements SimEvent {
    }

    /** The protection of attempt {@code attempt} ends: someone waiting may now preempt it. */
    record ProtectionEnd(Job job, int attempt) implements SimEvent {
    }

    /** A node turns healthy or unhealthy. */
    record Health(int node, boolean healthy) implements SimEvent {
    }

    /** A preempted attempt has stopped ({@link StopDelay}): its GPUs are idle; starts waiting for them launch. */
    record Stopped(dev.allot.core.state.StoppingAttempt stop) implements SimEvent {
    }

    /** The policy asked to be consulted again at this time. */
    record Wake() implements SimEvent {
    }
}
