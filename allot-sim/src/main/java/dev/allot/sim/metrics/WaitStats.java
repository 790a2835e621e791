package dev.allot.sim.metrics;

import org.HdrHistogram.Histogram;

/**
 * Queue-wait percentiles of a class of workloads, in seconds: from submission to first start. Workloads that never
 * started are not in the percentiles; they are counted in {@code neverStarted}. Percentiles come from an
 * HdrHistogram with three significant digits: exact below 2,048 s, rounded down by at most 0.1% above.
 */
public record WaitStats(long count, long neverStarted, Long p50, Long p90, Long p99, Long max) {

    public static final class Recorder {
        private final Histogram histogram = new Histogram(3650L * 86400, 3);
        private long neverStarted;

        public void record(long waitSeconds) {
            histogram.recordValue(Math.max(0, waitSeconds));
        }

        public void neverStarted() {
            neverStarted++;
        }

        public WaitStats stats() {
            long n = histogram.getTotalCount();
            if (n == 0) {
                return new WaitStats(0, neverStarted, null, null, null, null);
            }
            return new WaitStats(n, neverStarted, at(50), at(90), at(99), histogram.lowestEquivalentValue(histogram.getMaxValue()));
        }

        /** The percentile rounded down to the histogram's resolution, so that an exact wait prints exactly. */
        private long at(double percentile) {
            return histogram.lowestEquivalentValue(histogram.getValueAtPercentile(percentile));
        }
    }
}
