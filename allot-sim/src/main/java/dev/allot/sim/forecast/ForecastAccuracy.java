package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.slurm.SlurmPolicy;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.WorkloadRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Predicate;

/**
 * How good start forecasts are: replays a scenario with forecasts made at the submission of sampled workloads and
 * compares each with the actual start in the same run.
 *
 * <ul>
 *   <li><b>Allot</b>: the policy under test, {@link Forecaster} with durations from the history of finished work
 *   and of the work running at the forecast's instant ({@link DurationHistory}, nothing declared) and new work from
 *   the recent past ({@link RecentArrivals}), by default only up to the scenario's last submission
 *   ({@link EndingArrivals}: a replay's end is where its recording stopped, and after it the replayed cluster only
 *   drains; measured on Philly, forecasts that played new work past it were late by weeks).</li>
 *   <li><b>Baseline</b>, what a Slurm user has ({@code squeue --start}): in a run of the {@code slurm} model, the start
 *   that model's plan gives at submission when every job, running or waiting, runs exactly to its time limit (its
 *   duration times the model's {@code time-limit-factor}; the default factor 1 makes the limits the true durations,
 *   which flatters the baseline) and no new work arrives.</li>
 * </ul>
 * Errors compare the median forecast with the actual start, both capped at the horizon (a start after it counts as at
 * it); workloads that never started are left out. The band's coverage is the share of actual starts inside p10-p90.
 */
public final class ForecastAccuracy {
    /** Upper ends of the wait classes errors are grouped by (seconds); the last class is open. */
    static final long[] WAIT_CLASSES = {60, 600, 3_600, 6 * 3_600};
    static final List<String> WAIT_CLASS_NAMES = List.of("< 1m", "1m-10m", "10m-1h", "1h-6h", ">= 6h");

    private ForecastAccuracy() {
    }

    /**
     * What was measured.
     *
     * @param samples            forecasts compared with an actual start
     * @param neverStarted       sampled workloads that never started (left out)
     * @param medianAbsErrorSeconds median |forecast - actual|
     * @param p90AbsErrorSeconds 90th percentile of the same
     * @param coverage           share of actual starts inside the band (NaN for a point forecast)
     * @param byWait             per wait class: {samples, median abs error seconds, coverage}
     * @param forecastMillisMean mean wall time of one forecast (all its runs)
     */
    public record Measure(String method, String policy, int samples, int neverStarted, long medianAbsErrorSeconds,
                          long p90AbsErrorSeconds, double coverage, List<WaitClass> byWait, double forecastMillisMean,
                          int forecastsMade, BandSplit split) {
    }

    /**
     * The band's share of actual starts, apart for forecasts whose median says "starts at once" (a band that holds
     * such a start whenever it is right, so its share is at least how often it is right) and forecasts of a wait.
     */
    public record BandSplit(int atOnceSamples, double atOnceCoverage, int waitSamples, double waitCoverage) {
    }

    /**
     * Allot's forecasts and the baseline on one scenario, with the goals: Allot's median absolute error at
     * most a third of the baseline's, and its p10-p90 band holding 80% +/- 5% of actual starts.
     */
    public record Comparison(String scenario, Measure allot, Measure baseline) {
        public boolean errorGoalMet() {
            return 3 * allot.medianAbsErrorSeconds() <= baseline.medianAbsErrorSeconds();
        }

        public boolean bandGoalMet() {
            return calibrated(allot.coverage());
        }

        /**
         * The band goal on the forecasts of a wait alone. A forecast that says "starts at once" has the band
         * [now, now]: when it comes true the start is inside whatever the band's level, so those forecasts can only
         * read 100% (or 0%) and push the overall share above 85% on a lab where most work starts at once; this
         * reading shows whether the bands of the waits, the ones with a width, hold what they claim.
         */
        public boolean waitBandGoalMet() {
            return calibrated(allot.split().waitCoverage());
        }

