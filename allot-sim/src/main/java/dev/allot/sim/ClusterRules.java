package dev.allot.sim;

import dev.allot.core.policy.Decision;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.core.state.StoppingAttempt;
import java.util.ArrayList;

/**
 * How the simulated cluster answers, in one place for the {@link Simulator} and a {@link ForwardRun}: what a future
 * event does to the state (stale ends and protection ends of attempts since preempted do nothing), and how a
 * policy's decision is carried out (a start schedules its attempt's end and protection end). Whoever listens hears
 * each change after it is made. With a {@link StopDelay}, a preempted attempt holds its GPUs until it has stopped, and
 * a start on them waits: the listeners hear it start when it launches (a start withdrawn before it launched, they
 * never hear of).
 */
final class ClusterRules {
    private ClusterRules() {
    }

    /** Applies a future event at {@code t}; returns whether it changed anything the policy should hear of. */
    static boolean apply(Object e, long t, ClusterState state, SimulationListener hears, EventQueue queue,
                         StopDelay stops) {
        if (e instanceof SimEvent.Stopped st) {
            state.stopped(st.stop(), t);
            for (Job j : new ArrayList<>(state.stopPhase().waiting())) {
                if (state.canLaunch(j)) {
                    state.launch(j, t);
                    scheduleAttempt(j, t, queue);
                    hears.onStart(t, j, j.placement(), stops.reasons.remove(j.id()));
                }
            }
            return true;
        }
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
            if (state.nodes().isHealthy(h.node()) == h.healthy()) {
                return false;
            }
            state.setHealthy(h.node(), h.healthy(), t);
            hears.onHealth(t, state.nodes().name(h.node()), h.healthy());
            return true;
        }
        return e instanceof SimEvent.Wake;
    }

    /** Carries out one decision at {@code t}; returns whether it sent a job back to the queue. */
    static boolean carryOut(Decision d, long t, ClusterState state, SimulationListener hears, EventQueue queue,
                            boolean restarts, StopDelay stops) {
        if (d instanceof Decision.Preempt p) {
            Job j = p.job();
            Placement where = j.placement();
            boolean launched = !j.awaitingLaunch();
            ClusterState.PreemptionResult r = state.preempt(j, t, restarts);
            if (!launched) {
                stops.reasons.remove(j.id()); // it never ran: nothing stops, and no listener heard it start
                hears.onWithdrawnStart(t, j);
                return r.requeued();
            }
            if (stops.seconds > 0) {
                StoppingAttempt stop = state.holdUntilStopped(j, where, t);
                queue.add(t + stops.seconds, new SimEvent.Stopped(stop));
            }
            hears.onPreempt(t, j, where, p.cause(), r);
            return r.requeued();
        } else if (d instanceof Decision.Start s) {
            Job j = s.job();
            if (!state.fitsNow(j, s.placement())) {
                state.startWhenStopped(j, s.placement(), t);
                stops.reasons.put(j.id(), s.reason());
                hears.onWaitingStart(t, j, s.placement());
                return false;
            }
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
