package dev.allot.sim.forecast;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.ForwardRun;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationAgent;
import dev.allot.sim.Simulator;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import dev.allot.sim.metrics.MetricsCollector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A what-if is the simulator's own prediction: with the true future it tells over the horizon what the simulator goes
 * on to do (counted here independently, from the simulator's story), with no change the variant is the base to the
 * last digit, and a change of shares moves waits the way fair share says it should.
 */
class WhatIfTest {
    private static final Scenario LAB = ScenarioGenerator.generate(GeneratorSpec.preset("lab").withDays(3), 7)
            .toScenario("lab-3d");
    private static final long FORK_AT = Duration.ofHours(36).getSeconds();
    private static final long DAY = 86_400;

    /** Durations as they truly are: the oracle. */
    private static final DurationModel TRUE_DURATIONS = new DurationModel() {
        @Override
        public long drawSeconds(WorkloadSpec spec, long doneSeconds, SplittableRandom random) {
            return spec.duration().getSeconds();
        }

        @Override
        public String basis(WorkloadSpec spec) {
            return "true";
        }
    };

    /** The scenario's own later workloads: the oracle's new work. */
    private static ArrivalModel trueArrivals(Scenario s) {
        return new ArrivalModel() {
            @Override
            public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                           SplittableRandom random) {
                return s.workloads().stream().filter(w -> w.submitSeconds() > now && w.submitSeconds() <= untilSeconds)
                        .toList();
            }

            @Override
            public String basis(long now) {
                return "the scenario's";
            }
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"allocation", "kueue", "legacy"})
    void withTheTrueFutureTheBaseIsWhatTheSimulatorDoesOverTheWindow(String policy) {
        PolicyFactory factory = PolicyRegistry.standard().get(policy);
        Settings settings = LAB.policyConfig().settingsFor(factory);
        Window window = new Window(FORK_AT, FORK_AT + DAY);
        new Simulator(LAB, PolicyRegistry.standard(), policy, Simulator.Options.defaults().withAgent(window)).run();
        ClusterState fork = window.fork;
        assertThat(fork).isNotNull();
        assertThat(fork.now()).isEqualTo(FORK_AT);

        WhatIf.Side side = new WhatIf.Side(fork.tree(), settings);
        WhatIfReport report = new WhatIf(factory, ForecastSettings.defaults().withRuns(1).withHorizon(Duration.ofDays(1)))
                .compare(fork, side, side, TRUE_DURATIONS, trueArrivals(LAB), health(LAB, FORK_AT));

        int checkedLeaves = 0;
        for (int l = 0; l < fork.tree().leafCount(); l++) {
            WhatIfReport.Outcome got = report.allocation(fork.tree().leafName(l)).orElseThrow().base();
            WhatIfReport.Outcome want = window.outcome(l, fork.tree().leafEntitlement(l));
            assertThat(got).as("leaf %s", fork.tree().leafName(l)).isEqualTo(want);
            if (want.started() > 0 && want.chargedGpuHours() > 0) {
                checkedLeaves++;
            }
        }
        assertThat(checkedLeaves).as("leaves with starts and charges in the window").isGreaterThan(2);
        assertThat(report.allocations().get(0).base().started()).isGreaterThan(100);
    }

    @Test
    void unchangedInputsGiveAVariantEqualToTheBaseWithEveryDeltaZero() {
        String policy = "allocation";
        PolicyFactory factory = PolicyRegistry.standard().get(policy);
        Settings settings = LAB.policyConfig().settingsFor(factory);
        Window window = new Window(FORK_AT, FORK_AT + DAY);
        new Simulator(LAB, PolicyRegistry.standard(), policy, Simulator.Options.defaults().withAgent(window)).run();
        ClusterState fork = window.fork;
        RecentArrivals recent = new RecentArrivals();
        LAB.workloads().stream().filter(w -> w.submitSeconds() <= FORK_AT).forEach(w -> recent.learn(w, 0));
        DurationModel noisy = new DurationModel() {
            @Override
            public long drawSeconds(WorkloadSpec spec, long doneSeconds, SplittableRandom random) {
                return doneSeconds + 60 + random.nextLong(Math.max(1, spec.duration().getSeconds()));
            }

            @Override
            public String basis(WorkloadSpec spec) {
                return "noisy";
            }
        };
        // the same shares and settings, given again as changes
        WhatIf.Side base = new WhatIf.Side(fork.tree(), settings);
        WhatIf.Side same = new WhatIf.Side(WhatIfChanges.withShares(fork.tree(), Map.of(fork.tree().leafName(0),
                fork.tree().share(fork.tree().leafNode(0)))), WhatIfChanges.withSettings(factory, settings, Map.of()));
        WhatIf whatIf = new WhatIf(factory, ForecastSettings.defaults().withRuns(3).withHorizon(Duration.ofHours(12)));
        WhatIfReport report = whatIf.compare(fork, base, same, noisy, recent);

        assertThat(report.shares()).isEmpty();
        assertThat(report.settings()).isEmpty();
        assertThat(report.allocations()).hasSize(fork.tree().nodeCount());
        for (WhatIfReport.Allocation a : report.allocations()) {
            assertThat(a.variant()).as(a.name()).isEqualTo(a.base());
            WhatIfReport.Delta d = a.delta();
            assertThat(List.of(d.entitlement(), d.started(), d.waitingAtEnd(), d.chargedGpuHours(), d.owedGpuHours()))
                    .as(a.name()).containsOnly(0.0);
            assertThat(d.waitP50Seconds()).as(a.name()).isIn(0L, null);
            assertThat(d.waitP90Seconds()).as(a.name()).isIn(0L, null);
            assertThat(d.paidFraction()).as(a.name()).isIn(0.0, null);
        }
        assertThat(report.allocations().get(0).base().started()).isGreaterThan(20);
        // deterministic: the same again, and the state it read is unchanged
        assertThat(whatIf.compare(fork, base, same, noisy, recent)).isEqualTo(report);
        assertThat(fork.now()).isEqualTo(FORK_AT);
    }

    /**
     * Two teams on one node of 8 GPUs, each with eight one-hour jobs of the whole node waiting at time 0. With shares
     * 3:1, A gets about three hours in four; raising B's share to A's makes them alternate: B's waits fall, A's rise,
     * and the node's 64 GPU-hours are shared evenly instead.
     */
    @Test
    void raisingBsShareMakesBsWaitsFallAndAsRise() {
        var b = given().nodes(1, 8).allocations(t -> t.leaf("A", 3).leaf("B", 1));
        for (int i = 0; i < 8; i++) {
            b.workload(w("a" + i).in("A").gpus(8).runs("1h").minRuntime("1h").at("0s"));
            b.workload(w("b" + i).in("B").gpus(8).runs("1h").minRuntime("1h").at("0s"));
        }
        Scenario s = b.scenario();
        PolicyFactory factory = PolicyRegistry.standard().get("allocation");
        Settings settings = s.policyConfig().settingsFor(factory);
        Window window = new Window(0, DAY);
        new Simulator(s, PolicyRegistry.standard(), "allocation", Simulator.Options.defaults().withAgent(window)).run();
        ClusterState state = window.fork;

        WhatIf.Side base = new WhatIf.Side(state.tree(), settings);
        WhatIf.Side variant = new WhatIf.Side(WhatIfChanges.withShares(state.tree(), Map.of("B", 3.0)), settings);
        WhatIfReport r = new WhatIf(factory, ForecastSettings.defaults().withRuns(1).withHorizon(Duration.ofDays(1)))
                .compare(state, base, variant, TRUE_DURATIONS, ArrivalModel.NONE);

        assertThat(r.shares()).containsExactly(Map.entry("B", 3.0));
        WhatIfReport.Allocation a = r.allocation("A").orElseThrow();
        WhatIfReport.Allocation bb = r.allocation("B").orElseThrow();
        assertThat(a.base().entitlement()).isEqualTo(0.75);
        assertThat(a.variant().entitlement()).isEqualTo(0.5);
        // everything runs within the day on both sides: 8 jobs x 8 GPUs x 1h each
        assertThat(a.base().chargedGpuHours()).isEqualTo(64.0);
        assertThat(bb.variant().chargedGpuHours()).isEqualTo(64.0);
        assertThat(a.base().started()).isEqualTo(8.0);
        assertThat(bb.base().waitingAtEnd()).isEqualTo(0.0);
        // with 3:1, A's jobs go first (its median wait is under B's); with 1:1 they alternate
        assertThat(a.base().waitP50Seconds()).isLessThan(bb.base().waitP50Seconds());
        assertThat(bb.delta().waitP50Seconds()).isNegative();
        assertThat(a.delta().waitP50Seconds()).isPositive();
        long[] variantWaits = {a.variant().waitP50Seconds(), bb.variant().waitP50Seconds()};
        assertThat(Math.abs(variantWaits[0] - variantWaits[1])).isLessThanOrEqualTo(3600);
        // over the first hours, paid by the new tree's entitlements: the node is shared by what the tree says
        assertThat(r.allocation("lab").orElseThrow().delta().chargedGpuHours()).isEqualTo(0.0);
    }

    @Test
    void newWorkTheStateCouldNotHoldNeverArrives() {
        var b = given().nodes(1, 8).allocations(t -> t.leaf("A", 1).leaf("B", 1));
        b.workload(w("a0").in("A").gpus(8).runs("1h").minRuntime("1h").at("0s"));
        Scenario s = b.scenario();
        PolicyFactory factory = PolicyRegistry.standard().get("allocation");
        Window window = new Window(0, DAY);
        new Simulator(s, PolicyRegistry.standard(), "allocation", Simulator.Options.defaults().withAgent(window)).run();
        ArrivalModel stale = new ArrivalModel() {
            @Override
            public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                           SplittableRandom random) {
                return List.of(
                        WorkloadSpec.builder(prefix + "gone").submitAt(60).allocation("removed").gpus(1).build(),
                        WorkloadSpec.builder(prefix + "huge").submitAt(60).allocation("B").gpus(16).build(),
                        WorkloadSpec.builder(prefix + "fine").submitAt(60).allocation("B").gpus(8)
                                .minRuntime(Duration.ofHours(1)).duration(Duration.ofHours(1)).build());
            }

            @Override
            public String basis(long now) {
                return "stale";
            }
        };
        WhatIf.Side side = new WhatIf.Side(window.fork.tree(), Settings.defaults(factory.settings()));
        WhatIfReport r = new WhatIf(factory, ForecastSettings.defaults().withRuns(1).withHorizon(Duration.ofDays(1)))
                .compare(window.fork, side, side, TRUE_DURATIONS, stale);
        assertThat(r.allocation("B").orElseThrow().base().started()).isEqualTo(1.0);
        assertThat(r.allocation("B").orElseThrow().base().waitP50Seconds()).isEqualTo(3600 - 60);
    }

    @Test
    void changesThatCannotBeTriedAreRefusedNamingWhatWasExpected() {
        PolicyFactory factory = PolicyRegistry.standard().get("allocation");
        Settings settings = Settings.defaults(factory.settings());
        var tree = given().nodes(1, 8).allocations(t -> t.child("org", 1).leaf("A", 3).leaf("B", 1)).scenario()
                .tree();
        assertThatThrownBy(() -> WhatIfChanges.withSettings(factory, settings, Map.of("lookback", "3d")))
                .hasMessageContaining("'lookback' is shared by every policy").hasMessageContaining("allocation.<setting>");
        assertThatThrownBy(() -> WhatIfChanges.withSettings(factory, settings, Map.of("kueue.x", "1")))
                .hasMessageContaining("expected allocation.<setting>");
        assertThatThrownBy(() -> WhatIfChanges.withSettings(factory, settings, Map.of("allocation.nope", "1")))
                .hasMessage("unknown setting 'allocation.nope'; valid settings: " + String.join(", ",
                        WhatIfChanges.settingKeys(factory)))
                .hasMessageContaining("allocation.reclaim-margin, allocation.reservation, allocation.shortcuts");
        assertThatThrownBy(() -> WhatIfChanges.withSettings(factory, settings, Map.of("allocation.reservation",
                "maybe"))).hasMessage("setting 'allocation.reservation': cannot read 'maybe' as true or false");
        assertThatThrownBy(() -> WhatIfChanges.withShares(tree, Map.of("C", 1.0)))
                .hasMessageContaining("no allocation 'C'").hasMessageContaining("A, B");
        assertThatThrownBy(() -> WhatIfChanges.withShares(tree, Map.of("A", -1.0)))
                .hasMessageStartingWith("share of 'A': expected a finite number >= 0"); // not "share of 'A': field 'share': ..."
        assertThatThrownBy(() -> WhatIfChanges.withSettings(factory, settings, Map.of("allocation.waste-limit", "-1")))
                .hasMessage("setting 'allocation.waste-limit': must be a number >= 0 (0: no limit), got -1");
        assertThatThrownBy(() -> WhatIfChanges.withShares(tree, Map.of("lab", 2.0)))
                .hasMessageContaining("the root");
        assertThatThrownBy(() -> WhatIfChanges.withShares(tree, Map.of("A", 0.0, "B", 0.0)))
                .hasMessageContaining("at least one positive share");
        // by name or by path; the other shares and the order stay
        var changed = WhatIfChanges.withShares(tree, Map.of("lab/org/B", 3.0));
        assertThat(changed.leafNames()).isEqualTo(tree.leafNames());
        assertThat(changed.leafEntitlement(1)).isEqualTo(0.5);
        assertThat(changed.share(changed.node("A").orElseThrow())).isEqualTo(3.0);
    }

    private static List<ForwardRun.HealthChange> health(Scenario s, long after) {
        List<ForwardRun.HealthChange> out = new ArrayList<>();
        for (HealthEvent h : s.cluster().healthEvents()) {
            if (h.atSeconds() > after) {
                out.add(new ForwardRun.HealthChange(h.atSeconds(), s.cluster().indexOf(h.node()).orElseThrow(),
                        h.state() == HealthEvent.Health.HEALTHY));
            }
        }
        return out;
    }

    /**
     * Forks the simulated state at a time (after that instant's submissions, before the policy decides) and then
     * counts, from the simulator's story, what happened in the window [fork, until]: first starts, intervals of
     * allocated work running and asking, healthy GPUs, and what waits at the window's end. Independent of
     * {@link HorizonUsage}: intervals cut into hours at the end, not rates integrated as events come.
     */
    private static final class Window implements SimulationAgent {
        final long from;
        final long until;
        ClusterState fork;
        private ClusterState live;
        final Map<Job, Long> runningSince = new HashMap<>();
        final Map<Job, Long> askingSince = new HashMap<>();
        final List<long[]> running = new ArrayList<>(); // leaf, gpus, from, to
        final List<long[]> asking = new ArrayList<>();
        final List<long[]> healthy = new ArrayList<>(); // at, delta GPUs
        long healthyAtFork;
        final Map<String, Long> firstStarts = new HashMap<>();
        final Map<Job, Boolean> waitingAtEnd = new HashMap<>();

        Window(long from, long until) {
            this.from = from;
            this.until = until;
        }

        @Override
        public long nextActionSeconds() {
            return fork == null ? from : Long.MAX_VALUE;
        }

        @Override
        public boolean wantsToAct() {
            return false;
        }

        @Override
        public boolean act(long time, Actions actions) {
            if (fork != null || time < from) {
                return false;
            }
            live = actions.state();
            fork = live.fork(live.tree(), Job::durationSeconds);
            healthyAtFork = live.nodes().healthyGpus();
            for (Job j : live.jobs()) {
                if (j.state() == JobState.PENDING) {
                    waitingAtEnd.put(j, true);
                }
                if (!j.allocated() || j.state().isFinal()) {
                    continue;
                }
                askingSince.put(j, from);
                if (j.state() == JobState.RUNNING) {
                    runningSince.put(j, from);
                }
            }
            return false;
        }

        private boolean inside(long time) {
            return fork != null && time <= until;
        }

        @Override
        public void onSubmit(long time, Job job) {
            if (inside(time)) {
                waitingAtEnd.put(job, true);
                if (job.allocated()) {
                    askingSince.put(job, time);
                }
            }
        }

        @Override
        public void onStart(long time, Job job, Placement placement, String reason) {
            if (!inside(time)) {
                return;
            }
            firstStarts.putIfAbsent(job.id(), time);
            waitingAtEnd.put(job, false);
            if (job.allocated()) {
                runningSince.put(job, time);
            }
        }

        @Override
        public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause,
                              ClusterState.PreemptionResult result) {
            if (inside(time)) {
                stopped(time, job, !result.requeued());
                waitingAtEnd.put(job, result.requeued());
            }
        }

        @Override
        public void onComplete(long time, Job job, Placement placement) {
            if (inside(time)) {
                stopped(time, job, true);
                waitingAtEnd.put(job, false);
            }
        }

        private void stopped(long time, Job job, boolean ended) {
            Long since = runningSince.remove(job);
            if (since != null) {
                running.add(new long[] {job.leaf(), job.gpus(), since, time});
            }
            if (ended) {
                Long asked = askingSince.remove(job);
                if (asked != null) {
                    asking.add(new long[] {job.leaf(), job.gpus(), asked, time});
                }
            }
        }

        @Override
        public void onHealth(long time, String node, boolean isHealthy) {
            if (inside(time)) {
                int gpus = live.nodes().spec(live.cluster().indexOf(node).orElseThrow()).gpus();
                healthy.add(new long[] {time, isHealthy ? gpus : -gpus});
            }
        }

        /** What the simulator did for leaf {@code leaf} over the window, as a what-if of one run reports it. */
        WhatIfReport.Outcome outcome(int leaf, double entitlement) {
            int hours = (int) ((until - from + 3599) / 3600);
            long[] received = perHour(running, runningSince, leaf, hours);
            long[] demand = perHour(asking, askingSince, leaf, hours);
            long[] healthyHours = new long[hours];
            for (int h = 0; h < hours; h++) {
                long a = from + h * 3600L;
                long b = Math.min(until, a + 3600);
                long t = a;
                long level = healthyAtFork;
                for (long[] change : healthy) {
                    if (change[0] <= a) {
                        level += change[1];
                    }
                }
                for (long[] change : healthy) {
                    if (change[0] > a && change[0] < b) {
                        healthyHours[h] += level * (change[0] - t);
                        t = change[0];
                        level += change[1];
                    }
                }
                healthyHours[h] += level * (b - t);
            }
            double owed = 0;
            double paid = 0;
            long charged = 0;
            for (int h = 0; h < hours; h++) {
                double o = MetricsCollector.owedGpuSeconds(entitlement, healthyHours[h], demand[h]);
                owed += o;
                paid += Math.min(received[h], o);
                charged += received[h];
            }
            List<Long> waits = new ArrayList<>();
            for (Map.Entry<String, Long> e : firstStarts.entrySet()) {
                Job j = live.job(e.getKey()).orElseThrow();
                if (j.leaf() == leaf) {
                    waits.add(e.getValue() - Math.max(from, j.spec().submitSeconds()));
                }
            }
            long[] sorted = waits.stream().mapToLong(Long::longValue).sorted().toArray();
            long waiting = waitingAtEnd.entrySet().stream().filter(e -> e.getValue() && e.getKey().leaf() == leaf)
                    .count();
            return new WhatIfReport.Outcome(WhatIfReport.round(entitlement, 6), sorted.length,
                    sorted.length == 0 ? null : sorted[(int) Math.ceil(0.5 * sorted.length) - 1],
                    sorted.length == 0 ? null : sorted[(int) Math.ceil(0.9 * sorted.length) - 1],
                    waiting, WhatIfReport.round(charged / 3600.0, 2), WhatIfReport.round(owed / 3600.0, 2),
                    owed > 0 ? WhatIfReport.round(paid / owed, 4) : null);
        }

        /** GPU-seconds per hour of the window of leaf {@code leaf}'s intervals, the open ones ending at the window's end. */
        private long[] perHour(List<long[]> closed, Map<Job, Long> open, int leaf, int hours) {
            List<long[]> all = new ArrayList<>(closed);
            open.forEach((j, since) -> all.add(new long[] {j.leaf(), j.gpus(), since, until}));
            long[] out = new long[hours];
            for (long[] iv : all) {
                if (iv[0] != leaf) {
                    continue;
                }
                long a0 = Math.max(from, iv[2]);
                long b0 = Math.min(until, iv[3]);
                for (int h = 0; h < hours; h++) {
                    long a = Math.max(a0, from + h * 3600L);
                    long b = Math.min(b0, from + (h + 1) * 3600L);
                    if (b > a) {
                        out[h] += iv[1] * (b - a);
                    }
                }
            }
            return out;
        }
    }
}
