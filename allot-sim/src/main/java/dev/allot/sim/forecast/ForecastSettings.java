package dev.allot.sim.forecast;

import java.time.Duration;

/**
 * How a forecast is made.
 *
 * @param runs    futures played (more: a steadier band, proportionally slower)
 * @param horizon how far each run looks; a start beyond it is reported as "after" it
 * @param low     the band's lower quantile (0.1: p10)
 * @param high    the band's upper quantile (0.9: p90)
 * @param seed    the seed of the draws; same state, same seed, same forecast
 */
public record ForecastSettings(int runs, Duration horizon, double low, double high, long seed) {
    public ForecastSettings {
        if (runs < 1) {
            throw new IllegalArgumentException("a forecast needs at least one run, not " + runs);
        }
        if (horizon.isNegative() || horizon.isZero()) {
            throw new IllegalArgumentException("the forecast horizon must be positive, not " + horizon);
        }
        if (!(0 <= low && low <= 0.5 && 0.5 <= high && high <= 1)) {
            throw new IllegalArgumentException("the band must be quantiles low <= 0.5 <= high in [0, 1], not " + low
                    + " and " + high);
        }
    }

    public static ForecastSettings defaults() {
        return new ForecastSettings(10, Duration.ofDays(2), 0.1, 0.9, 1);
    }

    public ForecastSettings withRuns(int value) {
        return new ForecastSettings(value, horizon, low, high, seed);
    }

    public ForecastSettings withHorizon(Duration value) {
        return new ForecastSettings(runs, value, low, high, seed);
    }

    public ForecastSettings withSeed(long value) {
        return new ForecastSettings(runs, horizon, low, high, value);
    }
}
