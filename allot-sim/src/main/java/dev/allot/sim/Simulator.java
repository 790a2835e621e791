package dev.allot.sim;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.DecisionLoop;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.Settings;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.core.policy.allocation.AllocationSettings;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.check.InvariantChecker;
import dev.allot.sim.metrics.MetricsCollector;
import dev.allot.sim.metrics.PaidBound;
import dev.allot.sim.metrics.PolicyMetrics;
import java.time.Duration;
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
     * @param agent    acts besides the scenario's workloads (a campaign), or null for none
     * @param stopDelaySeconds how long a preempted attempt takes to stop, holding its GPUs (0: at once, the default);
     *                 a start placed on them waits and is protected from its launch ({@link StopDelay})
     * @param paidBoundStepSeconds measure the paid fraction and its bound every this many seconds ({@link PaidBound},
     *                 in {@link PolicyMetrics#paidBound()}); 0: not at all, the default (it costs a knapsack per state)
     */
    public record Options(boolean check, SimulationListener listener, long maxOvertimeSeconds, SimulationAgent agent,
                          long stopDelaySeconds, long paidBoundStepSeconds) {
        /**
         * The longest stop delay a run takes: 1 day. A process stops in seconds to minutes; a delay near the run's
         * overtime guard (a year) left work still stopping when the run ended, running without ever having started.
         */
        public static final long MAX_STOP_DELAY_SECONDS = 86_400;

        public Options {
            if (stopDelaySeconds < 0 || stopDelaySeconds > MAX_STOP_DELAY_SECONDS) {
                throw new IllegalArgumentException("stop delay: expected 0 s to " + MAX_STOP_DELAY_SECONDS + " s (1d),"
                        + " got " + stopDelaySeconds);
            }
            if (paidBoundStepSeconds < 0) {
                throw new IllegalArgumentException("paid bound step: expected 0 s (off) or more, got " + paidBoundStepSeconds);
            }
        }

        public Options(boolean check, SimulationListener listener, long maxOvertimeSeconds, SimulationAgent agent) {
            this(check, listener, maxOvertimeSeconds, agent, 0, 0);
        }

        public static Options defaults() {
            return new Options(false, SimulationListener.NONE, 365L * 86400, null, 0, 0);
        }

        public Options withCheck(boolean value) {
            return new Options(value, listener, maxOvertimeSeconds, agent, stopDelaySeconds, paidBoundStepSeconds);
        }

        public Options withListener(SimulationListener value) {
            return new Options(check, value, maxOvertimeSeconds, agent, stopDelaySeconds, paidBoundStepSeconds);
        }

        public Options withAgent(SimulationAgent value) {
            return new Options(check, listener, maxOvertimeSeconds, value, stopDelaySeconds, paidBoundStepSeconds);
        }

        public Options withStopDelaySeconds(long value) {
            return new Options(check, listener, maxOvertimeSeconds, agent, value, paidBoundStepSeconds);
        }

        public Options withPaidBoundStepSeconds(long value) {
            return new Options(check, listener, maxOvertimeSeconds, agent, stopDelaySeconds, value);
        }
    }

    /** How many times an agent may act again at one instant after the policy's decisions (a guard). */
    static final int MAX_AGENT_PASSES = 4;

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
        long lastSubmit = scenario.lastSubmitSeconds();
        MetricsCollector metrics = new MetricsCollector(state, lastSubmit);
        SimulationAgent agent = options.agent();
        SimulationListener listener = agent == null ? options.listener() : SimulationListener.both(options.listener(), agent);
        InvariantChecker checker = options.check() ? new InvariantChecker(state, policy, metrics,
                AllocationPolicy.NAME.equals(factory.name()) ? AllocationSettings.from(settings).ranking() : null) : null;
        if (checker != null) {
            listener = SimulationListener.both(checker.listener(), listener); // the books hear all, agents' moves too
        }
        PaidBound paidBound = options.paidBoundStepSeconds() > 0
                ? new PaidBound(options.paidBoundStepSeconds(), metrics.windowSeconds()) : null;
        if (paidBound != null) {
            listener = SimulationListener.both(paidBound, listener);
        }
        listener.onBegin(state);
        SimulationListener hears = SimulationListener.both(metrics, listener); // the metrics first, then the story
        EventQueue queue = new EventQueue();
        StopDelay stops = new StopDelay(options.stopDelaySeconds());
        for (HealthEvent h : scenario.cluster().healthEvents()) {
            int node = scenario.cluster().indexOf(h.node()).orElseThrow();
            queue.add(h.atSeconds(), new SimEvent.Health(node, h.state() == HealthEvent.Health.HEALTHY));
        }
        long stopAt = lastSubmit + options.maxOvertimeSeconds();
        int nextSubmit = 0;
        long events = 0;
        long cycles = 0;
        DecisionLoop wakeUps = new DecisionLoop();
        AgentActions actions = agent == null ? null : new AgentActions(state, metrics, listener, queue);
        long now = 0;
        long agentActedAt = Long.MIN_VALUE;
        while (true) {
            long tQueue = queue.isEmpty() ? Long.MAX_VALUE : queue.peekTime();
            long tSubmit = nextSubmit < specs.size() ? specs.get(nextSubmit).submitSeconds() : Long.MAX_VALUE;
            long tAgent = Long.MAX_VALUE;
            boolean more = tQueue != Long.MAX_VALUE || tSubmit != Long.MAX_VALUE;
            if (agent != null && agent.nextActionSeconds() > agentActedAt // once per instant, never back in time
                    && (more || agent.extendsRun())) {
                tAgent = Math.max(now, agent.nextActionSeconds());
            }
            long t = Math.min(Math.min(tQueue, tSubmit), tAgent);
            if (t == Long.MAX_VALUE || t > stopAt) {
                break;
            }
            now = t;
            state.advanceTo(t);
            metrics.advanceTo(t);
            if (paidBound != null) {
                paidBound.advanceTo(t);
            }
            boolean happened = false;
            while (!queue.isEmpty() && queue.peekTime() == t) {
                Object e = queue.poll();
                if (ClusterRules.apply(e, t, state, hears, queue, stops)) {
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
            if (agent != null && (happened || tAgent == t)) {
                // the agent acts before the policy decides, on what this instant brought
                agentActedAt = t;
                happened |= actions.act(agent, t);
            }
            if (!happened) {
                continue;
            }
            cycles += decide(policy, state, t, hears, queue, restarts, checker, wakeUps, stops);
            // the policy's decisions may have started or stopped the agent's work: let it answer at this instant
            for (int pass = 0; agent != null && pass < MAX_AGENT_PASSES && agent.wantsToAct(); pass++) {
                if (!actions.act(agent, t)) {
                    break;
                }
                cycles += decide(policy, state, t, hears, queue, restarts, checker, wakeUps, stops);
            }
            if (checker != null) {
                checker.afterEvent(t);
            }
        }
        if (actions != null) {
            events += actions.submitted;
        }
        if (checker != null) {
            checker.atEnd(now, nextSubmit + (actions == null ? 0 : actions.submitted));
        }
        PolicyMetrics pm = metrics.finish(now, factory.name(), settings.asText());
        if (paidBound != null) {
            paidBound.advanceTo(Math.max(now, metrics.windowSeconds()));
            pm = pm.withPaidBound(paidBound.result());
        }
        List<WorkloadRecord> records = new ArrayList<>(state.jobs().size());
        for (Job j : state.jobs()) {
            records.add(record(factory.name(), j, state));
        }
        long wall = System.nanoTime() - wallStart;
        return new SimulationResult(factory.name(), pm, records, metrics.hourly(),
                new SimulationResult.RunStats(events, cycles, now, wall));
    }

    /**
     * One decision instant: asks the policy (again at once while a plan requeues work, bounded), carries out its
     * plans and keeps the earliest wake-up asked for: the loop the service runs too ({@link DecisionLoop}). Returns
     * the rounds.
     */
    private static int decide(Policy policy, ClusterState state, long t, SimulationListener hears, EventQueue queue,
                              boolean restarts, InvariantChecker checker, DecisionLoop wakeUps, StopDelay stops) {
        DecisionLoop.Outcome decided = DecisionLoop.decide(policy, state, t, new DecisionLoop.Driver() {
            @Override
            public boolean carryOut(Decision d) {
                if (checker != null) {
                    checker.beforeDecision(t, d);
                }
                return ClusterRules.carryOut(d, t, state, hears, queue, restarts, stops);
            }

            @Override
            public void afterRound() {
                for (int node : state.nodes().takeDrainNotices()) {
                    hears.onDrained(t, state.nodes().name(node));
                }
            }
        });
        if (wakeUps.requestWakeUp(decided.wakeAtSeconds(), t)) {
            queue.add(decided.wakeAtSeconds(), new SimEvent.Wake());
        }
        return decided.rounds();
    }

    /**
     * What an agent may do, carried out on the state with the metrics, the listeners and the future kept in step:
     * a promoted running attempt gets the protection-end event a start would have given it.
     */
    private static final class AgentActions implements SimulationAgent.Actions {
        private final ClusterState state;
        private final MetricsCollector metrics;
        private final SimulationListener listener;
        private final EventQueue queue;
        private long now;
        int submitted;

        AgentActions(ClusterState state, MetricsCollector metrics, SimulationListener listener, EventQueue queue) {
            this.state = state;
            this.metrics = metrics;
            this.listener = listener;
            this.queue = queue;
        }

        boolean act(SimulationAgent agent, long time) {
            now = time;
            return agent.act(time, this);
        }

        @Override
        public ClusterState state() {
            return state;
        }

        @Override
        public Job submit(WorkloadSpec spec) {
            if (spec.submitSeconds() != now) {
                throw new IllegalArgumentException("an agent submits " + spec.id() + " at " + now
                        + " but the workload says it was submitted at " + spec.submitSeconds());
            }
            Job job = state.register(spec);
            state.submit(job, now);
            metrics.onSubmit(now, job);
            listener.onSubmit(now, job);
            submitted++;
            return job;
        }

        @Override
        public void promote(Job job, Duration minRuntime) {
            state.promote(job, minRuntime, now);
            if (job.state() == JobState.RUNNING) {
                long end = now + job.remainingSeconds();
                if (job.protectedUntilSeconds() < end) {
                    queue.add(job.protectedUntilSeconds(), new SimEvent.ProtectionEnd(job, job.attempts()));
                }
            }
            metrics.onPromote(now, job);
            listener.onPromote(now, job);
        }

        @Override
        public void rerank(Job job, long rank) {
            state.rerank(job, rank);
        }

        @Override
        public void demote(Job job) {
            state.demote(job, now);
            metrics.onDemote(now, job);
            listener.onDemote(now, job);
        }

        @Override
        public ClusterState.PreemptionResult restart(Job job, PreemptionCause cause) {
            if (job.state() != JobState.RUNNING || job.isProtected(now) || !job.spec().resumable()) {
                throw new IllegalStateException("an agent may restart only running resumable work that is not"
                        + " protected; " + job.id() + " is " + job.state() + (job.isProtected(now) ? ", protected" : "")
                        + (job.spec().resumable() ? "" : ", not resumable"));
            }
            Placement where = job.placement();
            ClusterState.PreemptionResult r = state.preempt(job, now);
            metrics.onPreempt(now, job, where, cause, r);
            listener.onPreempt(now, job, where, cause, r);
            return r;
        }
    }

    private static WorkloadRecord record(String policy, Job j, ClusterState state) {
        String fin = switch (j.state()) {
            case COMPLETED -> "completed";
            case PREEMPTED -> "preempted";
            case CANCELLED -> "cancelled";
            // still running when the run stopped (its guard, maxOvertimeSeconds): it was reported 'pending', as if it
            // had never started, and compare saw a state difference with a replay's 'running'
            case RUNNING -> "running";
            default -> "pending";
        };
        long wait = j.firstStartSeconds() >= 0 ? j.firstStartSeconds() - j.spec().submitSeconds() : -1;
        return new WorkloadRecord(policy, j.id(), state.tree().leafName(j.leaf()), j.spec().submitSeconds(),
                j.firstStartSeconds(), j.endSeconds(), wait, j.preemptions(), fin);
    }
}
