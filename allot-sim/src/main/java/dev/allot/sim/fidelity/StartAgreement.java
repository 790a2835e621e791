package dev.allot.sim.fidelity;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How closely two runs of the same workloads agree on when each one started: a model against the real scheduler it
 * models (Allot's {@code slurm} model against Slurm), or a replay against a simulation. Compares the workloads that
 * started in both runs, by id:
 * <ul>
 *   <li>start order: Kendall's tau-b between the two runs' first start times (1 = the same order, 0 = unrelated,
 *   -1 = reversed); tau-b counts pairs tied in either run as neither agreeing nor disagreeing and corrects for them,
 *   which matters here, as schedulers start many jobs in the same second;</li>
 *   <li>start error: |first start in A - first start in B|, its median, 90th percentile and maximum;</li>
 *   <li>waits (first start minus submission in each run, so each run's own submission times count): the median and
 *   90th percentile of each.</li>
 * </ul>
 * Percentiles are nearest-rank (the smallest value with at least that fraction of values at or below it), so they
 * are values that occurred. Workloads that started in only one run are counted, not compared. Deterministic: the
 * result depends only on the values, not on the order of the maps.
 *
 * @param compared          workloads that started in both runs
 * @param onlyInA           workloads that started in A only (or are missing from B)
 * @param onlyInB           workloads that started in B only (or are missing from A)
 * @param kendallTau        Kendall's tau-b of the start times; NaN with fewer than two workloads or when every start
 *                          is tied in one run
 * @param startErrorP50Seconds median |start A - start B|
 * @param startErrorP90Seconds 90th percentile of it
 * @param startErrorMaxSeconds its maximum
 * @param waitP50SecondsA   median wait in A
 * @param waitP90SecondsA   90th percentile wait in A
 * @param waitP50SecondsB   median wait in B
 * @param waitP90SecondsB   90th percentile wait in B
 */
public record StartAgreement(int compared, int onlyInA, int onlyInB, double kendallTau, long startErrorP50Seconds,
                             long startErrorP90Seconds, long startErrorMaxSeconds, long waitP50SecondsA,
                             long waitP90SecondsA, long waitP50SecondsB, long waitP90SecondsB) {

    /**
     * One workload in one run.
     *
     * @param firstStartSeconds -1 when it never started
     */
    public record Start(long submitSeconds, long firstStartSeconds) {
        public boolean started() {
            return firstStartSeconds >= 0;
        }
    }

    /** Compares two runs given as workload id to its start; ids in only one run count as started there only. */
    public static StartAgreement of(Map<String, Start> a, Map<String, Start> b) {
        TreeMap<String, Start> sa = new TreeMap<>(a);
        List<long[]> pairs = new ArrayList<>(); // startA, startB, waitA, waitB
        int onlyA = 0;
        int onlyB = 0;
        for (Map.Entry<String, Start> e : sa.entrySet()) {
            Start x = e.getValue();
            Start y = b.get(e.getKey());
            boolean inA = x.started();
            boolean inB = y != null && y.started();
            if (inA && inB) {
                pairs.add(new long[] {x.firstStartSeconds(), y.firstStartSeconds(),
                        x.firstStartSeconds() - x.submitSeconds(), y.firstStartSeconds() - y.submitSeconds()});
            } else if (inA) {
                onlyA++;
            } else if (inB) {
                onlyB++;
            }
        }
        for (Map.Entry<String, Start> e : b.entrySet()) {
            if (!a.containsKey(e.getKey()) && e.getValue().started()) {
                onlyB++;
            }
        }
        int n = pairs.size();
        long[] startA = new long[n];
        long[] startB = new long[n];
        long[] error = new long[n];
        long[] waitA = new long[n];
        long[] waitB = new long[n];
        for (int i = 0; i < n; i++) {
            long[] p = pairs.get(i);
            startA[i] = p[0];
            startB[i] = p[1];
            error[i] = Math.abs(p[0] - p[1]);
            waitA[i] = p[2];
            waitB[i] = p[3];
        }
        return new StartAgreement(n, onlyA, onlyB, kendallTauB(startA, startB), percentile(error, 50),
                percentile(error, 90), percentile(error, 100), percentile(waitA, 50), percentile(waitA, 90),
                percentile(waitB, 50), percentile(waitB, 90));
    }

    /**
     * Kendall's tau-b of two equally long series: (concordant - discordant) / sqrt((n0 - tiesX) (n0 - tiesY)), over
     * all n0 = n(n-1)/2 pairs, where tiesX counts pairs tied in x (whatever y does) and tiesY those tied in y. NaN
     * when the denominator is 0. Quadratic, which is fine for the thousands of jobs such comparisons hold.
     */
    public static double kendallTauB(long[] x, long[] y) {
        if (x.length != y.length) {
            throw new IllegalArgumentException("series of different lengths: " + x.length + " and " + y.length);
        }
        long concordant = 0;
        long discordant = 0;
        long tiedX = 0;
        long tiedY = 0;
        long all = 0;
        for (int i = 0; i < x.length; i++) {
            for (int j = i + 1; j < x.length; j++) {
                int dx = Long.compare(x[i], x[j]);
                int dy = Long.compare(y[i], y[j]);
                all++;
                if (dx == 0) {
                    tiedX++;
                }
                if (dy == 0) {
                    tiedY++;
                }
                if (dx != 0 && dy != 0) {
                    if (dx == dy) {
                        concordant++;
                    } else {
                        discordant++;
                    }
                }
            }
        }
        double denominator = Math.sqrt((double) (all - tiedX) * (all - tiedY));
        return denominator == 0 ? Double.NaN : (concordant - discordant) / denominator;
    }

    /** The nearest-rank percentile of the values (0 for none). */
    public static long percentile(long[] values, double percent) {
        if (values.length == 0) {
            return 0;
        }
        if (!(percent > 0 && percent <= 100)) {
            throw new IllegalArgumentException("a percentile must be in (0, 100], got " + percent);
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return dev.allot.sim.metrics.NearestRank.of(sorted, percent / 100);
    }

    /** One line for a report, e.g. {@code 40 workloads: Kendall tau 0.93, start error median 1 s, p90 3 s, max 7 s; ...}. */
    public String summary(String nameA, String nameB) {
        StringBuilder s = new StringBuilder();
        s.append(compared).append(" workloads started in both: Kendall tau ")
                .append(String.format(java.util.Locale.ROOT, "%.3f", kendallTau)).append(", start error median ")
                .append(startErrorP50Seconds).append(" s, p90 ").append(startErrorP90Seconds).append(" s, max ")
                .append(startErrorMaxSeconds).append(" s; wait median ").append(nameA).append(' ')
                .append(waitP50SecondsA).append(" s / ").append(nameB).append(' ').append(waitP50SecondsB)
                .append(" s, p90 ").append(nameA).append(' ').append(waitP90SecondsA).append(" s / ").append(nameB)
                .append(' ').append(waitP90SecondsB).append(" s");
        if (onlyInA + onlyInB > 0) {
            s.append("; started only in ").append(nameA).append(": ").append(onlyInA).append(", only in ")
                    .append(nameB).append(": ").append(onlyInB);
        }
        return s.toString();
    }
}