        /** The calibration goal: a p10-p90 band holds 80% +/- 5% of actual starts. */
        private static boolean calibrated(double share) {
            return Math.abs(share - 0.8) <= 0.05;
        }

        /** The comparison as a text table. */
        public String table() {
            StringBuilder b = new StringBuilder();
            b.append(String.format(java.util.Locale.ROOT, "%-26s %-11s %8s %13s %11s %10s%n", "method", "policy",
                    "samples", "median |err|", "p90 |err|", "in band"));
            for (Measure m : List.of(allot, baseline)) {
                // Without samples there is no error to state (it printed 0s, as if every forecast had been right).
                b.append(String.format(java.util.Locale.ROOT, "%-26s %-11s %8d %13s %11s %10s%n", m.method(), m.policy(),
                        m.samples(), m.samples() == 0 ? "-" : duration(m.medianAbsErrorSeconds()),
                        m.samples() == 0 ? "-" : duration(m.p90AbsErrorSeconds()), percent(m.coverage())));
            }
            b.append(String.format(java.util.Locale.ROOT, "%nby actual wait: samples, median |err| (allot / baseline),"
                    + " allot's median error (+ late, - early), allot's band%n"));
            for (int c = 0; c < allot.byWait().size(); c++) {
                WaitClass a = allot.byWait().get(c);
                WaitClass s = baseline.byWait().get(c);
                // A class without samples has no error, not an error of 0s: "-", as for its band.
                b.append(String.format(java.util.Locale.ROOT, "  %-8s %5d / %-5d %9s / %-9s %10s %8s%n", a.name(),
                        a.samples(), s.samples(), a.samples() == 0 ? "-" : duration(a.medianAbsErrorSeconds()),
                        s.samples() == 0 ? "-" : duration(s.medianAbsErrorSeconds()),
                        a.samples() == 0 ? "-" : signed(a.medianBiasSeconds()), percent(a.coverage())));
            }
            b.append(String.format(java.util.Locale.ROOT, "%nallot's band holds %s of the starts of the %s"
                    + " forecast to start at once, %s of the %d forecast to wait%n",
                    percent(allot.split().atOnceCoverage()),
                    dev.allot.core.model.Words.count(allot.split().atOnceSamples(), "workload"),
                    percent(allot.split().waitCoverage()), allot.split().waitSamples()));
            b.append(String.format(java.util.Locale.ROOT, "goal: median |err| <= 1/3 of the baseline's: %s;"
                    + " band holds 80%% +/- 5%%: %s (%s); of the starts forecast to wait: %s (%s)%n",
                    verdict(allot.samples() > 0 && baseline.samples() > 0, errorGoalMet()),
                    verdict(!Double.isNaN(allot.coverage()), bandGoalMet()), percent(allot.coverage()),
                    verdict(!Double.isNaN(allot.split().waitCoverage()), waitBandGoalMet()),
                    percent(allot.split().waitCoverage())));
            b.append(String.format(java.util.Locale.ROOT, "cost: %.1f ms per forecast (allot, %s), %.1f ms"
                    + " (baseline)%n", allot.forecastMillisMean(),
                    dev.allot.core.model.Words.count(allot.forecastsMade(), "forecast"), baseline.forecastMillisMean()));
            return b.toString();
        }

        /**
         * A goal's verdict; "no samples" when there was nothing to judge it on (a scenario with fewer workloads than
         * {@code --sample-every}, or none that started, said "met" for the error goal).
         */
        private static String verdict(boolean judged, boolean met) {
            return !judged ? "no samples" : met ? "met" : "NOT met";
        }

        private static String signed(long seconds) {
            return (seconds < 0 ? "-" : "+") + duration(Math.abs(seconds));
        }

        private static String duration(long seconds) {
            return dev.allot.core.model.Durations.formatSeconds(seconds);
        }

        private static String percent(double v) {
            return Double.isNaN(v) ? "-" : String.format(java.util.Locale.ROOT, "%.1f%%", 100 * v);
        }
    }

