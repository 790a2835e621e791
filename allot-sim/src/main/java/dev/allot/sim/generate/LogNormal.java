package dev.allot.sim.generate;

import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A log-normal distribution of durations truncated to {@code [min, max]}: {@code median * exp(sigma * Z)} with
 * Z standard normal, redrawn while it falls outside the bounds (so there is no spike of values at a bound).
 * Job run times in published GPU-cluster traces (Philly, Helios, Acme) span several orders of magnitude with a
 * median far below the mean; a log-normal reproduces that heavy right tail with two intuitive numbers.
 *
 * @param median the median before truncation
 * @param sigma  the standard deviation of the natural log; 0.5 is a spread of about x1.6 either way, 1.0 about x2.7
 */
public record LogNormal(Duration median, double sigma, Duration min, Duration max) {
    private static final int MAX_REDRAWS = 64;

    public LogNormal {
        Objects.requireNonNull(median, "median");
        Objects.requireNonNull(min, "min");
        Objects.requireNonNull(max, "max");
        if (median.isNegative() || median.isZero() || min.isNegative() || min.isZero()) {
            throw new IllegalArgumentException("median and min must be positive");
        }
        if (min.compareTo(max) > 0) {
            throw new IllegalArgumentException("min must not exceed max");
        }
        if (!(sigma >= 0) || Double.isInfinite(sigma)) {
            throw new IllegalArgumentException("sigma must be finite and >= 0, got " + sigma);
        }
    }

    /** A draw in seconds (not rounded), within {@code [min, max]}. */
    public double sampleSeconds(SplittableRandom rng) {
        double m = median.getSeconds();
        double lo = min.getSeconds();
        double hi = max.getSeconds();
        for (int i = 0; i < MAX_REDRAWS; i++) {
            double x = m * Math.exp(sigma * standardNormal(rng));
            if (x >= lo && x <= hi) {
                return x;
            }
        }
        return Math.min(hi, Math.max(lo, m));
    }

    /**
     * A standard normal draw by the Box-Muller transform, written out so that the stream of values depends only on
     * the random generator's uniform draws and not on the JDK's choice of Gaussian algorithm.
     */
    static double standardNormal(SplittableRandom rng) {
        double u1 = 1.0 - rng.nextDouble(); // in (0, 1], so the log is finite
        double u2 = rng.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    }
}
