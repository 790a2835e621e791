package dev.allot.sim;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.DecisionLoop;
import dev.allot.core.policy.Policy;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plays one possible future from a {@link ClusterState#fork fork} of a live or simulated state, by the
 * {@link Simulator}'s rules: running work ends when the work each job needs (its fork duration) is done, protections
 * end, the given arrivals and health changes happen, and at every instant the policy is asked through
 * {@link DecisionLoop}, exactly as the simulator and the service ask it. It starts by asking the policy at the fork's
 * time (a fork remembers no wake-up the policy asked for before). It records when each job starts.
 *
 * <p>It stops at the horizon, or as soon as every watched job has started (a forecast needs nothing after that).
 * Leaner than {@link Simulator}: no metrics or checks; a listener may hear the story.
 */
public final class ForwardRun {
    /**
     * @param firstStartsSeconds the first start at or after the fork's time of each job that started in the run
     *                           (a job already running is not in it), by id
     * @param endSeconds         when the run stopped
     * @param decisions          how many decision rounds the policy was asked for
     */
    public record Result(Map<String, Long> firstStartsSeconds, long endSeconds, long decisions) {
        /** When {@code id} started, or {@link Long#MAX_VALUE} when it did not within the run. */
        public long startOf(String id) {
            return firstStartsSeconds.getOrDefault(id, Long.MAX_VALUE);
        }
    }

    /** A node turning healthy or unhealthy at a time (a future health change). */
    public record HealthChange(long atSeconds, int node, boolean healthy) {
    }

    private ForwardRun() {
    }

    /**
     * Plays the future of {@code fork} with {@code policy} (a fresh instance, not one that decided for the original
     * state) up to {@code untilSeconds}.
     *
     * @param arrivals workloads submitted after the fork's time, sorted as {@link Scenario} requires
     * @param watch    ids of the jobs whose start is wanted; the run stops once all have started (empty: run to the
     *                 horizon)
     */
    public static Result play(ClusterState fork, Policy policy, List<WorkloadSpec> arrivals, List<HealthChange> health,
                              Set<String> watch, long untilSeconds) {
        return play(fork, policy, arrivals, health, watch, untilSeconds, SimulationListener.NONE);
    }

    /**
     * {@link #play(ClusterState, Policy, List, List, Set, long)}, telling {@code listener} what happens as the
     * simulator tells its listeners (submissions, starts, preemptions, completions, health changes), each after the
     * state applied it. {@link SimulationListener#onBegin} is not called: the listener reads the fork as it is.
     */
    public static Result play(ClusterState fork, Policy policy, List<WorkloadSpec> arrivals, List<HealthChange> health,
                              Set<String> watch, long untilSeconds, SimulationListener listener) {
        long now = fork.now();
        boolean restarts = policy.restartsWorkThatCannotResume();
        EventQueue queue = new EventQueue();
        StopDelay stops = StopDelay.none(); // a fork's stops are instant (ClusterState#fork)
        // the simulator queues health changes before anything else, so at one instant they come first
        for (HealthChange h : health) {
            if (h.atSeconds() >= now) {
                queue.add(h.atSeconds(), new SimEvent.Health(h.node(), h.healthy()));
            }
        }
        List<Job> running = new ArrayList<>();
        for (Job j : fork.jobs()) {
            if (j.state() == JobState.RUNNING) {
                running.add(j);
            }
        }
        // the simulator queued these as the attempts started: earlier starts first, then the job's index
        running.sort(Comparator.comparingLong(Job::attemptStartSeconds).thenComparingInt(Job::index));
        for (Job j : running) {
            long end = j.attemptStartSeconds() + j.remainingSeconds();
            queue.add(Math.max(now, end), new SimEvent.End(j, j.attempts()));
            if (j.allocated() && j.protectedUntilSeconds() > now && j.protectedUntilSeconds() < end) {
                queue.add(j.protectedUntilSeconds(), new SimEvent.ProtectionEnd(j, j.attempts()));
            }
        }
        Map<String, Long> starts = new HashMap<>();
        int waiting = 0;
        for (String id : watch) {
            if (fork.job(id).map(j -> j.state() != JobState.RUNNING).orElse(true)) {
                waiting++;
            }
        }
        int[] left = {waiting};
        DecisionLoop wakeUps = new DecisionLoop();
        long decisions = 0;
        int nextArrival = 0;
        boolean first = true;
        long t = now;
        while (true) {
            if (!first) {
                long tQueue = queue.isEmpty() ? Long.MAX_VALUE : queue.peekTime();
                long tArrive = nextArrival < arrivals.size() ? arrivals.get(nextArrival).submitSeconds() : Long.MAX_VALUE;
                t = Math.min(tQueue, tArrive);
                if (t == Long.MAX_VALUE || t > untilSeconds || (!watch.isEmpty() && left[0] == 0)) {
                    break;
                }
            }
            fork.advanceTo(t);
            boolean happened = first;
            first = false;
            while (!queue.isEmpty() && queue.peekTime() == t) {
                Object e = queue.poll();
                happened |= ClusterRules.apply(e, t, fork, listener, queue, stops);
                if (e instanceof SimEvent.Wake) {
                    wakeUps.takeDue(t);
                }
            }
            while (nextArrival < arrivals.size() && arrivals.get(nextArrival).submitSeconds() <= t) {
                WorkloadSpec spec = arrivals.get(nextArrival++);
                if (spec.submitSeconds() < t) {
                    continue; // before the fork: not the future
                }
                Job job = fork.register(spec);
                fork.submit(job, t);
                listener.onSubmit(t, job);
                happened = true;
            }
            if (!happened) {
                continue;
            }
            long at = t;
            DecisionLoop.Outcome decided = DecisionLoop.decide(policy, fork, t, new DecisionLoop.Driver() {
                @Override
                public boolean carryOut(Decision d) {
                    boolean requeued = ClusterRules.carryOut(d, at, fork, listener, queue, restarts, stops);
                    if (d instanceof Decision.Start s && starts.putIfAbsent(s.job().id(), at) == null
                            && watch.contains(s.job().id())) {
                        left[0]--;
                    }
                    return requeued;
                }

                @Override
                public void afterRound() {
                    for (int node : fork.nodes().takeDrainNotices()) {
                        listener.onDrained(at, fork.nodes().name(node));
                    }
                }
            });
            decisions += decided.rounds();
            if (wakeUps.requestWakeUp(decided.wakeAtSeconds(), t)) {
                queue.add(decided.wakeAtSeconds(), new SimEvent.Wake());
            }
        }
        return new Result(starts, t, decisions);
    }
}
