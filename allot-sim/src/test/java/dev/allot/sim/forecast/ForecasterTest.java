package dev.allot.sim.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Start forecasts on stories whose answer is known by hand, and a band that covers as often as it says. */
class ForecasterTest {
    private static final PolicyFactory ALLOCATION = PolicyRegistry.standard().get("allocation");
    private static final AllocationTree TREE = AllocationTree.builder("lab").leaf("a", 1).leaf("b", 1).build();

    private static ClusterState oneNodeOf8() {
        return new ClusterState(new ClusterSpec(List.of(NodeSpec.of("n1", 8)), List.of()), TREE,
                SchedulerConfig.defaults(), 0);
    }

    private static WorkloadSpec job(String id, String team, long submit, Duration duration) {
        return WorkloadSpec.builder(id).submitAt(submit).allocation(team).user("u-" + team).gpus(8)
                .duration(duration).minRuntime(Duration.ofMinutes(30)).kind("train").build();
    }

    private static ClusterState threeNodesOf8() {
        return new ClusterState(new ClusterSpec(List.of(NodeSpec.of("n1", 8), NodeSpec.of("n2", 8),
                NodeSpec.of("n3", 8)), List.of()), TREE, SchedulerConfig.defaults(), 0);
    }

    /** A job of {@code gpus} GPUs with any packing, protected for 30 minutes. */
    private static WorkloadSpec job(String id, String team, long submit, int gpus, Duration duration) {
        return WorkloadSpec.builder(id).submitAt(submit).allocation(team).user("u-" + team).gpus(gpus)
                .duration(duration).minRuntime(Duration.ofMinutes(30)).kind("train").build();
    }

    /** Registers, submits and starts {@code spec} now on {@code nodes} with {@code gpus} on each. */
    private static void runs(ClusterState s, WorkloadSpec spec, int[] nodes, int[] gpus) {
        Job j = s.register(spec);
        s.submit(j, s.now());
        s.start(j, new Placement(nodes, gpus), s.now());
    }

    private static Forecaster forecaster(int runs) {
        return new Forecaster(ALLOCATION, dev.allot.core.policy.Settings.defaults(ALLOCATION.settings()), ForecastSettings.defaults().withRuns(runs));
    }

    /** Every workload declares its duration: the forecast is certain. */
    private static final DurationHistory DECLARED = new DurationHistory(Duration.ofHours(1),
            s -> OptionalLong.of(s.duration().getSeconds()));

    @Test
    void givenOneNodeBusyForAnHourThenTheNextTwoEightGpuJobsStartWhenTheWorkBeforeThemEnds() {
        // given 1x8 GPUs, team a's job running since 0 for 1 h, and at 10 min two more of a's jobs waiting: 2 h, then
        // 30 min (one allocation: no preemption among them, first come first served)
        ClusterState s = oneNodeOf8();
        Job running = s.register(job("a-run", "a", 0, Duration.ofHours(1)));
        s.submit(running, 0);
        s.start(running, new Placement(new int[] {0}, new int[] {8}), 0);
        s.advanceTo(600);
        s.submit(s.register(job("a-1", "a", 600, Duration.ofHours(2))), 600);
        s.submit(s.register(job("a-2", "a", 600, Duration.ofMinutes(30))), 600);

        Forecasts f = forecaster(5).forecast(s, TREE, Set.of(), DECLARED, ArrivalModel.NONE);

        // then the next starts when the running hour ends, and the last when the next one's two hours end; the band
        // is a point, as every duration is declared
        assertThat(f.of("a-1").orElseThrow()).extracting(Forecast::lowSeconds, Forecast::medianSeconds,
                Forecast::highSeconds).containsExactly(3_600L, 3_600L, 3_600L);
        assertThat(f.of("a-2").orElseThrow().medianSeconds()).isEqualTo(3_600L + 7_200);
        assertThat(f.of("a-2").orElseThrow().durationBasis()).isEqualTo("declared");
        assertThat(f.arrivalsBasis()).isEqualTo("no new work");
        // and the live state is untouched
        assertThat(s.now()).isEqualTo(600);
        assertThat(running.state()).isEqualTo(dev.allot.core.state.JobState.RUNNING);
        assertThat(s.pending().total()).isEqualTo(2);
    }

