package dev.allot.server.api;

import dev.allot.core.model.Durations;
import dev.allot.server.forecast.LiveForecast;
import dev.allot.sim.forecast.Forecast;
import dev.allot.sim.forecast.Forecasts;
import java.util.Locale;
import java.util.Optional;

/**
 * How the API shows a forecast of a waiting workload's start ({@link LiveForecast}): in its explanation
 * ({@code forecast}), in the queue (each entry's {@code forecast}, what the forecast assumed once) and in
 * {@code GET /v1/forecasts}. Times are ISO-8601 instants; a start the forecast's runs did not reach within their
 * horizon is null, with {@code withinHorizon} false and the horizon's end to say "after" it. What it assumed is always
 * given with it, in words: a forecast is only as good as its assumptions.
 */
final class ForecastViews {
    private ForecastViews() {
    }

    /**
     * What a forecast assumed.
     *
     * @param duration        what the workload's own duration rests on (declared, the history of similar work, or
     *                        the default); null in the queue's and the list's shared part
     * @param runningWork     how the other work's durations were taken
     * @param newWork         what new work the runs expected
     * @param policy          the policy played, and where its settings came from
     */
    record Assumptions(String duration, String runningWork, String newWork, String policy) {
    }

    /** One workload's forecast, whole (the explanation's). */
    record WorkloadForecast(String madeAt, boolean withinHorizon, String likelyStart, String low, String high,
                            String band, String horizonEnd, int runs, Assumptions assumptions) {
    }

    /** One workload's forecast in a list, whose shared part ({@link About}) is given once. */
    record Band(boolean withinHorizon, String likelyStart, String low, String high, String duration) {
    }

    /**
     * What every forecast of one moment shares: when it was made, how far it looked, how many futures, the band's
     * quantiles, what it assumed, and what it cost (the snapshot held the scheduling loop; the forecast ran off it).
     */
    record About(String madeAt, String horizonEnd, int runs, String band, Assumptions assumptions,
                 double snapshotSeconds, double forecastSeconds) {
    }

    /** One entry of {@code GET /v1/forecasts}. */
    record Entry(String id, String allocation, String user, int gpus, Band forecast) {
    }

    /** The answer of {@code GET /v1/forecasts}; {@code forecast} null when there is none (yet, or off). */
    record ForecastList(boolean forecasting, About forecast, int waiting, java.util.List<Entry> forecasts) {
    }

    /** The band's name, from the forecast's quantiles (the service's: p10-p90). */
    static String bandName(LiveForecast live) {
        return "p" + percent(bandLow(live)) + "-p" + percent(bandHigh(live));
    }

    private static double bandLow(LiveForecast live) {
        return live.settings().low();
    }

    private static double bandHigh(LiveForecast live) {
        return live.settings().high();
    }

    private static String percent(double q) {
        return String.format(Locale.ROOT, "%d", Math.round(q * 100));
    }

    static Assumptions shared(LiveForecast live, String duration) {
        return new Assumptions(duration, "running and waiting work runs as long as it declared, else as long as"
                + " work like it ran, finished or still running (as running at least as long as it has; same user,"
                + " allocation, kind and GPUs, then broader; "
                + live.finishedLearnt() + (live.finishedLearnt() == 1 ? " finished run" : " finished runs")
                + " known), else " + Durations.format(live.defaultDuration()),
                live.forecasts().arrivalsBasis(), live.policy());
    }

    static About about(LiveForecast live) {
        Forecasts f = live.forecasts();
        return new About(instant(f.madeAtSeconds()), instant(f.horizonEndSeconds()), f.runs(), bandName(live),
                shared(live, null), live.snapshotNanos() / 1e9, live.forecastNanos() / 1e9);
    }

    static Band band(Forecast f) {
        return new Band(f.startsWithinHorizon(), start(f.medianSeconds()), start(f.lowSeconds()),
                start(f.highSeconds()), f.durationBasis());
    }

    static Optional<WorkloadForecast> of(Optional<LiveForecast> live, String workloadId) {
        if (live.isEmpty()) {
            return Optional.empty();
        }
        return live.get().of(workloadId).map(f -> new WorkloadForecast(instant(f.madeAtSeconds()),
                f.startsWithinHorizon(), start(f.medianSeconds()), start(f.lowSeconds()), start(f.highSeconds()),
                bandName(live.get()), instant(f.horizonEndSeconds()), live.get().forecasts().runs(),
                shared(live.get(), f.durationBasis())));
    }

    /** The explanation's sentence about a forecast. */
    static String sentence(WorkloadForecast f) {
        StringBuilder sb = new StringBuilder("Forecast (made at ").append(f.madeAt()).append(" from ").append(f.runs())
                .append(f.runs() == 1 ? " future" : " futures").append(" played with the policy ")
                .append(f.assumptions().policy()).append("): ");
        if (f.withinHorizon()) {
            sb.append("likely to start at ").append(f.likelyStart()).append(", ").append(f.band()).append(" ")
                    .append(f.low()).append(" to ").append(f.high() == null ? "after " + f.horizonEnd() : f.high());
        } else {
            sb.append("likely to start after ").append(f.horizonEnd())
                    .append(" (the end of what the forecast looks at)");
        }
        return sb.append(". It assumes its own duration from: ").append(f.assumptions().duration())
                .append("; ").append(f.assumptions().runningWork()).append("; new work: ")
                .append(f.assumptions().newWork()).append('.').toString();
    }

    /** Why a waiting workload has no forecast. */
    static String missing() {
        return "There is no forecast of its start yet: forecasts are made every few seconds, off the scheduling loop,"
                + " of the work the scheduler had taken in (GET /v1/forecasts lists them).";
    }

    private static String start(long seconds) {
        return seconds == Long.MAX_VALUE ? null : instant(seconds);
    }

    private static String instant(long seconds) {
        return Views.instantOfSeconds(seconds);
    }
}