    /** Errors of the forecasts of workloads whose actual wait fell in one class. */
    public record WaitClass(String name, int samples, long medianAbsErrorSeconds, long medianBiasSeconds,
                            double coverage) {
    }

    /**
     * Allot's forecast with the scenario's policy settings for {@code policy}.
     *
     * @param endKnown whether the forecasts know where the scenario's submissions end ({@link EndingArrivals}): new
     *                 work is played up to the last submission and not after it. Without it they play new work over
     *                 their whole horizon, as the live service does, also where the replayed world has none.
     */
    public static Measure allot(Scenario scenario, PolicyRegistry registry, String policy, ForecastSettings settings,
                                int sampleEvery, boolean endKnown) {
        PolicyFactory f = registry.get(policy);
        Forecaster forecaster = new Forecaster(f, scenario.policyConfig().settingsFor(f), settings);
        DurationHistory history = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        RecentArrivals recent = new RecentArrivals();
        ArrivalModel arrivals = endKnown ? new EndingArrivals(recent, scenario.lastSubmitSeconds()) : recent;
        ForecastProbe probe = new ForecastProbe(forecaster, history, history, arrivals, recent,
                new BandCalibration(settings.high() - settings.low()), sampled(sampleEvery));
        SimulationResult r = new Simulator(scenario, registry, policy, Simulator.Options.defaults().withAgent(probe)).run();
        return measure("allot forecast", policy, probe, r, true);
    }

    /** The Slurm user's baseline (see the class comment), on a run of the {@code slurm} model. */
    public static Measure slurmBaseline(Scenario scenario, PolicyRegistry registry, ForecastSettings settings,
                                        int sampleEvery) {
        PolicyFactory f = registry.get(SlurmPolicy.NAME);
        var policySettings = scenario.policyConfig().settingsFor(f);
        double factor = policySettings.number("time-limit-factor");
        DurationModel limits = new DurationModel() {
            @Override
            public long drawSeconds(WorkloadSpec spec, long doneSeconds, SplittableRandom random) {
                return Math.max(doneSeconds + 1, (long) Math.ceil(spec.duration().getSeconds() * factor));
            }

            @Override
            public String basis(WorkloadSpec spec) {
                return "time limit";
            }
        };
        Forecaster forecaster = new Forecaster(f, policySettings, settings.withRuns(1));
        DurationHistory unused = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        ForecastProbe probe = new ForecastProbe(forecaster, limits, unused, ArrivalModel.NONE, new RecentArrivals(),
                null, sampled(sampleEvery));
        SimulationResult r = new Simulator(scenario, registry, SlurmPolicy.NAME,
                Simulator.Options.defaults().withAgent(probe)).run();
        return measure("slurm plan at submission", SlurmPolicy.NAME, probe, r, false);
    }

    /** Any forecast: the models given, on a run of {@code policy}. For the measures above and for diagnosis. */
    static Measure with(String method, Scenario scenario, PolicyRegistry registry, String policy,
                        ForecastSettings settings, int sampleEvery, DurationModel durations, DurationHistory history,
                        ArrivalModel arrivals, RecentArrivals recent) {
        PolicyFactory f = registry.get(policy);
        Forecaster forecaster = new Forecaster(f, scenario.policyConfig().settingsFor(f), settings);
        ForecastProbe probe = new ForecastProbe(forecaster, durations, history, arrivals, recent, null,
                sampled(sampleEvery));
        SimulationResult r = new Simulator(scenario, registry, policy, Simulator.Options.defaults().withAgent(probe)).run();
        return measure(method, policy, probe, r, settings.runs() > 1);
    }

    /** How many of {@code scenario}'s workloads {@code sampleEvery} samples ({@link #sampled}). */
    public static long sampledCount(Scenario scenario, int sampleEvery) {
        Predicate<String> sampled = sampled(sampleEvery);
        return scenario.workloads().stream().filter(w -> sampled.test(w.id())).count();
    }

