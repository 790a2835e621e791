package dev.allot.sim;

import dev.allot.core.policy.Decision;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;

/**
 * How the simulated cluster answers, in one place for the {@link Simulator} and a {@link ForwardRun}: what a future
 * event does to the state (stale ends and protection ends of attempts since preempted do nothing), and how a
 * policy's decision is carried out (a start schedules its attempt's end and protection end). Whoever listens hears
 * each change after it is made.
 */
final class ClusterRules {
    private ClusterRules() {
    }

    /** Applies a future event at {@code t}; returns whether it changed anything the policy should hear of. */
    static boolean apply(Object e, long t, ClusterState state, SimulationListener hears) {
        if (e instanceof SimEvent.End end) {
            Job j = end.job();
            if (j.state() != JobState.RUNNING || j.attempts() != end.attempt()) {
                return false;
            }
            Placement p = j.placement();
            state.complete(j, t);
            hears.onComplete(t, j, p);
            return true;
        }
        if (e instanceof SimEvent.ProtectionEnd pe) {
            Job j = pe.job();
            if (j.state() != JobState.RUNNING || j.attempts() != pe.attempt()) {
                return false;
            }
            hears.onProtectionEnd(t, j);
            return true;
        }
        if (e instanceof SimEvent.Health h) {
            if (state.isHealthy(h.node()) == h.healthy()) {
                return false;
            }
            state.setHealthy(h.node(), h.healthy(), t);
            hears.onHealth(t, state.nodeName(h.node()), h.healthy());
            return true;
        }
        return e instanceof SimEvent.Wake;
    }

    /** Carries out one decision at {@code t}; returns whether it sent a job back to the queue. */
    static boolean carryOut(Decision d, long t, ClusterState state, SimulationListener hears, EventQueue queue,
                            boolean restarts) {
        if (d instanceof Decision.Preempt p) {
            Job j = p.job();
            Placement where = j.placement();
            ClusterState.PreemptionResult r = state.preempt(j, t, restarts);
            hears.onPreempt(t, j, where, p.cause(), r);
            return r.requeued();
        } else if (d instanceof Decision.Start s) {
            Job j = s.job();
            state.start(j, s.placement(), t);
            scheduleAttempt(j, t, queue);
            hears.onStart(t, j, s.placement(), s.reason());
        }
        return false;
    }

    /** Schedules the end of a running attempt that began or changed at {@code t}, and its protection's end. */
    static void scheduleAttempt(Job j, long t, EventQueue queue) {
        long end = t + j.remainingSeconds();
        queue.add(end, new SimEvent.End(j, j.attempts()));
        if (j.allocated() && j.protectedUntilSeconds() < end) {
            queue.add(j.protectedUntilSeconds(), new SimEvent.ProtectionEnd(j, j.attempts()));
        }
    }
}
