package dev.allot.sim.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How much work {@code lab} offers, from whom and when. */
class GeneratorLabLoadTest {
    private static final GeneratorSpec LAB = GeneratorSpec.preset("lab");
    private static final int DAYS = 14;
    private static GeneratedScenario lab;

    @BeforeAll
    static void generate() {
        lab = ScenarioGenerator.generate(LAB, 1);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void allocatedWorkWithItsBacklogOffersJustUnderTheClusterAndSweepsATenthMore(long seed) {
        GeneratedScenario g = ScenarioGenerator.generate(LAB, seed);

        assertThat(LAB.capacityGpuHours()).isEqualTo(256 * 336.0);
        // about 1 (below it for these seeds, 0.86-1.03 over seeds 1-30); the backlog and bursts keep it overloaded
        assertThat(LoadStats.allocatedLoad(g, DAYS)).isBetween(0.8, 1.0);
        assertThat(LoadStats.unallocatedLoad(g, DAYS)).isBetween(0.06, 0.16);
        Map<String, Double> load = LoadStats.loadByKind(g, DAYS);
        // a budget of 0.68 plus two days of it at time 0 (0.097)
        assertThat(load.get("train")).isBetween(0.62, 0.86);
        assertThat(load.get("interactive")).isBetween(0.05, 0.12);
        // 5 jobs per GPU-day: 0.086-0.091 over seeds 1-30
        assertThat(load.get("debug")).isBetween(0.07, 0.11);
        assertThat(load.get("eval")).isBetween(0.02, 0.07);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void theBacklogOpensAboveTheClusterAndTheOfferedDemandThenSwingsAroundIt(long seed) {
        GeneratedScenario g = ScenarioGenerator.generate(LAB, seed);
        double[] ratios = LoadStats.offeredRatios(g, DAYS);
        double[] afterDayOne = Arrays.copyOfRange(ratios, 24, ratios.length);

        // if every workload ran from its submission: a floor on the GPUs asked for by waiting and running work
        assertThat(ratios[0]).as("hour 0, the backlog").isGreaterThan(1.5);
        assertThat(LoadStats.percentile(afterDayOne, 0.5)).isBetween(0.7, 1.1);
        assertThat(LoadStats.percentile(afterDayOne, 0.9)).isBetween(1.3, 2.5);
        assertThat(LoadStats.percentile(afterDayOne, 0.1)).isLessThan(0.5);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void allocatedWorkIsLeftWaitingMostHoursYetTheQueueDrainsAtTimes(long seed) {
        GeneratedScenario g = ScenarioGenerator.generate(LAB, seed);
        double[] floor = LoadStats.unfinishedFloor(g, DAYS);

        long waiting = Arrays.stream(floor).filter(q -> q > 0).count();
        // overloaded most of the time (81-98% of the hours over seeds 1-30), yet it drains for a few hours at least
        assertThat(waiting / (double) floor.length).isBetween(0.7, 0.99);
        assertThat(floor[0]).as("the backlog left after hour 0, in cluster-days").isGreaterThan(0.4);
        assertThat(Arrays.stream(floor).max().orElseThrow()).isLessThan(3.5);
    }
    @Test
    void theCsvStaysUnderTwoMegabytes() {
        assertThat(LoadStats.csvBytes(lab)).isLessThan(2_000_000L);
    }

    @Test
    void heavyTeamsOfferMoreThanTheirEntitlementAndLightOnesLess() {
        AllocationTree tree = lab.tree();
        Map<String, Double> relative = new HashMap<>();
        for (WorkloadSpec w : lab.workloads()) {
            if (w.allocated()) {
                relative.merge(w.allocation(), LoadStats.gpuHours(w), Double::sum);
            }
        }
        relative.replaceAll((team, gpuHours) -> gpuHours / LAB.capacityGpuHours()
                / tree.leafEntitlement(tree.leaf(team).orElseThrow()));
        double allocated = LoadStats.allocatedLoad(lab, DAYS);

        // on their own, the heavy teams ask for more than their entitlement of the cluster
        assertThat(relative.get("pretrain")).isGreaterThan(1.5);
        assertThat(relative.get("multimodal")).isGreaterThan(1.1);
        // and for a larger part of the offered work than of the tree; light teams for a smaller one
        assertThat(relative.get("pretrain") / allocated).isGreaterThan(1.7);
        assertThat(relative.get("multimodal") / allocated).isGreaterThan(1.2);
        for (String light : List.of("data", "interp", "infra")) {
            assertThat(relative.get(light) / allocated).as(light).isLessThan(0.6);
        }
    }

    @Test
    void burstyTeamsGoQuietThenSubmitSeveralTimesTheirUsualDay() {
        for (String team : List.of("scaling", "speech", "rl")) {
            long[] perDay = submissionsPerDay(team);
            double mean = Arrays.stream(perDay).average().orElse(0);
            boolean found = false;
            for (int d = 2; d < DAYS; d++) {
                found |= perDay[d] >= 2 * mean && perDay[d - 1] <= 0.3 * mean && perDay[d - 2] <= 0.3 * mean;
            }
            assertThat(found).as("%s per day: %s", team, Arrays.toString(perDay)).isTrue();
        }
        for (String team : List.of("pretrain", "multimodal", "vision")) {
            long[] perDay = submissionsPerDay(team);
            double mean = Arrays.stream(perDay).average().orElse(0);
            assertThat(Arrays.stream(perDay).max().orElse(0)).as(team).isLessThan((long) (1.8 * mean));
        }
    }

    @Test
    void debugFollowsTheWorkingDayAndTheWorkingWeek() {
        long[] byHour = new long[24];
        long weekday = 0;
        long weekend = 0;
        for (WorkloadSpec w : lab.workloads()) {
            if (!w.kind().equals("debug") || Set.of("scaling", "speech", "rl").contains(w.allocation())) {
                continue; // bursts ignore the weekend
            }
            long day = w.submitSeconds() / 86_400;
            if (TimeProfile.isWeekend(day)) {
                weekend++;
            } else {
                weekday++;
                byHour[(int) (w.submitSeconds() / 3600 % 24)]++;
            }
        }
        double office = Arrays.stream(byHour, 9, 18).average().orElse(0);
        double night = Arrays.stream(byHour, 0, 7).average().orElse(0);
        assertThat(office).isGreaterThan(8 * night);
        // 10 weekdays and 4 weekend days
        assertThat((weekend / 4.0) / (weekday / 10.0)).isBetween(0.1, 0.35);
    }

    /** Submissions of a team per day, a sweep batch counting once (its workloads follow each other within 3 s). */
    private static long[] submissionsPerDay(String team) {
        long[] out = new long[DAYS];
        long lastSweep = Long.MIN_VALUE / 2;
        for (WorkloadSpec w : lab.workloads()) {
            if (!w.allocation().equals(team)) {
                continue;
            }
            if (w.kind().equals("sweep")) {
                boolean sameBatch = w.submitSeconds() - lastSweep <= 3;
                lastSweep = w.submitSeconds();
                if (sameBatch) {
                    continue;
                }
            }
            out[(int) (w.submitSeconds() / 86_400)]++;
        }
        return out;
    }
}