    /**
     * The largest sample-every below {@code tooLarge} that samples at least one of {@code scenario}'s workloads (1
     * samples all); the sampling goes by a hash, so it is searched down from the number of workloads.
     */
    public static int largestSampling(Scenario scenario, int tooLarge) {
        for (int every = Math.min(tooLarge - 1, scenario.workloads().size()); every > 1; every--) {
            if (sampledCount(scenario, every) > 0) {
                return every;
            }
        }
        return 1;
    }

    /** Every {@code every}-th workload by a hash of its id (1: all). */
    static Predicate<String> sampled(int every) {
        if (every < 1) {
            throw new IllegalArgumentException("sample every must be at least 1, not " + every);
        }
        return id -> every == 1 || Math.floorMod(mix(id.hashCode()), every) == 0;
    }

    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        return h;
    }

    private static Measure measure(String method, String policy, ForecastProbe probe, SimulationResult r, boolean band) {
        Map<String, WorkloadRecord> records = new HashMap<>();
        for (WorkloadRecord w : r.workloads()) {
            records.put(w.id(), w);
        }
        List<long[]> rows = new ArrayList<>(); // {abs error, wait, covered}
        int never = 0;
        for (Forecast f : probe.forecasts()) {
            WorkloadRecord w = records.get(f.workloadId());
            if (w == null || w.firstStartSeconds() < 0) {
                never++;
                continue;
            }
            long actual = Math.min(w.firstStartSeconds(), f.horizonEndSeconds());
            long predicted = Math.min(f.medianSeconds(), f.horizonEndSeconds());
            rows.add(new long[] {Math.abs(predicted - actual), w.firstStartSeconds() - f.madeAtSeconds(),
                    f.covers(w.firstStartSeconds()) ? 1 : 0, predicted - actual,
                    f.medianSeconds() == f.madeAtSeconds() ? 1 : 0});
        }
        List<WaitClass> classes = new ArrayList<>();
        for (int c = 0; c <= WAIT_CLASSES.length; c++) {
            long lo = c == 0 ? Long.MIN_VALUE : WAIT_CLASSES[c - 1];
            long hi = c == WAIT_CLASSES.length ? Long.MAX_VALUE : WAIT_CLASSES[c];
            List<long[]> in = rows.stream().filter(x -> x[1] >= lo && x[1] < hi).toList();
            classes.add(new WaitClass(WAIT_CLASS_NAMES.get(c), in.size(), quantile(in, 0.5), bias(in),
                    band ? coverage(in) : Double.NaN));
        }
        double mean = probe.forecastsMade() == 0 ? 0 : probe.forecastNanos() / 1e6 / probe.forecastsMade();
        return new Measure(method, policy, rows.size(), never, quantile(rows, 0.5), quantile(rows, 0.9),
                band ? coverage(rows) : Double.NaN, classes, mean, probe.forecastsMade(), split(rows, band));
    }

    private static BandSplit split(List<long[]> rows, boolean band) {
        List<long[]> atOnce = rows.stream().filter(x -> x[4] == 1).toList();
        List<long[]> waits = rows.stream().filter(x -> x[4] == 0).toList();
        return new BandSplit(atOnce.size(), band ? coverage(atOnce) : Double.NaN, waits.size(),
                band ? coverage(waits) : Double.NaN);
    }

    private static long quantile(List<long[]> rows, double q) {
        if (rows.isEmpty()) {
            return 0;
        }
        long[] e = rows.stream().mapToLong(x -> x[0]).toArray();
        Arrays.sort(e);
        return Forecaster.quantile(e, q);
    }

    /** The median of forecast minus actual: above 0, forecasts are late; below, early. */
    private static long bias(List<long[]> rows) {
        if (rows.isEmpty()) {
            return 0;
        }
        long[] e = rows.stream().mapToLong(x -> x[3]).toArray();
        Arrays.sort(e);
        return Forecaster.quantile(e, 0.5);
    }

    private static double coverage(List<long[]> rows) {
        return rows.isEmpty() ? Double.NaN : rows.stream().filter(x -> x[2] == 1).count() / (double) rows.size();
    }
}
