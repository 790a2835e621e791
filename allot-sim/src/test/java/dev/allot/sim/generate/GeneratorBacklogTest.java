package dev.allot.sim.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.generate.GeneratorSpec.Team;
import dev.allot.sim.generate.KindSpec.Volume;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The backlog: for each kind whose volume is a GPU-hour budget ({@code LOAD}), every team also submits
 * {@code backlogDays} days of its budget at time 0, from a stream of its own.
 */
class GeneratorBacklogTest {
    private static final GeneratorSpec LAB = GeneratorSpec.preset("lab");
    /** debug's largest workload: 8 GPUs for 40 minutes. */
    private static final double LARGEST_DEBUG_GPU_HOURS = 8 * 40 / 60.0;

    @Test
    void thePresetsQueueTwoDaysAndADayAndAHalf() {
        assertThat(LAB.backlogDays()).isEqualTo(2.0);
        assertThat(GeneratorSpec.preset("big").backlogDays()).isEqualTo(1.5);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void theBacklogIsTrainingAtTimeZeroAddedToAnUnchangedTimeline(long seed) {
        GeneratedScenario full = ScenarioGenerator.generate(LAB, seed);
        GeneratedScenario none = ScenarioGenerator.generate(withBacklogDays(LAB, 0), seed);

        // without a backlog the timeline alone submits nothing at time 0 (for these seeds)
        assertThat(none.workloads()).noneMatch(w -> w.submitSeconds() == 0);
        // with it, every workload of the timeline is still there, and the rest is training submitted at time 0
        List<WorkloadSpec> added = minus(full.workloads(), none.workloads());
        assertThat(added).hasSizeBetween(15, 60).allSatisfy(w -> {
            assertThat(w.submitSeconds()).isZero();
            assertThat(w.kind()).isEqualTo("train");
        });
        assertThat(full.workloads().stream().filter(w -> w.submitSeconds() == 0)).hasSameSizeAs(added);
    }

    @Test
    void onlyBudgetKindsHaveABacklogAndEachTeamQueuesBacklogDaysOfItsOwnBudget() {
        // debug as a budget of small workloads (so the backlog can be checked closely) and train as a count
        GeneratorSpec spec = smallJobBacklog(0.2);
        GeneratedScenario g = ScenarioGenerator.generate(spec, 5);
        Map<String, Double> target = backlogTargets(spec, "debug");

        Map<String, Double> queued = new HashMap<>();
        for (WorkloadSpec w : g.workloads()) {
            if (w.submitSeconds() == 0) {
                assertThat(w.kind()).isEqualTo("debug");
                queued.merge(w.allocation(), LoadStats.gpuHours(w), Double::sum);
            }
        }
        assertThat(target.values().stream().mapToDouble(Double::doubleValue).sum())
                .isCloseTo(0.2 * 256 * 24 * 2, within(1e-6));
        // a team stops at the first workload that does not fit, keeping it if at least half of it does
        target.forEach((team, gpuHours) -> assertThat(queued.getOrDefault(team, 0.0)).as(team)
                .isBetween(gpuHours - LARGEST_DEBUG_GPU_HOURS / 2, gpuHours + LARGEST_DEBUG_GPU_HOURS / 2));
    }

    @Test
    void trainingBacklogIsRoughlyBacklogDaysOfEachTeamsBudget() {
        Map<String, Double> target = backlogTargets(LAB, "train");
        double totalTarget = target.values().stream().mapToDouble(Double::doubleValue).sum();
        assertThat(totalTarget).isCloseTo(0.68 * 256 * 24 * 2, within(1e-6));

        Map<String, Double> queued = new HashMap<>();
        double total = 0;
        int seeds = 8;
        for (long seed = 1; seed <= seeds; seed++) {
            Map<String, Double> perTeam = new HashMap<>();
            for (WorkloadSpec w : ScenarioGenerator.generate(LAB, seed).workloads()) {
                if (w.submitSeconds() == 0) {
                    perTeam.merge(w.allocation(), LoadStats.gpuHours(w), Double::sum);
                }
            }
            double seedTotal = perTeam.values().stream().mapToDouble(Double::doubleValue).sum();
            // gangs of up to 128 GPUs for up to 4 days make it lumpy: 0.58-1.17 of the target over seeds 1-40
            assertThat(seedTotal / totalTarget).as("seed %d", seed).isBetween(0.5, 1.25);
            // keeping a last workload only if half of it fits never queues more than twice the budget
            perTeam.forEach((team, gpuHours) ->
                    assertThat(gpuHours).as(team).isLessThanOrEqualTo(2 * target.get(team)));
            perTeam.forEach((team, gpuHours) -> queued.merge(team, gpuHours, Double::sum));
            total += seedTotal;
        }
        assertThat(total / (seeds * totalTarget)).isBetween(0.7, 1.05);
        for (String heavy : List.of("pretrain", "multimodal")) {
            assertThat(queued.get(heavy) / (seeds * target.get(heavy))).as(heavy).isBetween(0.6, 1.3);
        }
    }

    @Test
    void theBacklogIsCountedInDaysSoTheHorizonLeavesItAsItIs() {
        GeneratedScenario twoWeeks = ScenarioGenerator.generate(LAB, 6);
        GeneratedScenario oneWeek = ScenarioGenerator.generate(LAB.withDays(7), 6);

        assertThat(keys(atStart(oneWeek))).isNotEmpty().isEqualTo(keys(atStart(twoWeeks)));
    }

    @Test
    void aWorkloadScaleScalesTheBacklogWithTheBudgets() {
        assertThat(LAB.withWorkloadScale(0.5).backlogDays()).isEqualTo(LAB.backlogDays());

        GeneratorSpec spec = smallJobBacklog(0.2);
        double full = LoadStats.gpuHoursAtStart(ScenarioGenerator.generate(spec, 3));
        double half = LoadStats.gpuHoursAtStart(ScenarioGenerator.generate(spec.withWorkloadScale(0.5), 3));
        assertThat(half / full).isBetween(0.45, 0.55);
        assertThat(LoadStats.gpuHoursAtStart(ScenarioGenerator.generate(spec.withWorkloadScale(0), 3))).isZero();

        // the lumpy training backlog of the preset, over a few seeds
        double labFull = 0;
        double labHalf = 0;
        for (long seed = 1; seed <= 6; seed++) {
            labFull += LoadStats.gpuHoursAtStart(ScenarioGenerator.generate(LAB, seed));
            labHalf += LoadStats.gpuHoursAtStart(ScenarioGenerator.generate(LAB.withWorkloadScale(0.5), seed));
        }
        assertThat(labHalf / labFull).isBetween(0.35, 0.65);
    }

    @Test
    void backlogDaysMustBeFiniteAndNotNegative() {
        for (double bad : new double[] {-1, -0.001, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertThatThrownBy(() -> withBacklogDays(LAB, bad)).as("%s", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backlogDays");
        }
        assertThatCode(() -> withBacklogDays(LAB, 0)).doesNotThrowAnyException();
        assertThatCode(() -> withBacklogDays(LAB, 30)).doesNotThrowAnyException();
    }

    // ---- helpers ----

    static GeneratorSpec withBacklogDays(GeneratorSpec s, double days) {
        return new GeneratorSpec(s.name(), s.cluster(), s.days(), s.root(), s.programs(), s.kinds(), s.bursts(),
                s.failures(), days);
    }

    /** {@code lab} with debug a budget of {@code debugLoad} and train a count (0.07 a GPU-day, about 250). */
    private static GeneratorSpec smallJobBacklog(double debugLoad) {
        List<KindSpec> kinds = new ArrayList<>();
        for (KindSpec k : LAB.kinds()) {
            kinds.add(switch (k.name()) {
                case "debug" -> withVolume(k, Volume.load(debugLoad));
                case "train" -> withVolume(k, Volume.jobsPerGpuDay(0.07));
                default -> k;
            });
        }
        return new GeneratorSpec("small-backlog", LAB.cluster(), LAB.days(), LAB.root(), LAB.programs(), kinds,
                LAB.bursts(), LAB.failures(), LAB.backlogDays());
    }

    private static KindSpec withVolume(KindSpec k, Volume v) {
        return new KindSpec(k.name(), k.defaultAffinity(), v, k.gpus(), k.wholeNodes(), k.duration(), k.granularity(),
                k.minRuntime(), k.resumable(), k.keepsProgress(), k.checkpointEvery(), k.priority(),
                k.inflatedPriority(), k.profile(), k.batchMin(), k.batchMax(), k.batchJitter());
    }

    /**
     * Each team's backlog in GPU-hours as documented: its part of the kind's budget (weight entitlement x intensity
     * x affinity), divided by the days of the horizon, times {@code backlogDays}.
     */
    private static Map<String, Double> backlogTargets(GeneratorSpec spec, String kindName) {
        KindSpec kind = spec.kinds().stream().filter(k -> k.name().equals(kindName)).findFirst().orElseThrow();
        AllocationTree tree = spec.tree();
        Map<String, Double> weight = new LinkedHashMap<>();
        double sum = 0;
        for (Team t : spec.teams()) {
            double w = tree.entitlement(tree.node(t.name()).orElseThrow()) * t.intensity() * t.affinityFor(kind);
            weight.put(t.name(), w);
            sum += w;
        }
        double perDay = kind.volume().value() * spec.capacityGpuHours() / spec.days();
        Map<String, Double> out = new LinkedHashMap<>();
        for (Map.Entry<String, Double> e : weight.entrySet()) {
            out.put(e.getKey(), perDay * spec.backlogDays() * e.getValue() / sum);
        }
        return out;
    }

    private static List<WorkloadSpec> atStart(GeneratedScenario g) {
        return g.workloads().stream().filter(w -> w.submitSeconds() == 0).toList();
    }

    /** The workloads of {@code all} left once each of {@code some} is taken out once (compared without ids). */
    private static List<WorkloadSpec> minus(List<WorkloadSpec> all, List<WorkloadSpec> some) {
        Map<String, Integer> left = new HashMap<>();
        for (WorkloadSpec w : some) {
            left.merge(key(w), 1, Integer::sum);
        }
        List<WorkloadSpec> out = new ArrayList<>();
        for (WorkloadSpec w : all) {
            Integer n = left.get(key(w));
            if (n == null) {
                out.add(w);
            } else if (n == 1) {
                left.remove(key(w));
            } else {
                left.put(key(w), n - 1);
            }
        }
        assertThat(left).as("workloads of the timeline missing once the backlog is added").isEmpty();
        return out;
    }

    private static List<String> keys(List<WorkloadSpec> ws) {
        return ws.stream().map(GeneratorBacklogTest::key).toList();
    }

    /** A workload without its id (ids follow global submission order, so the backlog shifts them). */
    private static String key(WorkloadSpec w) {
        return w.submitSeconds() + "," + w.allocation() + "," + w.user() + "," + w.gpus() + "," + w.gpusPerNode() + ","
                + w.duration() + "," + w.minRuntime() + "," + w.resumable() + "," + w.checkpointEvery() + ","
                + w.priority() + "," + w.kind();
    }
}
