package dev.allot.sim.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.campaign.ProtectedSlots;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.campaign.CampaignDriver;
import dev.allot.sim.campaign.CampaignOutcome;
import dev.allot.sim.campaign.CampaignSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A random campaign inside each random small scenario ({@link RandomScenarios}), under every strategy and Allot's
 * policy, with the invariant checks on after every event (no GPU given twice, no protected workload preempted, charged
 * equals allocated occupancy with promotions charged from the promotion, running sums exact). Also: no unit is ever
 * done twice, the run is deterministic, the campaign finishes when the cluster ends healthy, and each strategy makes
 * only its own kind of move.
 */
class CampaignPropertyTest {
    private static final PolicyRegistry REGISTRY = PolicyRegistry.standard();

    static Stream<Arguments> cases() {
        return LongStream.range(0, 60).boxed()
                .flatMap(seed -> CampaignStrategy.all().stream().map(s -> Arguments.of(seed, s.name())));
    }

    static CampaignSpec campaign(long seed, Scenario scenario) {
        SplittableRandom r = new SplittableRandom(seed * 7919 + 17);
        List<String> leaves = scenario.tree().leafNames();
        TreeMap<String, Long> families = new TreeMap<>();
        families.put("a", 60 + r.nextLong(1800));
        families.put("b", 60 + r.nextLong(1800));
        List<CampaignSpec.Shard> shards = new ArrayList<>();
        int count = 1 + r.nextInt(8);
        for (int i = 0; i < count; i++) {
            shards.add(new CampaignSpec.Shard(i, r.nextBoolean() ? "a" : "b", 1 + r.nextInt(60),
                    0.5 + r.nextInt(16) / 10.0));
        }
        ProtectedSlots slots = r.nextInt(3) == 0 ? ProtectedSlots.gpus(r.nextInt(5)) : ProtectedSlots.shards(r.nextInt(4));
        return new CampaignSpec("c", leaves.get(r.nextInt(leaves.size())), r.nextLong(2 * 86400), 1 + r.nextInt(2),
                Duration.ofMinutes(15 + r.nextInt(600)), slots, r.nextBoolean() ? 0 : 60 + r.nextInt(1800), families,
                shards);
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("cases")
    void invariantsHoldAndNoUnitIsDoneTwice(long seed, String strategyName) {
        Scenario scenario = RandomScenarios.generate(seed);
        CampaignSpec spec = campaign(seed, scenario);
        CampaignStrategy strategy = CampaignStrategy.named(strategyName).orElseThrow();
        CampaignDriver checked = new CampaignDriver(spec, strategy);
        SimulationResult first = new Simulator(scenario, REGISTRY, "allocation",
                Simulator.Options.defaults().withCheck(true).withAgent(checked)).run();
        CampaignDriver again = new CampaignDriver(spec, strategy);
        SimulationResult second = new Simulator(scenario, REGISTRY, "allocation",
                Simulator.Options.defaults().withAgent(again)).run();
        CampaignOutcome o = checked.outcome(first.run().endSeconds());

        assertThat(o.unitsRedone()).as("units done twice (seed %d)", seed).isZero();
        assertThat(again.outcome(second.run().endSeconds())).as("deterministic").isEqualTo(o);
        assertThat(second.workloads()).as("deterministic").isEqualTo(first.workloads());
        if (endsHealthy(scenario)) {
            assertThat(o.finished()).as("finished (seed %d)", seed).isTrue();
            assertThat(o.unitsDone()).isEqualTo(o.unitsTotal());
        }
        if (strategy.moves() == CampaignStrategy.MoveMode.IN_PLACE) {
            assertThat(o.restarts()).isZero();
        } else {
            assertThat(o.promotions()).isZero();
        }
        switch (strategy.slots()) {
            case NONE -> assertThat(o.chargedGpuSeconds()).isZero();
            case ALL -> assertThat(o.unallocatedGpuSeconds()).isZero();
            default -> {
            }
        }
        // one workload per shard for its whole life: moves change its contract, never make another
        List<String> shardWorkloads = first.workloads().stream().map(w -> w.id()).filter(id -> id.startsWith("c-s"))
                .toList();
        assertThat(shardWorkloads).hasSize(spec.shards().size());
    }

    private static boolean endsHealthy(Scenario s) {
        Map<String, Boolean> healthy = new TreeMap<>();
        s.cluster().healthEvents().forEach(e -> healthy.put(e.node(), e.state() == HealthEvent.Health.HEALTHY));
        return !healthy.containsValue(false);
    }
}
