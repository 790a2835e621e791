package dev.allot.sim.forecast;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Running times of a cohort of work, some finished (known) and some still running (known only to be at least what
 * they have run so far), as a distribution to draw from: the Kaplan-Meier estimate, built by Efron's
 * redistribute-to-the-right. Each run weighs the same; a run still going passes its weight in equal parts to the
 * longer runs after it (it will end among them), and runs still going that are longer than every finished one keep
 * their weight and are drawn as running half as long again as they have ({@link #beyond}).
 *
 * <p>Why: learning only from finished work learns mostly short work whenever long work started recently (a new
 * burst, a cluster just opened), because the long work has not finished yet; counting it as "at least this long"
 * removes that bias. A draw may be conditioned on a running time already done: it then comes from the part of the
 * distribution beyond it, re-weighted.
 */
final class SurvivalSample {
    private final long[] values; // ascending, only atoms with weight
    private final double[] cumulative; // cumulative weights, last = 1 (up to rounding)

    private SurvivalSample(long[] values, double[] cumulative) {
        this.values = values;
        this.cumulative = cumulative;
    }

    /**
     * @param finished running times of finished work, seconds
     * @param running  running times so far of work still running, seconds (each at least 1)
     */
    static SurvivalSample of(long[] finished, long[] running) {
        int n = finished.length + running.length;
        long[][] all = new long[n][]; // {value, 1 finished / 0 running}
        int k = 0;
        for (long v : finished) {
            all[k++] = new long[] {v, 1};
        }
        for (long v : running) {
            all[k++] = new long[] {v, 0};
        }
        // at a tie, a finished run comes first: a run still going at that time ends after it
        Arrays.sort(all, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(b[1], a[1]));
        int lastFinished = -1;
        for (int i = 0; i < n; i++) {
            if (all[i][1] == 1) {
                lastFinished = i;
            }
        }
        long[] values = new long[n];
        double[] weights = new double[n];
        int m = 0;
        double added = 0; // weight passed on to every run after the current one
        for (int i = 0; i < n; i++) {
            double w = 1.0 / n + added;
            if (all[i][1] == 0 && i < lastFinished) {
                added += w / (n - i - 1);
                continue;
            }
            values[m] = all[i][1] == 1 ? all[i][0] : beyond(all[i][0]);
            weights[m++] = w;
        }
        long[] v = Arrays.copyOf(values, m);
        double[] c = new double[m];
        double sum = 0;
        for (int i = 0; i < m; i++) {
            sum += weights[i];
            c[i] = sum;
        }
        return new SurvivalSample(v, c);
    }

    /** A running time more than {@code doneSeconds}, drawn from the part of the distribution beyond it. */
    long draw(long doneSeconds, SplittableRandom random) {
        int from = upperBound(values, doneSeconds);
        if (from == values.length) {
            return beyond(doneSeconds);
        }
        double lo = from == 0 ? 0 : cumulative[from - 1];
        double hi = cumulative[values.length - 1];
        double u = lo + random.nextDouble() * (hi - lo);
        int i = from;
        int j = values.length - 1;
        while (i < j) { // the first atom whose cumulative weight is above u
            int mid = (i + j) >>> 1;
            if (cumulative[mid] <= u) {
                i = mid + 1;
            } else {
                j = mid;
            }
        }
        return values[i];
    }

    /** What work that has run {@code doneSeconds} and is longer than anything measured is assumed to need in all. */
    static long beyond(long doneSeconds) {
        return doneSeconds + Math.max(60, doneSeconds / 2);
    }

    /** The mean running time (for tests and diagnosis). */
    double meanSeconds() {
        double mean = 0;
        double prev = 0;
        for (int i = 0; i < values.length; i++) {
            mean += values[i] * (cumulative[i] - prev);
            prev = cumulative[i];
        }
        return mean / cumulative[values.length - 1];
    }

    /** The first index whose value is above {@code x} in a sorted array (shared with {@link DurationHistory}). */
    static int upperBound(long[] a, long x) {
        int lo = 0;
        int hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] <= x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
