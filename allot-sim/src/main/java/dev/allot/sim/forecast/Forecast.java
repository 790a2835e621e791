package dev.allot.sim.forecast;

/**
 * When one waiting workload is expected to start, as a band over the forecast's runs. Times are seconds on the
 * state's clock; {@code Long.MAX_VALUE} means "not within the horizon" ({@code horizonEndSeconds}).
 *
 * @param madeAtSeconds   when the forecast was made (the state's time)
 * @param durationBasis   what its own duration rests on ({@link DurationModel#basis})
 */
public record Forecast(String workloadId, long madeAtSeconds, long lowSeconds, long medianSeconds, long highSeconds,
                       long horizonEndSeconds, String durationBasis) {
    /** Whether the median run started it within the horizon. */
    public boolean startsWithinHorizon() {
        return medianSeconds != Long.MAX_VALUE;
    }

    /** Whether {@code actualSeconds} falls in the band (a start after the horizon is in a band that reaches it). */
    public boolean covers(long actualSeconds) {
        long a = actualSeconds > horizonEndSeconds ? Long.MAX_VALUE : actualSeconds;
        return lowSeconds <= a && a <= highSeconds;
    }
}
