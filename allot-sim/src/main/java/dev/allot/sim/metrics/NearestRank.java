package dev.allot.sim.metrics;

import java.util.List;

/**
 * The one definition of a sample quantile the simulator's reports use: the nearest-rank method, the
 * {@code ceil(q * n)}-th smallest value (the smallest for {@code q} near 0). Forecast bands, run comparisons and
 * start agreement all quote percentiles this way, so that the same data gives the same p90 everywhere.
 */
public final class NearestRank {
    private NearestRank() {
    }

    /** The {@code q}-quantile ({@code 0 < q <= 1}) of values sorted ascending; 0 for none. */
    public static long of(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[index(sorted.length, q)];
    }

    /** The {@code q}-quantile ({@code 0 < q <= 1}) of values sorted ascending; 0 for none. */
    public static double of(List<Double> sorted, double q) {
        if (sorted.isEmpty()) {
            return 0;
        }
        return sorted.get(index(sorted.size(), q));
    }

    private static int index(int n, double q) {
        int rank = (int) Math.ceil(q * n);
        return Math.max(0, Math.min(n - 1, rank - 1));
    }
}
