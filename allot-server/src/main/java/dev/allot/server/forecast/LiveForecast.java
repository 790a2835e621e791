package dev.allot.server.forecast;

import dev.allot.sim.forecast.Forecast;
import dev.allot.sim.forecast.ForecastSettings;
import dev.allot.sim.forecast.Forecasts;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The latest forecast of the live service, as published: the forecast itself ({@link Forecasts}: a band of starts per
 * waiting workload, with what new work it expected) and what else it assumed and cost.
 *
 * @param forecasts        the forecast; times are seconds since the epoch (the core's clock)
 * @param settings         how it was made (runs, horizon, the band's quantiles)
 * @param policy           the policy it played, in words (name and where its settings came from)
 * @param defaultDuration  what work that declared no duration and has no history like it was assumed to run
 * @param finishedLearnt   finished workloads whose running times the duration history holds
 * @param snapshotNanos    how long taking the snapshot held the scheduling loop
 * @param forecastNanos    how long the forecast took, off the loop
 */
public record LiveForecast(Forecasts forecasts, ForecastSettings settings, String policy, Duration defaultDuration,
                           int finishedLearnt,
                           long snapshotNanos, long forecastNanos) {
    public LiveForecast {
        Objects.requireNonNull(forecasts, "forecasts");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(defaultDuration, "defaultDuration");
    }

    /** The forecast of one waiting workload, if it was waiting in the scheduler's state when the forecast was made. */
    public Optional<Forecast> of(String workloadId) {
        return forecasts.of(workloadId);
    }
}
