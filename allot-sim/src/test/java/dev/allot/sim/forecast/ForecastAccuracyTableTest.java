package dev.allot.sim.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison's text table, on measures made by hand: what each wait class's row says. */
class ForecastAccuracyTableTest {

    private static ForecastAccuracy.WaitClass waitClass(String name, int samples, long absErrorSeconds,
                                                        long biasSeconds, double coverage) {
        return new ForecastAccuracy.WaitClass(name, samples, absErrorSeconds, biasSeconds, coverage);
    }

    @Test
    void givenAWaitClassWithoutSamples_whenTabulated_thenItsErrorsAreDashesNotZeroSeconds() {
        // allot had no workload that waited 10m-1h; the baseline had 4 (its own run, its own waits)
        ForecastAccuracy.Measure allot = new ForecastAccuracy.Measure("allot forecast", "allocation", 3, 0, 0, 60, 1.0,
                List.of(waitClass("< 1m", 2, 0, 0, 1.0), waitClass("1m-10m", 1, 60, -60, 1.0),
                        waitClass("10m-1h", 0, 0, 0, Double.NaN)),
                10, 3, new ForecastAccuracy.BandSplit(2, 1.0, 1, 1.0));
        ForecastAccuracy.Measure baseline = new ForecastAccuracy.Measure("slurm plan at submission", "slurm", 6, 0, 120,
                900, Double.NaN, List.of(waitClass("< 1m", 1, 0, 0, Double.NaN),
                        waitClass("1m-10m", 1, 120, 120, Double.NaN), waitClass("10m-1h", 4, 818, -818, Double.NaN)),
                1, 6, new ForecastAccuracy.BandSplit(0, Double.NaN, 0, Double.NaN));

        String table = new ForecastAccuracy.Comparison("hand", allot, baseline).table();

        assertThat(table).as("it printed 0s / 13m38s and +0s, errors of forecasts that were never made")
                .contains("  10m-1h       0 / 4             - / 13m38s             -        -\n")
                .contains("  1m-10m       1 / 1            1m / 2m               -1m   100.0%\n")
                .contains("  < 1m         2 / 1            0s / 0s               +0s   100.0%\n");
    }

    @Test
    void givenNoSamples_whenTabulated_thenErrorsAreDashesAndNoGoalIsMet() {
        List<ForecastAccuracy.WaitClass> none = List.of(waitClass("< 1m", 0, 0, 0, Double.NaN));
        ForecastAccuracy.BandSplit noSplit = new ForecastAccuracy.BandSplit(0, Double.NaN, 0, Double.NaN);
        ForecastAccuracy.Measure allot = new ForecastAccuracy.Measure("allot forecast", "allocation", 0, 0, 0, 0,
                Double.NaN, none, 0, 0, noSplit);
        ForecastAccuracy.Measure baseline = new ForecastAccuracy.Measure("slurm plan at submission", "slurm", 0, 0, 0,
                0, Double.NaN, none, 0, 0, noSplit);

        String table = new ForecastAccuracy.Comparison("empty", allot, baseline).table();

        assertThat(table).as("it printed 0s errors and 'median |err| <= 1/3 of the baseline's: met' with nothing measured")
                .contains("allot forecast             allocation         0             -           -          -\n")
                .contains("goal: median |err| <= 1/3 of the baseline's: no samples; band holds 80% +/- 5%: no samples (-);"
                        + " of the starts forecast to wait: no samples (-)\n");
    }

    @Test
    void givenMostWorkForecastToStartAtOnce_whenTabulated_thenTheBandGoalIsJudgedOverallAndOnTheWaitsApart() {
        // 600 forecasts "starts at once" that came true (their band [now, now] holds them whatever its level) and
        // 313 forecasts of a wait whose bands held 256 (81.8%): 856 of 913 overall, 93.8%
        List<ForecastAccuracy.WaitClass> classes = List.of(waitClass("< 1m", 913, 0, 0, 856 / 913.0));
        ForecastAccuracy.Measure allot = new ForecastAccuracy.Measure("allot forecast", "allocation", 913, 0, 0, 60,
                856 / 913.0, classes, 10, 913, new ForecastAccuracy.BandSplit(600, 1.0, 313, 256 / 313.0));
        ForecastAccuracy.Measure baseline = new ForecastAccuracy.Measure("slurm plan at submission", "slurm", 913, 0,
                210, 900, Double.NaN, classes, 1, 913, new ForecastAccuracy.BandSplit(0, Double.NaN, 0, Double.NaN));

        ForecastAccuracy.Comparison c = new ForecastAccuracy.Comparison("hand", allot, baseline);

        assertThat(c.bandGoalMet()).isFalse();
        assertThat(c.waitBandGoalMet()).isTrue();
        assertThat(c.table()).contains("band holds 80% +/- 5%: NOT met (93.8%); of the starts forecast to wait: met"
                + " (81.8%)\n");
    }
}
