package dev.allot.sim.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.WorkloadRecord;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kueue policy's optional settings (hierarchical cohorts, Admission Fair Sharing) on random scenarios whose
 * workloads belong to a few users, with the invariant checks on: deterministic, and every workload ends.
 */
class KueueSettingsPropertyTest {
    private static final PolicyRegistry REGISTRY = PolicyRegistry.standard();
    private static final List<String[]> VARIANTS = List.of(
            new String[] {"kueue.hierarchical-cohorts", "true"},
            new String[] {"kueue.admission-fair-sharing", "true"},
            new String[] {"kueue.admission-fair-sharing", "true", "kueue.usage-half-life-time", "30m",
                    "kueue.hierarchical-cohorts", "true"});

    static Stream<Arguments> cases() {
        return LongStream.range(0, 60).boxed()
                .flatMap(seed -> java.util.stream.IntStream.range(0, VARIANTS.size()).mapToObj(v -> Arguments.of(seed, v)));
    }

    @ParameterizedTest(name = "seed {0}, variant {1}")
    @MethodSource("cases")
    void invariantsHoldWithEverySetting(long seed, int variant) {
        Scenario base = RandomScenarios.generate(seed);
        List<WorkloadSpec> withUsers = base.workloads().stream().map(w -> new WorkloadSpec(w.id(), w.submitSeconds(),
                w.allocation(), "u" + Math.floorMod(w.id().hashCode(), 3), w.gpus(), w.gpusPerNode(), w.duration(),
                w.minRuntime(), w.resumable(), w.priority(), w.checkpointEvery(), w.kind())).toList();
        var config = base.policyConfig();
        String[] kv = VARIANTS.get(variant);
        for (int i = 0; i < kv.length; i += 2) {
            config = config.with(kv[i], kv[i + 1]);
        }
        Scenario scenario = new Scenario(base.name(), base.cluster(), base.tree(), Scenario.sorted(withUsers), config,
                List.of());
        SimulationResult first = new Simulator(scenario, REGISTRY, "kueue", Simulator.Options.defaults().withCheck(true)).run();
        SimulationResult again = new Simulator(scenario, REGISTRY, "kueue", Simulator.Options.defaults()).run();
        assertThat(again.workloads()).as("deterministic").isEqualTo(first.workloads());
        boolean endsHealthy = scenario.cluster().healthEvents().stream()
                .collect(java.util.stream.Collectors.toMap(HealthEvent::node, e -> e.state() == HealthEvent.Health.HEALTHY,
                        (a, b) -> b, java.util.TreeMap::new)).values().stream().allMatch(h -> h);
        for (WorkloadRecord w : first.workloads()) {
            if (endsHealthy) {
                assertThat(w.finalState()).as("workload %s (seed %d)", w.id(), seed).isIn("completed", "preempted");
            }
        }
    }
}
