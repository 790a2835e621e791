package dev.allot.sim.forecast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.model.AllocationTree;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Durations learnt from finished work and from work still running (Kaplan-Meier), worked by hand. */
class SurvivalSampleTest {
    @Test
    void givenARunStillGoingItsWeightPassesInEqualPartsToTheLongerRuns() {
        // given finished runs of 1, 2, 3 and 4 hours and one still going at 1.5 h: each weighs 1/5, and the one going
        // passes its 1/5 to the three longer runs, so the mean is 1 x 0.2 + (2 + 3 + 4) x 0.2667 = 2.6 h
        SurvivalSample s = SurvivalSample.of(new long[] {3_600, 7_200, 10_800, 14_400}, new long[] {5_400});
        assertThat(s.meanSeconds()).isCloseTo(2.6 * 3_600, within(1.0));
        // without it, the plain mean 2.5 h
        assertThat(SurvivalSample.of(new long[] {3_600, 7_200, 10_800, 14_400}, new long[0]).meanSeconds())
                .isCloseTo(2.5 * 3_600, within(1.0));
    }

    @Test
    void runsStillGoingBeyondEveryFinishedOneAreDrawnAsRunningHalfAsLongAgain() {
        // given 10 finished 1-hour runs and 10 still going at 5 hours: half the draws are 1 h, half 7.5 h
        long[] finished = new long[10];
        long[] going = new long[10];
        java.util.Arrays.fill(finished, 3_600);
        java.util.Arrays.fill(going, 5 * 3_600);
        SurvivalSample s = SurvivalSample.of(finished, going);
        SplittableRandom r = new SplittableRandom(7);
        int longOnes = 0;
        for (int i = 0; i < 2_000; i++) {
            long d = s.draw(0, r);
            assertThat(d).isIn(3_600L, 27_000L);
            if (d == 27_000) {
                longOnes++;
            }
        }
        assertThat(longOnes / 2_000.0).isBetween(0.45, 0.55);
        // and a draw for work that has run 2 hours comes from beyond it only
        assertThat(s.draw(7_200, r)).isEqualTo(27_000);
        // and beyond everything known: half as long again
        assertThat(s.draw(40_000, r)).isEqualTo(60_000);
    }

    @Test
    void givenTheGroupsLongWorkStillRunningThenAForecastDrawsItAsLongAsItHasRunAtLeast() {
        // given a history of 10 finished 1-hour runs of team a's 8-GPU jobs, and a state in which one of a's 8-GPU jobs
        // has run 5 hours and goes on
        DurationHistory history = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        for (int i = 0; i < 10; i++) {
            history.learn(job("h" + i, 0), 3_600, 0, 3_600);
        }
        ClusterState s = new ClusterState(new ClusterSpec(List.of(NodeSpec.of("n1", 8)), List.of()),
                AllocationTree.builder("lab").leaf("a", 1).build(), SchedulerConfig.defaults(), 0);
        Job running = s.register(job("long", 0));
        s.submit(running, 0);
        s.start(running, new Placement(new int[] {0}, new int[] {8}), 0);
        s.advanceTo(5 * 3_600);
        WorkloadSpec waiting = job("next", 5 * 3_600);
        SplittableRandom r = new SplittableRandom(3);
        // then without the state every draw is an hour; given it, 1 in 11 draws is 7.5 hours
        int longOnes = 0;
        DurationModel given = history.given(s);
        for (int i = 0; i < 2_200; i++) {
            assertThat(history.drawSeconds(waiting, 0, r)).isEqualTo(3_600);
            if (given.drawSeconds(waiting, 0, r) == 27_000) {
                longOnes++;
            }
        }
        assertThat(longOnes / 2_200.0).isBetween(0.06, 0.12);
        assertThat(given.basis(waiting)).endsWith("and 1 still running");
    }

    private static WorkloadSpec job(String id, long submit) {
        return WorkloadSpec.builder(id).submitAt(submit).allocation("a").user("u").gpus(8)
                .duration(Duration.ofHours(100)).minRuntime(Duration.ofMinutes(30)).kind("train").build();
    }
}
