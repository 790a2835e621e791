package dev.allot.sim.forecast;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes forecast bands as wide as the forecaster's own track record says they must be. The runs of a forecast only
 * vary what the models vary (durations, new work); the real future varies more (or, for work that starts at once,
 * less). So this learns how far outside (or inside) the band of each forecast the actual start fell, on a log scale
 * of the wait ({@code log(wait + 1 min)}), and widens (or narrows) new bands by the amount that would have put the
 * wanted share of the past starts inside: conformalized quantile regression (Romano, Patterson and Candes, 2019). The
 * median is left as the runs gave it.
 *
 * <p>Two refinements make it hold on real queues, where waits run from seconds to weeks:
 * <ul>
 *   <li><b>By class of forecast</b> (Mondrian conformal prediction): forecasts are grouped by the wait their median
 *   predicts ({@link #GROUP_BOUNDS_SECONDS}: starts at once, under 10 minutes, under an hour, ...), known when the
 *   forecast is made, and each group learns its own amount once it has {@link #MIN_SCORES} scores (until then, the
 *   amount learnt over all groups). Work forecast to start at once is often exactly right and would otherwise hide
 *   the misses of long waits.</li>
 *   <li><b>Work still waiting counts</b> (censoring): a forecast whose workload has not started yet ({@link #expect})
 *   is, when a band is calibrated at time {@code now}, a score known only to be at least the least it can still end
 *   with (it starts at {@code now} or later), and the amount is the Kaplan-Meier estimate of the wanted quantile.
 *   Learning only from work that has started would learn mostly from short waits (long ones finish waiting later)
 *   and keep bands too narrow while queues grow.</li>
 *   <li><b>The level follows the misses</b> (adaptive conformal inference, Gibbs and Candes, 2021): queues drift
 *   (a backlog grows, or drains), so the scores of the past are not exchangeable with those of now. Each group's
 *   quantile level starts at {@code coverage}; whenever an expected workload's start (or the end of its horizon)
 *   shows whether the band its forecast was given held it, the level moves by {@link #ADAPT_RATE} x (missed - (1 -
 *   coverage)): up after a miss, down after a hit, still when misses run at the wanted rate. It stays within
 *   [{@link #MIN_LEVEL}, {@link #MAX_LEVEL}]. On the lab preset the bands of the first forecasts of waiting work
 *   held 85.9% with a fixed level and 80.8% with this one. It cannot help where outcomes come later than the drift:
 *   on the Philly trace most forecasts are of waits of a week or more, and the forecasts of one instant err
 *   together (README, Forecasts).</li>
 * </ul>
 * A start after the horizon counts as at the horizon. The latest {@link #KEEP} scores of each group are kept.
 * Not thread-safe.
 */
public final class BandCalibration {
    /** Scores a group needs before its own amount is used (and the groups together before any is). */
    public static final int MIN_SCORES = 20;
    /** Scores kept per group (the latest). */
    public static final int KEEP = 2_000;
    /** Upper ends of the groups, by the wait the raw median predicts (seconds); the last group is open. */
    static final long[] GROUP_BOUNDS_SECONDS = {1, 600, 3_600, 6 * 3_600, 86_400, 7 * 86_400};
    private static final double MINUTE = 60;
    /** How far one known outcome moves its group's level (the step of adaptive conformal inference). */
    public static final double ADAPT_RATE = 0.02;
    /** The bounds of a group's level: never a band for fewer than half, or more than 99%, of the past scores. */
    static final double MIN_LEVEL = 0.5;
    static final double MAX_LEVEL = 0.99;

    private final double coverage;
    private final double adaptRate;
    private final List<Ring> groups = new ArrayList<>();
    private final Map<String, Expected> pending = new HashMap<>();
    private final double[] levels;
    private long amountsAtSeconds = Long.MIN_VALUE;
    private double[] amounts;

    /** A forecast waiting for its workload's start: as the runs gave it, and the band it was given then. */
    private record Expected(Forecast raw, Forecast given) {
    }

    /** @param coverage the share of actual starts the band should hold, e.g. 0.8 for a p10-p90 band */
    public BandCalibration(double coverage) {
        this(coverage, ADAPT_RATE);
    }

    /** @param adaptRate how far one known outcome moves its group's level; 0: the level stays at {@code coverage} */
    BandCalibration(double coverage, double adaptRate) {
        if (!(coverage > 0 && coverage < 1)) {
            throw new IllegalArgumentException("coverage must be between 0 and 1, not " + coverage);
        }
        if (!(adaptRate >= 0 && adaptRate < 1)) {
            throw new IllegalArgumentException("adaptRate must be at least 0 and below 1, not " + adaptRate);
        }
        this.coverage = coverage;
        this.adaptRate = adaptRate;
        for (int g = 0; g <= GROUP_BOUNDS_SECONDS.length; g++) {
            groups.add(new Ring());
        }
        this.levels = new double[GROUP_BOUNDS_SECONDS.length + 1];
        java.util.Arrays.fill(levels, coverage);
    }

    /**
     * Remembers {@code raw} (an uncalibrated forecast) as waiting for its workload's start, with the band
     * {@link #apply} gives it now; a later one replaces it.
     */
    public void expect(Forecast raw) {
        Forecast given = apply(raw);
        pending.put(raw.workloadId(), new Expected(raw, given));
        if (raw.madeAtSeconds() < amountsAtSeconds) {
            amounts = null; // at its own time a forecast still waiting tells nothing (see amountsAt), later it may
        }
    }

    /** Learns that the workload of the forecast {@link #expect expected} started at {@code actualStartSeconds}. */
    public void started(String workloadId, long actualStartSeconds) {
        Expected e = pending.remove(workloadId);
        if (e != null) {
            resolve(e, actualStartSeconds);
        }
    }

    /** An expected forecast's outcome is known: its score is learnt, and its group's level follows the miss or hit. */
    private void resolve(Expected e, long actualStartSeconds) {
        learn(e.raw(), actualStartSeconds);
        int g = group(e.raw());
        double missed = e.given().covers(actualStartSeconds) ? 0 : 1;
        levels[g] = Math.max(MIN_LEVEL, Math.min(MAX_LEVEL, levels[g] + adaptRate * (missed - (1 - coverage))));
    }

    /** The quantile level each group's amount is taken at now (starts at the coverage; see the class comment). */
    double level(int group) {
        return levels[group];
    }

    /** Forgets the forecast of a workload that will not start (cancelled). */
    public void forget(String workloadId) {
        if (pending.remove(workloadId) != null) {
            amounts = null;
        }
    }

    /** Learns where the workload of {@code raw} (an uncalibrated forecast) actually started. */
    public void learn(Forecast raw, long actualStartSeconds) {
        long actual = Math.min(actualStartSeconds, raw.horizonEndSeconds());
        groups.get(group(raw)).add(score(raw, actual));
        amounts = null;
    }

    /** {@code raw} with its band widened or narrowed by what has been learnt up to its time (its median unchanged). */
    public Forecast apply(Forecast raw) {
        double q = amountsAt(raw.madeAtSeconds())[group(raw)];
        if (q == 0) {
            return raw;
        }
        long median = raw.medianSeconds();
        long low = unscale(raw, scale(raw, raw.lowSeconds()) - q);
        long high = unscale(raw, scale(raw, raw.highSeconds()) + q);
        low = Math.min(low, median);
        high = Math.max(high, median);
        return new Forecast(raw.workloadId(), raw.madeAtSeconds(), low, median, high, raw.horizonEndSeconds(),
                raw.durationBasis());
    }

    /** The amount, on the log scale, by which bands of {@code raw}'s group are widened at its time (0 until known). */
    double widening(Forecast raw) {
        return amountsAt(raw.madeAtSeconds())[group(raw)];
    }

    /**
     * Per group, at {@code now}, the widening of bands (the wanted quantile of the scores): the group's own when it
     * has enough known or waiting work, else over all groups, else 0.
     */
    private double[] amountsAt(long now) {
        if (amounts != null && amountsAtSeconds == now) {
            return amounts;
        }
        List<Expected> lapsed = pending.values().stream().filter(p -> now >= p.raw().horizonEndSeconds())
                .sorted(Comparator.comparing(p -> p.raw().workloadId())).toList();
        for (Expected p : lapsed) {
            pending.remove(p.raw().workloadId());
            resolve(p, Long.MAX_VALUE); // no start within its horizon: its score is final
        }
        int n = groups.size();
        List<List<Estimate>> scores = new ArrayList<>();
        for (Ring r : groups) {
            List<Estimate> s = new ArrayList<>();
            for (double v : r.values()) {
                s.add(new Estimate(v, true));
            }
            scores.add(s);
        }
        for (Expected e : pending.values()) {
            Forecast p = e.raw();
            double least = leastScore(p, now);
            if (least > (scale(p, p.lowSeconds()) - scale(p, p.highSeconds())) / 2) {
                scores.get(group(p)).add(new Estimate(least, false)); // else it tells nothing yet
            }
        }
        double[] out = new double[n];
        List<Estimate> all = new ArrayList<>();
        scores.forEach(all::addAll);
        for (int g = 0; g < n; g++) {
            out[g] = quantile(scores.get(g).size() >= MIN_SCORES ? scores.get(g) : all, levels[g]);
        }
        amounts = out;
        amountsAtSeconds = now;
        return out;
    }

    /**
     * The {@code p}-quantile of {@code values} (0 if too few): the conformal one ({@code ceil((n + 1) p)}-th smallest)
     * when all are known; with work still waiting, the Kaplan-Meier estimate of the same (a value known only to be at
     * least some bound counts in full up to that bound, and its weight passes to the larger values after it), and
     * the largest bound when even that cannot reach it.
     */
    private static double quantile(List<Estimate> values, double p) {
        int n = values.size();
        if (n < MIN_SCORES) {
            return 0;
        }
        List<Estimate> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.comparingDouble(Estimate::value).thenComparing(Estimate::known,
                Comparator.reverseOrder()));
        double target = 1 - Math.min(1, p * (n + 1) / n);
        double survival = 1;
        int atRisk = n;
        for (Estimate s : sorted) {
            if (s.known()) {
                survival *= 1 - 1.0 / atRisk;
                if (survival <= target + 1e-12) {
                    return s.value();
                }
            }
            atRisk--;
        }
        return sorted.get(n - 1).value();
    }

    /** How far outside its band (positive) or inside it (negative) a start at {@code actual} falls, on the log scale. */
    private static double score(Forecast f, long actual) {
        double a = scale(f, actual);
        return Math.max(scale(f, f.lowSeconds()) - a, a - scale(f, f.highSeconds()));
    }

    /** The least {@link #score} a workload still waiting at {@code now} can end with (it starts at {@code now} or later). */
    private static double leastScore(Forecast f, long now) {
        double a = scale(f, now);
        double lo = scale(f, f.lowSeconds());
        double hi = scale(f, f.highSeconds());
        return a <= (lo + hi) / 2 ? (lo - hi) / 2 : a - hi;
    }

    /** The group (class of forecast) {@code f} is calibrated in. */
    static int groupOf(Forecast f) {
        return group(f);
    }

    private static int group(Forecast f) {
        long wait = f.medianSeconds() == Long.MAX_VALUE ? Long.MAX_VALUE : f.medianSeconds() - f.madeAtSeconds();
        int g = 0;
        while (g < GROUP_BOUNDS_SECONDS.length && wait >= GROUP_BOUNDS_SECONDS[g]) {
            g++;
        }
        return g;
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

    /** A value, {@code known}, or only known to be at least {@code value} (work still waiting). */
    private record Estimate(double value, boolean known) {
    }

    /** The latest {@link #KEEP} scores of one group. */
    private static final class Ring {
        private final double[] values = new double[KEEP];
        private int count;

        void add(double v) {
            values[count % KEEP] = v;
            count++;
        }

        List<Double> values() {
            int n = Math.min(count, KEEP);
            List<Double> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(values[i]);
            }
            return out;
        }
    }
}
