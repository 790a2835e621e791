package dev.allot.sim;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.DecisionLoop;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.check.InvariantChecker;
import dev.allot.sim.metrics.MetricsCollector;
import dev.allot.sim.metrics.PolicyMetrics;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays a scenario through one policy, event by event. It never steps a clock: it jumps to the next event
 * (a submission, the end of an attempt, the end of a protection, a health change, a wake-up the policy asked
 * for). Everything that happens at one instant is applied first, in (time, sequence) order, with submissions
 * last; then the policy is asked and the simulator carries out its plan, in order, by the rules of
 * {@link DecisionLoop} (which the service follows too: the same rounds, the same wake-ups). The
 * policy is the production code from {@code allot-core}; the simulator only plays the cluster.
 *
 * <p>Same scenario, same policy settings: same result, bit for bit.
 */
public final class Simulator {
    private final Scenario scenario;
    private final PolicyFactory factory;
    private final Settings settings;
    private final Options options;

    /**
     * @param check    verify invariants after every event ({@code --check})
     * @param listener hears the story of the run; {@link SimulationListener#NONE} for none
     * @param maxOvertimeSeconds stop this long after the last submission even if work remains (a guard; the
     *                           unfinished workloads are reported as such)
     */
    public record Options(boolean check, SimulationListener listener, long maxOvertimeSeconds) {
        public static Options defaults() {
            return new Options(false, SimulationListener.NONE, 365L * 86400);
        }

        public Options withCheck(boolean value) {
            return new Options(value, listener, maxOvertimeSeconds);
        }

        public Options withListener(SimulationListener value) {
            return new Options(check, value, maxOvertimeSeconds);
        }
    }

    public Simulator(Scenario scenario, PolicyRegistry registry, String policyName, Options options) {
        this.scenario = scenario;
        this.factory = registry.get(policyName);
        this.settings = scenario.policyConfig().settingsFor(factory);
        this.options = options;
    }

    public SimulationResult run() {
        long wallStart = System.nanoTime();
        Policy policy = factory.create(settings);
        boolean restarts = policy.restartsWorkThatCannotResume();
        ClusterState state = new ClusterState(scenario.cluster(), scenario.tree(), scenario.policyConfig().scheduler(), 0);
        List<WorkloadSpec> specs = scenario.workloads();
        long lastSubmit = specs.isEmpty() ? 0 : specs.get(specs.size() - 1).submitSeconds();
        MetricsCollector metrics = new MetricsCollector(state, lastSubmit);
        SimulationListener listener = options.listener();
        listener.onBegin(state);
        InvariantChecker checker = options.check() ? new InvariantChecker(state, policy, metrics) : null;
        EventQueue queue = new EventQueue();
        for (HealthEvent h : scenario.cluster().healthEvents()) {
            int node = scenario.cluster().indexOf(h.node()).orElseThrow();
            queue.add(h.atSeconds(), new SimEvent.Health(node, h.state() == HealthEvent.Health.HEALTHY));
        }
        long stopAt = lastSubmit + options.maxOvertimeSeconds();
        int nextSubmit = 0;
        long events = 0;
        long cycles = 0;
        DecisionLoop wakeUps = new DecisionLoop();
        long now = 0;
        while (true) {
            long tQueue = queue.isEmpty() ? Long.MAX_VALUE : queue.peekTime();
            long tSubmit = nextSubmit < specs.size() ? specs.get(nextSubmit).submitSeconds() : Long.MAX_VALUE;
            long t = Math.min(tQueue, tSubmit);
            if (t == Long.MAX_VALUE || t > stopAt) {
                break;
            }
            now = t;
            state.advanceTo(t);
            metrics.advanceTo(t);
            boolean happened = false;
            while (!queue.isEmpty() && queue.peekTime() == t) {
                Object e = queue.poll();
                if (apply(e, t, state, metrics, listener)) {
                    events++;
                    happened = true;
                }
                if (e instanceof SimEvent.Wake) {
                    wakeUps.takeDue(t);
                }
            }
            while (nextSubmit < specs.size() && specs.get(nextSubmit).submitSeconds() == t) {
                Job job = state.register(specs.get(nextSubmit++));
                state.submit(job, t);
                metrics.onSubmit(t, job);
                listener.onSubmit(t, job);
                events++;
                happened = true;
            }
            if (!happened) {
                continue;
            }
            // Decide (again at once while a plan requeues work, bounded) and keep the earliest wake-up asked for:
            // the loop the service runs too (DecisionLoop).
            long instant = t;
            DecisionLoop.Outcome decided = DecisionLoop.decide(policy, state, t, new DecisionLoop.Driver() {
                @Override
                public boolean carryOut(Decision d) {
                    if (checker != null) {
                        checker.beforeDecision(instant, d);
                    }
                    return Simulator.carryOut(d, instant, state, metrics, listener, queue, restarts);
                }

                @Override
                public void afterRound() {
                    for (int node : state.takeDrainNotices()) {
                        String name = state.nodeName(node);
                        metrics.onDrained(instant, name);
                        listener.onDrained(instant, name);
                    }
                }
            });
            cycles += decided.rounds();
            if (wakeUps.requestWakeUp(decided.wakeAtSeconds(), t)) {
                queue.add(decided.wakeAtSeconds(), new SimEvent.Wake());
            }
            if (checker != null) {
                checker.afterEvent(t);
            }
        }
        if (checker != null) {
            checker.atEnd(now, nextSubmit);
        }
        PolicyMetrics pm = metrics.finish(now, factory.name(), settings.asText());
        List<WorkloadRecord> records = new ArrayList<>(state.jobs().size());
        for (Job j : state.jobs()) {
            records.add(record(factory.name(), j, state));
        }
        long wall = System.nanoTime() - wallStart;
        return new SimulationResult(factory.name(), pm, records, metrics.hourly(),
                new SimulationResult.RunStats(events, cycles, now, wall));
    }