    @Test
    void givenAnUnhealthyHostWorkThatFitsTheHealthyOnesIsForecastToStartWhenTheirWorkEnds() {
        // given 3x8 GPUs with n3 unhealthy (empty), a's job on n1+n2 for 1 h, and b's 12-GPU job waiting
        ClusterState s = threeNodesOf8();
        s.setHealthy(2, false, 0);
        runs(s, job("a-run", "a", 0, 16, Duration.ofHours(1)), new int[] {0, 1}, new int[] {8, 8});
        s.advanceTo(600);
        s.submit(s.register(job("b-12", "b", 600, 12, Duration.ofHours(1))), 600);

        Forecasts f = forecaster(3).forecast(s, TREE, Set.of(), DECLARED, ArrivalModel.NONE);

        // then it starts when a's hour ends, on the 16 healthy GPUs (a new user saw "after the horizon")
        assertThat(f.of("b-12").orElseThrow().startsWithinHorizon()).isTrue();
        assertThat(f.of("b-12").orElseThrow().medianSeconds()).isLessThanOrEqualTo(3_600L);
    }

    @Test
    void givenADrainingHostWorkThatFitsTheHealthyOnesIsForecastToStartWhenTheirWorkEnds() {
        // given 3x8 GPUs: a's job on n1+n3 for 1 h, then n3 unhealthy (draining), and b's 12-GPU job waiting
        ClusterState s = threeNodesOf8();
        runs(s, job("a-run", "a", 0, 16, Duration.ofHours(1)), new int[] {0, 2}, new int[] {8, 8});
        runs(s, job("a-small", "a", 0, 4, Duration.ofHours(3)), new int[] {1}, new int[] {4});
        s.advanceTo(600);
        s.setHealthy(2, false, 600);
        s.submit(s.register(job("b-12", "b", 600, 12, Duration.ofHours(1))), 600);

        Forecasts f = forecaster(3).forecast(s, TREE, Set.of(), DECLARED, ArrivalModel.NONE);

        // then it starts on n1+n2 once a's job is drained (its protection ends at 30 min) or ends
        assertThat(f.of("b-12").orElseThrow().startsWithinHorizon()).isTrue();
        assertThat(f.of("b-12").orElseThrow().medianSeconds()).isLessThanOrEqualTo(3_600L);
    }

    @Test
    void aStartBeyondTheHorizonIsReportedAsAfterIt() {
        ClusterState s = oneNodeOf8();
        Job running = s.register(job("a-run", "a", 0, Duration.ofDays(5)));
        s.submit(running, 0);
        s.start(running, new Placement(new int[] {0}, new int[] {8}), 0);
        s.submit(s.register(job("b-next", "a", 0, Duration.ofHours(1))), 0);
        Forecasts f = new Forecaster(ALLOCATION, dev.allot.core.policy.Settings.defaults(ALLOCATION.settings()),
                ForecastSettings.defaults().withRuns(3).withHorizon(Duration.ofDays(1)))
                .forecast(s, TREE, Set.of(), DECLARED, ArrivalModel.NONE);
        Forecast b = f.of("b-next").orElseThrow();
        assertThat(b.startsWithinHorizon()).isFalse();
        assertThat(b.horizonEndSeconds()).isEqualTo(86_400);
        assertThat(b.covers(5 * 86_400)).isTrue();
        assertThat(b.covers(3_600)).isFalse();
    }

    /**
     * Seeded random trials: the running job's true duration and the history both come from one log-normal law, and
     * the band from 40 runs must hold the true start about 80% of the time (p10-p90), not always and not rarely.
     */
    @Test
    void theBandHoldsTheActualStartAboutEightyPercentOfTheTime() {
        SplittableRandom truth = new SplittableRandom(20261202);
        int trials = 300;
        int covered = 0;
        for (int t = 0; t < trials; t++) {
            DurationHistory history = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
            for (int i = 0; i < DurationHistory.KEEP; i++) {
                history.learn(job("h" + i, "a", 0, Duration.ofHours(1)), logNormalSeconds(truth));
            }
            long actualDuration = logNormalSeconds(truth);
            ClusterState s = oneNodeOf8();
            Job running = s.register(job("a-run", "a", 0, Duration.ofSeconds(actualDuration)));
            s.submit(running, 0);
            s.start(running, new Placement(new int[] {0}, new int[] {8}), 0);
            s.submit(s.register(job("b-next", "a", 0, Duration.ofHours(1))), 0);
            Forecast f = new Forecaster(ALLOCATION, dev.allot.core.policy.Settings.defaults(ALLOCATION.settings()), ForecastSettings.defaults().withRuns(40)
                    .withSeed(t)).forecast(s, TREE, Set.of("b-next"), history, ArrivalModel.NONE)
                    .of("b-next").orElseThrow();
            if (f.covers(actualDuration)) {
                covered++;
            }
        }
        assertThat(covered / (double) trials).isBetween(0.72, 0.88);
    }

    private static long logNormalSeconds(SplittableRandom r) {
        double z = Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
        return Math.max(60, Math.round(Math.exp(Math.log(3_600) + 0.8 * z)));
    }
}
