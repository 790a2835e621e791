package dev.allot.sim.detail;

/**
 * The distribution of queue waits (submission to first start) of one class of workloads, as 201 quantiles:
 * {@code seconds[i]} is the wait that {@code i / 2} percent of the started workloads did not exceed (nearest
 * rank). Enough to draw a cumulative distribution; the exact percentiles are in the metrics.
 *
 * @param started      workloads of the class that started
 * @param neverStarted workloads of the class that never started (not in the quantiles)
 * @param seconds      empty when none started
 */
public record WaitCurve(long started, long neverStarted, long[] seconds) {
    /** Quantile points: 0%, 0.5%, ..., 100%. */
    public static final int POINTS = 201;

    /** The curve of the given waits (sorted in place). */
    public static WaitCurve of(long[] waits, int count, long neverStarted) {
        java.util.Arrays.sort(waits, 0, count);
        long[] q = new long[count == 0 ? 0 : POINTS];
        for (int i = 0; i < q.length; i++) {
            int rank = (int) Math.ceil(i / (double) (POINTS - 1) * count);
            q[i] = waits[Math.max(0, Math.min(count - 1, rank - 1))];
        }
        return new WaitCurve(count, neverStarted, q);
    }
}
