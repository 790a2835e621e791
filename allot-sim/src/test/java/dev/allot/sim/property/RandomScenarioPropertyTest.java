package dev.allot.sim.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.WorkloadRecord;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many random small scenarios, every policy, with the invariant checks on after every event: no GPU given twice,
 * no protected workload preempted, charged equals allocated occupancy, running sums exact, every workload
 * accounted for. Also: each run is deterministic, and every workload ends unless the cluster never again had
 * room for it.
 */
class RandomScenarioPropertyTest {
    private static final PolicyRegistry REGISTRY = PolicyRegistry.standard();

    static Stream<Arguments> cases() {
        return LongStream.range(0, 150).boxed()
                .flatMap(seed -> REGISTRY.names().stream().map(policy -> Arguments.of(seed, policy)));
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("cases")
    void invariantsHoldOnRandomScenarios(long seed, String policy) {
        Scenario scenario = RandomScenarios.generate(seed);
        SimulationResult first = new Simulator(scenario, REGISTRY, policy, Simulator.Options.defaults().withCheck(true)).run();
        SimulationResult again = new Simulator(scenario, REGISTRY, policy, Simulator.Options.defaults()).run();
        assertThat(again.workloads()).as("deterministic").isEqualTo(first.workloads());
        assertThat(again.metrics()).as("deterministic").isEqualTo(first.metrics());
        boolean everyNodeEndsHealthy = endsHealthy(scenario);
        for (WorkloadRecord w : first.workloads()) {
            assertThat(w.waitSeconds()).isGreaterThanOrEqualTo(-1);
            if (everyNodeEndsHealthy && !(policy.equals("legacy") && legacyCanNeverRun(scenario, w.id()))) {
                assertThat(w.finalState()).as("workload %s (seed %d)", w.id(), seed).isIn("completed", "preempted");
            }
            if (w.finalState().equals("preempted")) {
                assertThat(w.preemptions()).isPositive();
            }
        }
    }

    /** Under legacy a non-preemptible workload larger than its allocation's limit waits forever. */
    private static boolean legacyCanNeverRun(Scenario s, String id) {
        var spec = s.workloads().stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow();
        int leaf = s.tree().leaf(spec.allocation()).orElseThrow();
        return spec.minRuntime().compareTo(java.time.Duration.ofHours(8)) >= 0
                && spec.gpus() > dev.allot.core.policy.legacy.LegacyPolicy.limitGpus(s.tree(), leaf, s.cluster().totalGpus());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theAllocationPolicysShortcutsNeverChangeADecision(long seed) {
        Scenario scenario = RandomScenarios.generate(seed);
        Scenario exhaustive = scenario.withPolicyConfig(scenario.policyConfig().with("allocation.shortcuts", "false"));
        SimulationResult fast = new Simulator(scenario, REGISTRY, "allocation", Simulator.Options.defaults()).run();
        SimulationResult full = new Simulator(exhaustive, REGISTRY, "allocation", Simulator.Options.defaults()).run();
        assertThat(fast.workloads()).isEqualTo(full.workloads());
        assertThat(fast.metrics().preemptions()).isEqualTo(full.metrics().preemptions());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theSlurmPolicysShortcutsNeverChangeADecision(long seed) {
        Scenario scenario = RandomScenarios.generate(seed);
        Scenario exhaustive = scenario.withPolicyConfig(scenario.policyConfig().with("slurm.shortcuts", "false"));
        SimulationResult fast = new Simulator(scenario, REGISTRY, "slurm", Simulator.Options.defaults()).run();
        SimulationResult full = new Simulator(exhaustive, REGISTRY, "slurm", Simulator.Options.defaults()).run();
        assertThat(fast.workloads()).isEqualTo(full.workloads());
        assertThat(fast.metrics().preemptions()).isEqualTo(full.metrics().preemptions());
    }

    /** The allocation policy with ranking=entitlement, in variants of its margin, reservation count and shortest turn. */
    static Stream<Arguments> entitlementCases() {
        String[][] variants = {
            {"allocation.ranking", "entitlement"},
            {"allocation.ranking", "entitlement", "allocation.reclaim-margin", "0", "allocation.max-reservations", "1",
                "allocation.min-turn", "0"},
            {"allocation.ranking", "entitlement", "allocation.reclaim-margin", "0.5", "allocation.max-reservations", "4",
                "allocation.min-turn", "3h"}};
        return LongStream.range(2000, 2150).boxed().map(seed -> Arguments.of(seed, variants[(int) (seed % variants.length)]));
    }

    private static Scenario withSettings(Scenario s, String... keyValues) {
        var config = s.policyConfig();
        for (int i = 0; i < keyValues.length; i += 2) {
            config = config.with(keyValues[i], keyValues[i + 1]);
        }
        return s.withPolicyConfig(config);
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("entitlementCases")
    void invariantsHoldUnderEntitlementRanking(long seed, String[] settings) {
        Scenario scenario = withSettings(RandomScenarios.generate(seed), settings);
        SimulationResult first = new Simulator(scenario, REGISTRY, "allocation", Simulator.Options.defaults().withCheck(true)).run();
        SimulationResult again = new Simulator(scenario, REGISTRY, "allocation", Simulator.Options.defaults()).run();
        assertThat(again.workloads()).as("deterministic").isEqualTo(first.workloads());
        assertThat(again.metrics()).as("deterministic").isEqualTo(first.metrics());
        boolean everyNodeEndsHealthy = endsHealthy(scenario);
        for (WorkloadRecord w : first.workloads()) {
            if (everyNodeEndsHealthy) {
                assertThat(w.finalState()).as("workload %s (seed %d)", w.id(), seed).isIn("completed", "preempted");
            }
            if (w.finalState().equals("preempted")) {
                assertThat(w.preemptions()).isPositive();
            }
        }
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("entitlementCases")
    void theAllocationPolicysShortcutsNeverChangeADecisionUnderEntitlementRanking(long seed, String[] settings) {
        Scenario scenario = withSettings(RandomScenarios.generate(seed), settings);
        Scenario exhaustive = withSettings(scenario, "allocation.shortcuts", "false");
        SimulationResult fast = new Simulator(scenario, REGISTRY, "allocation", Simulator.Options.defaults()).run();
        SimulationResult full = new Simulator(exhaustive, REGISTRY, "allocation", Simulator.Options.defaults()).run();
        assertThat(fast.workloads()).isEqualTo(full.workloads());
        assertThat(fast.metrics().preemptions()).isEqualTo(full.metrics().preemptions());
    }

    static LongStream seeds() {
        return LongStream.range(1000, 1150);
    }

    private static boolean endsHealthy(Scenario s) {
        java.util.Map<String, Boolean> healthy = new java.util.TreeMap<>();
        s.cluster().healthEvents().forEach(e -> healthy.put(e.node(), e.state() == dev.allot.core.model.HealthEvent.Health.HEALTHY));
        return !healthy.containsValue(false);
    }
}