    private static boolean apply(Object e, long t, ClusterState state, MetricsCollector metrics, SimulationListener listener) {
        if (e instanceof SimEvent.End end) {
            Job j = end.job();
            if (j.state() != JobState.RUNNING || j.attempts() != end.attempt()) {
                return false;
            }
            Placement p = j.placement();
            state.complete(j, t);
            metrics.onComplete(t, j, p);
            listener.onComplete(t, j, p);
            return true;
        }
        if (e instanceof SimEvent.ProtectionEnd pe) {
            Job j = pe.job();
            if (j.state() != JobState.RUNNING || j.attempts() != pe.attempt()) {
                return false;
            }
            listener.onProtectionEnd(t, j);
            return true;
        }
        if (e instanceof SimEvent.Health h) {
            if (state.isHealthy(h.node()) == h.healthy()) {
                return false;
            }
            state.setHealthy(h.node(), h.healthy(), t);
            String name = state.nodeName(h.node());
            metrics.onHealth(t, name, h.healthy());
            listener.onHealth(t, name, h.healthy());
            return true;
        }
        return e instanceof SimEvent.Wake;
    }

    /** Applies one decision; returns whether it sent a job back to the queue. */
    private static boolean carryOut(Decision d, long t, ClusterState state, MetricsCollector metrics,
                                    SimulationListener listener, EventQueue queue, boolean restarts) {
        if (d instanceof Decision.Preempt p) {
            Job j = p.job();
            Placement where = j.placement();
            ClusterState.PreemptionResult r = state.preempt(j, t, restarts);
            metrics.onPreempt(t, j, where, p.cause(), r);
            listener.onPreempt(t, j, where, p.cause(), r);
            return r.requeued();
        } else if (d instanceof Decision.Start s) {
            Job j = s.job();
            state.start(j, s.placement(), t);
            long end = t + j.remainingSeconds();
            queue.add(end, new SimEvent.End(j, j.attempts()));
            if (j.allocated() && j.protectedUntilSeconds() < end) {
                queue.add(j.protectedUntilSeconds(), new SimEvent.ProtectionEnd(j, j.attempts()));
            }
            metrics.onStart(t, j, s.placement(), s.reason());
            listener.onStart(t, j, s.placement(), s.reason());
        }
        return false;
    }

    private static WorkloadRecord record(String policy, Job j, ClusterState state) {
        String fin = switch (j.state()) {
            case COMPLETED -> "completed";
            case PREEMPTED -> "preempted";
            case CANCELLED -> "cancelled";
            default -> "pending";
        };
        long wait = j.firstStartSeconds() >= 0 ? j.firstStartSeconds() - j.spec().submitSeconds() : -1;
        return new WorkloadRecord(policy, j.id(), state.tree().leafName(j.leaf()), j.spec().submitSeconds(),
                j.firstStartSeconds(), j.endSeconds(), wait, j.preemptions(), fin);
    }
}
