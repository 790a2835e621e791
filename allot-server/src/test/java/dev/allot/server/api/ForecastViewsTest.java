package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.forecast.LiveForecast;
import dev.allot.sim.forecast.Forecast;
import dev.allot.sim.forecast.ForecastSettings;
import dev.allot.sim.forecast.Forecasts;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How a forecast reads in the API and its sentences: within the horizon, a band that reaches past it, and after it. */
class ForecastViewsTest {
    static final long MADE = 1_772_441_400L; // 2026-03-02T08:50:00Z
    static final long END = MADE + 2 * 86_400;

    private static LiveForecast live(Forecast... fs) {
        Map<String, Forecast> by = new java.util.LinkedHashMap<>();
        for (Forecast f : fs) {
            by.put(f.workloadId(), f);
        }
        return new LiveForecast(new Forecasts(MADE, END, 10, by, "no new work (less than a day of history)", 0, 0),
                ForecastSettings.defaults(), "allocation (defaults)", Duration.ofHours(1), 0, 1_000_000, 2_000_000);
    }

    @Test
    void aStartWithinTheHorizonReadsAsItsMedianAndBand() {
        LiveForecast l = live(new Forecast("w-1", MADE, MADE + 600, MADE + 3_600, MADE + 7_200, END, "declared"));
        ForecastViews.WorkloadForecast f = ForecastViews.of(Optional.of(l), "w-1").orElseThrow();
        assertThat(f.likelyStart()).isEqualTo("2026-03-02T09:50:00.000Z");
        assertThat(f.low()).isEqualTo("2026-03-02T09:00:00.000Z");
        assertThat(f.high()).isEqualTo("2026-03-02T10:50:00.000Z");
        assertThat(ForecastViews.sentence(f)).isEqualTo("Forecast (made at 2026-03-02T08:50:00.000Z from 10 futures"
                + " played with the policy allocation (defaults)): likely to start at 2026-03-02T09:50:00.000Z, p10-p90"
                + " 2026-03-02T09:00:00.000Z to 2026-03-02T10:50:00.000Z. It assumes its own duration from: declared; running"
                + " and waiting work runs as long as it declared, else as long as work like it ran, finished or still"
                + " running (as running at least as long as it has; same user, allocation, kind and GPUs, then"
                + " broader; 0 finished runs known), else 1h; new work: no new"
                + " work (less than a day of history).");
        assertThat(ForecastViews.about(l).snapshotSeconds()).isEqualTo(0.001);
        assertThat(ForecastViews.about(l).band()).isEqualTo("p10-p90");
    }

    @Test
    void oneFinishedRunLearntFromReadsAsOneRunNotOneRuns() {
        // given a forecast that learnt durations from one finished run (a new service's first completion)
        LiveForecast one = new LiveForecast(new Forecasts(MADE, END, 10, Map.of(), "no new work", 0, 0),
                ForecastSettings.defaults(), "allocation (defaults)", Duration.ofHours(1), 1, 1_000_000, 2_000_000);
        LiveForecast two = new LiveForecast(one.forecasts(), one.settings(), one.policy(), one.defaultDuration(), 2,
                1_000_000, 2_000_000);

        // then its assumptions say "1 finished run known": allot explain said "1 finished runs known"
        assertThat(ForecastViews.shared(one, "declared").runningWork()).contains("; 1 finished run known), else 1h");
        assertThat(ForecastViews.shared(two, "declared").runningWork()).contains("; 2 finished runs known), else 1h");
    }

    @Test
    void aBandOrAStartPastTheHorizonSaysAfterIt() {
        LiveForecast l = live(new Forecast("w-1", MADE, MADE + 600, MADE + 3_600, Long.MAX_VALUE, END, "declared"),
                new Forecast("w-2", MADE, MADE + 600, Long.MAX_VALUE, Long.MAX_VALUE, END, "default 1h"));
        ForecastViews.WorkloadForecast late = ForecastViews.of(Optional.of(l), "w-1").orElseThrow();
        assertThat(late.high()).isNull();
        assertThat(ForecastViews.sentence(late))
                .contains("p10-p90 2026-03-02T09:00:00.000Z to after 2026-03-04T08:50:00.000Z.");
        ForecastViews.WorkloadForecast after = ForecastViews.of(Optional.of(l), "w-2").orElseThrow();
        assertThat(after.withinHorizon()).isFalse();
        assertThat(after.likelyStart()).isNull();
        assertThat(ForecastViews.sentence(after)).contains("likely to start after 2026-03-04T08:50:00.000Z (the end of what"
                + " the forecast looks at).");
        assertThat(ForecastViews.band(l.of("w-2").orElseThrow()).withinHorizon()).isFalse();
        assertThat(ForecastViews.of(Optional.of(l), "w-3")).isEmpty();
        assertThat(ForecastViews.of(Optional.empty(), "w-1")).isEmpty();
    }
}
