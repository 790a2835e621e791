package dev.allot.sim.forecast;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.sim.SimulationAgent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Rides along a simulation and forecasts, at the instant chosen workloads are submitted (after that instant's
 * submissions, before the policy decides, as a user submitting and then asking would see it), when they will start.
 * It learns as the service would: durations of work as it finishes, arrivals as they come; it never reads a
 * workload's duration before the workload ends. With a calibration it forecasts, at those instants, all waiting work
 * (as the service does each round) and calibrates from the first forecast of every workload, not only the sampled
 * ones; only the sampled ones are measured. It never changes the run.
 */
final class ForecastProbe implements SimulationAgent {
    private final Forecaster forecaster;
    private final DurationModel durations;
    private final DurationHistory history;
    private final ArrivalModel arrivals;
    private final RecentArrivals recent;
    private final Predicate<String> sampled;
    private final Set<String> submittedNow = new HashSet<>();
    private final List<Forecast> forecasts = new ArrayList<>();
    private final BandCalibration calibration;
    private final Set<String> expected = new HashSet<>();
    private long forecastNanos;
    private int forecastsMade;

    /**
     * @param durations what the forecasts assume of durations ({@code history}, or time limits for the baseline)
     * @param history   learns of finished work (may be unused by {@code durations})
     * @param arrivals  what the forecasts expect of new work
     * @param recent    learns of submissions (may be unused by {@code arrivals})
     * @param calibration learns where forecast work actually started and adjusts later bands; null for raw bands
     */
    ForecastProbe(Forecaster forecaster, DurationModel durations, DurationHistory history, ArrivalModel arrivals,
                  RecentArrivals recent, BandCalibration calibration, Predicate<String> sampled) {
        this.forecaster = forecaster;
        this.durations = durations;
        this.history = history;
        this.arrivals = arrivals;
        this.recent = recent;
        this.calibration = calibration;
        this.sampled = sampled;
    }

    @Override
    public void onSubmit(long time, Job job) {
        recent.learn(job.spec(), 0);
        if (sampled.test(job.id())) {
            submittedNow.add(job.id());
        }
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        if (calibration != null) {
            calibration.started(job.id(), time);
        }
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        history.learn(job.spec(), job.durationSeconds(), job.firstStartSeconds(), time);
    }

    @Override
    public long nextActionSeconds() {
        return Long.MAX_VALUE;
    }

    @Override
    public boolean wantsToAct() {
        return false;
    }

    @Override
    public boolean act(long time, Actions actions) {
        if (submittedNow.isEmpty()) {
            return false;
        }
        ClusterState state = actions.state();
        long t0 = System.nanoTime();
        // with a calibration, all waiting work is forecast (as the service does), so the calibration learns from the
        // first forecast of every workload, not only of the sampled ones
        Set<String> ids = calibration == null ? Set.copyOf(submittedNow) : Set.of();
        Forecasts f = forecaster.forecast(state, state.tree(), ids, durations, arrivals);
        forecastNanos += System.nanoTime() - t0;
        forecastsMade++;
        for (Forecast raw : f.byWorkload().values()) {
            if (submittedNow.contains(raw.workloadId())) {
                forecasts.add(calibration == null ? raw : calibration.apply(raw));
            }
        }
        if (calibration != null) {
            for (Forecast raw : f.byWorkload().values()) {
                if (expected.add(raw.workloadId())) {
                    calibration.expect(raw);
                }
            }
        }
        submittedNow.clear();
        return false;
    }

    List<Forecast> forecasts() {
        return forecasts;
    }

    long forecastNanos() {
        return forecastNanos;
    }

    int forecastsMade() {
        return forecastsMade;
    }
}
