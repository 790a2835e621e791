package dev.allot.sim;

import java.util.HashMap;
import java.util.Map;

/**
 * How long a preempted attempt takes to stop in the simulated cluster ({@code seconds}; 0, the default, stops it at
 * once, as the simulator always did), and the reasons of the starts that wait for a stop to launch, kept until they
 * do ({@link ClusterRules}). With a delay, a preemption holds the victim's GPUs in the state until its
 * {@link SimEvent.Stopped} event; a start the policy places on them waits and launches then, its minimum runtime,
 * charging and progress counting from that launch ({@code ClusterState}'s stopping phase, which the service follows
 * with the real stop of a process).
 */
final class StopDelay {
    final long seconds;
    /** Starts waiting to launch: the reason the policy gave, told to the listeners when they launch. */
    final Map<String, String> reasons = new HashMap<>();

    StopDelay(long seconds) {
        if (seconds < 0) {
            throw new IllegalArgumentException("a stop delay is 0 s or more, not " + seconds);
        }
        this.seconds = seconds;
    }

    static StopDelay none() {
        return new StopDelay(0);
    }
}
