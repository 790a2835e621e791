package dev.allot.sim.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The accuracy measure compares forecasts with the starts the same run actually gave: a forecast that knows the
 * true future has no error at all, and Allot's own forecasts and the baseline are measured on the same workloads.
 *
 * <p>It runs beside the module's other tests ({@code @Execution(CONCURRENT)}, see {@code junit-platform.properties}):
 * about 30 s of simulation on one thread that shares nothing with them.
 */
@Execution(ExecutionMode.CONCURRENT)
class ForecastAccuracyTest {
    private static final Scenario LAB = ScenarioGenerator.generate(GeneratorSpec.preset("lab").withDays(3), 11)
            .toScenario("lab-3d");

    @Test
    void aForecastThatKnowsTheTrueFutureHasNoErrorAtAll() {
        DurationModel truth = new DurationModel() {
            @Override
            public long drawSeconds(WorkloadSpec spec, long doneSeconds, SplittableRandom random) {
                return spec.duration().getSeconds();
            }

            @Override
            public String basis(WorkloadSpec spec) {
                return "the truth";
            }
        };
        ArrivalModel future = new ArrivalModel() {
            @Override
            public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                           SplittableRandom random) {
                List<WorkloadSpec> out = new ArrayList<>();
                for (WorkloadSpec w : LAB.workloads()) {
                    if (w.submitSeconds() > now && w.submitSeconds() <= untilSeconds) {
                        out.add(w);
                    }
                }
                return out;
            }

            @Override
            public String basis(long now) {
                return "the truth";
            }
        };
        DurationHistory unused = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        ForecastAccuracy.Measure m = ForecastAccuracy.with("oracle", LAB, PolicyRegistry.standard(), "allocation",
                ForecastSettings.defaults().withRuns(1), 10, truth, unused, future, new RecentArrivals());

        assertThat(m.samples()).isGreaterThan(200);
        assertThat(m.medianAbsErrorSeconds()).isZero();
        assertThat(m.p90AbsErrorSeconds()).isZero();
        // some of them waited, so a zero error is not just "everything starts at once"
        assertThat(m.byWait().subList(1, m.byWait().size()).stream().mapToInt(ForecastAccuracy.WaitClass::samples).sum())
                .isGreaterThan(20);
    }

    @Test
    void allotAndTheBaselineAreMeasuredOnTheSameSampledWorkloads() {
        ForecastSettings settings = ForecastSettings.defaults().withRuns(2);
        ForecastAccuracy.Measure allot =
                ForecastAccuracy.allot(LAB, PolicyRegistry.standard(), "allocation", settings, 20, true);
        ForecastAccuracy.Measure slurm = ForecastAccuracy.slurmBaseline(LAB, PolicyRegistry.standard(), settings, 20);

        assertThat(allot.samples() + allot.neverStarted()).isEqualTo(slurm.samples() + slurm.neverStarted())
                .isGreaterThan(100);
        assertThat(allot.coverage()).isBetween(0.0, 1.0);
        assertThat(slurm.coverage()).isNaN(); // a single plan has no band
        assertThat(allot.byWait().stream().mapToInt(ForecastAccuracy.WaitClass::samples).sum()).isEqualTo(allot.samples());
        ForecastAccuracy.Comparison c = new ForecastAccuracy.Comparison("lab-3d", allot, slurm);
        assertThat(c.table()).contains("allot forecast", "slurm plan at submission", "goal: median |err|");
    }
}
