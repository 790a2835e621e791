package dev.allot.sim.forecast;

import java.util.Arrays;

/**
 * Makes forecast bands as wide as the forecaster's own track record says they must be. The runs of a forecast only
 * vary what the models vary (durations, new work); the real future varies more (or, for work that starts at once,
 * less). So, as each forecast workload starts, this learns how far outside (or inside) the band of the forecast made
 * at its submission the actual start fell, on a log scale of the wait ({@code log(wait + 1 min)}), and widens (or
 * narrows) new bands by the amount that would have put the wanted share of the past starts inside: conformalized
 * quantile regression (Romano, Patterson and Candes, 2019), on the latest {@link #KEEP} starts. The median is left as
 * the runs gave it.
 *
 * <p>Until {@link #MIN_SCORES} starts are known, bands are the runs' own. A start after the horizon counts as at the
 * horizon. Not thread-safe.
 */
public final class BandCalibration {
    /** Starts needed before bands are changed. */
    public static final int MIN_SCORES = 20;
    /** Starts kept (the latest). */
    public static final int KEEP = 2_000;
    private static final double MINUTE = 60;

    private final double coverage;
    private final double[] ring = new double[KEEP];
    private int count;
    private double[] sorted;

    /** @param coverage the share of actual starts the band should hold, e.g. 0.8 for a p10-p90 band */
    public BandCalibration(double coverage) {
        if (!(coverage > 0 && coverage < 1)) {
            throw new IllegalArgumentException("coverage must be between 0 and 1, not " + coverage);
        }
        this.coverage = coverage;
    }

    /** Learns where the workload of {@code raw} (an uncalibrated forecast) actually started. */
    public void learn(Forecast raw, long actualStartSeconds) {
        double a = scale(raw, Math.min(actualStartSeconds, raw.horizonEndSeconds()));
        double lo = scale(raw, raw.lowSeconds());
        double hi = scale(raw, raw.highSeconds());
        ring[count % KEEP] = Math.max(lo - a, a - hi);
        count++;
        sorted = null;
    }

    /** The amount, on the log scale, by which bands are widened now (negative: narrowed); 0 until enough is known. */
    public double widening() {
        int n = Math.min(count, KEEP);
        if (n < MIN_SCORES) {
            return 0;
        }
        if (sorted == null) {
            sorted = Arrays.copyOf(ring, n);
            Arrays.sort(sorted);
        }
        int rank = (int) Math.ceil((n + 1) * coverage);
        return sorted[Math.min(n, rank) - 1];
    }

    /** {@code raw} with its band widened or narrowed by what has been learnt (its median unchanged). */
    public Forecast apply(Forecast raw) {
        double q = widening();
        if (q == 0) {
            return raw;
        }
        long low = unscale(raw, scale(raw, raw.lowSeconds()) - q);
        long high = unscale(raw, scale(raw, raw.highSeconds()) + q);
        low = Math.min(low, raw.medianSeconds());
        high = Math.max(high, raw.medianSeconds());
        return new Forecast(raw.workloadId(), raw.madeAtSeconds(), low, raw.medianSeconds(), high,
                raw.horizonEndSeconds(), raw.durationBasis());
    }

    private static double scale(Forecast f, long t) {
        long capped = Math.min(t, f.horizonEndSeconds());
        return Math.log(Math.max(0, capped - f.madeAtSeconds()) + MINUTE);
    }

    private static long unscale(Forecast f, double v) {
        long wait = Math.max(0, Math.round(Math.exp(v) - MINUTE));
        long t = f.madeAtSeconds() + wait;
        return t >= f.horizonEndSeconds() ? Long.MAX_VALUE : t;
    }
}
