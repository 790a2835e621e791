package dev.allot.server.forecast;

import dev.allot.core.model.Durations;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.server.Daemons;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.sched.LoopObserver;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Store;
import dev.allot.sim.forecast.ForecastSettings;
import dev.allot.sim.forecast.Forecaster;
import dev.allot.sim.forecast.Forecasts;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forecasts when the waiting work of the live service will start, on a daemon thread of its own, at most every
 * interval: it takes an exact copy of the scheduler's core state between two cycles ({@link SchedulerLoop#inspect},
 * {@link ClusterState#fork}: the only moment it holds the loop), then, off the loop, plays the future from it several
 * times with the policy and settings the service runs ({@link Forecaster}): running work ends when it is expected to,
 * waiting and new work follows the policy. What it expects of durations and new work is a {@link LiveHistory} of the
 * store, seeded at start and kept learning (submissions read from the store each round, finished work as the loop
 * reports attempts ended: this is also a {@link LoopObserver}). The latest forecast is published at once
 * and whole ({@link #latest()}); the API, the CLI and the dashboard read it.
 *
 * <p>Why a thread of its own: a forecast of a big cluster takes far longer than a scheduling cycle, and a cycle must
 * never wait for it; the snapshot is the only part on the loop's monitor, and it is measured
 * ({@code allot_forecast_snapshot_seconds}) as is the forecast ({@code allot_forecast_seconds}).
 *
 * <p><b>Cost.</b> A forecast's time grows with the runs, the horizon and the size of the queue (10 runs over 2 days of
 * 1,024 x 8 GPUs with 10,000 waiting took about 100 s on 2 shared cores; 3 runs over 12 hours about 6 s). So that the
 * forecasting thread does not use a core without end on a big cluster, the settings adapt to a time budget (the
 * interval, {@link #adaptTo}): a forecast that took longer than the budget halves the runs for the next (down to
 * {@link #MIN_RUNS}), then the horizon (down to {@link #MIN_HORIZON}); one that took less than a quarter of it doubles
 * them back, up to the configured settings. What a forecast used is published with it (its runs and horizon).
 */
public final class LiveForecaster implements LoopObserver, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LiveForecaster.class);
    /** The default time between two forecasts. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
    /** What work is assumed to run when it declared nothing and nothing like it has finished yet. */
    public static final Duration DEFAULT_DURATION = Duration.ofHours(1);
    /** The fewest runs the settings adapt down to (a band needs a few). */
    public static final int MIN_RUNS = 3;
    /** The shortest horizon the settings adapt down to. */
    public static final Duration MIN_HORIZON = Duration.ofHours(12);

    private final Store store;
    private final SchedulerLoop loop;
    private final Supplier<ServicePolicy> policy;
    private final ForecastSettings settings;
    private final Duration defaultDuration;
    private final Clock clock;
    private final LiveHistory history;
    private final ConcurrentLinkedQueue<String> ended = new ConcurrentLinkedQueue<>();
    /** Workloads that started, noted on the loop's thread for the calibration. */
    private final ConcurrentLinkedQueue<Start> started = new ConcurrentLinkedQueue<>();
    /** Widens bands by the track record of the forecasts made when each workload was first seen waiting. */
    private final dev.allot.sim.forecast.BandCalibration calibration;
    private final java.util.Set<String> expected = new java.util.LinkedHashSet<>();
    private final AtomicReference<LiveForecast> latest = new AtomicReference<>();
    private volatile ScheduledExecutorService thread;
    private volatile Timer snapshotTimer;
    private volatile Timer forecastTimer;
    private volatile Runnable afterSnapshot = () -> { };
    /** The settings of the next forecast: the configured ones, or fewer runs and a shorter horizon (see Cost). */
    private volatile ForecastSettings current;
    /** The time a forecast should stay within; 0: no adapting. */
    private volatile long budgetNanos;
    private final Object lifecycle = new Object();
    /** Whether ended attempts are noted: once forecasting is on (off, nothing would ever read them). */
    private volatile boolean listening;
    private volatile boolean closing;
    private boolean seeded;

    /**
     * @param policy the policy the service runs now (read at each forecast: a policy changed through the API is
     *               forecast with from the next one)
     */
    public LiveForecaster(Store store, SchedulerLoop loop, Supplier<ServicePolicy> policy, ForecastSettings settings,
                          Duration defaultDuration, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.loop = Objects.requireNonNull(loop, "loop");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.defaultDuration = Objects.requireNonNull(defaultDuration, "defaultDuration");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.history = new LiveHistory(defaultDuration);
        this.current = settings;
        this.calibration = new dev.allot.sim.forecast.BandCalibration(settings.high() - settings.low());
    }

    /**
     * Adapts the settings so that a forecast takes at most about {@code budget} (see Cost); {@link #start} adapts to
     * its interval.
     */
    public void adaptTo(Duration budget) {
        this.budgetNanos = budget.toNanos();
    }

    /** The settings the next forecast uses. */
    public ForecastSettings currentSettings() {
        return current;
    }

    /** The forecast settings a service uses: the defaults ({@link ForecastSettings#defaults()}). */
    public static ForecastSettings serviceSettings() {
        return ForecastSettings.defaults();
    }

    /** Records the snapshot's and the forecast's times in {@code registry}. */
    public void metrics(MeterRegistry registry) {
        snapshotTimer = Timer.builder("allot.forecast.snapshot")
                .description("time a forecast's snapshot of the scheduler's state held the scheduling loop")
                .register(registry);
        forecastTimer = Timer.builder("allot.forecast")
                .description("time a forecast of the waiting work's starts took, off the scheduling loop")
                .register(registry);
    }

    /**
     * Forecasts on a daemon thread, {@code interval} apart (from the end of one to the start of the next); a zero
     * interval turns forecasting off (nothing is ever published).
     */
    public void start(Duration interval) {
        synchronized (lifecycle) {
            startLocked(interval);
        }
    }

    private void startLocked(Duration interval) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("the forecast interval must not be negative, got " + interval);
        }
        if (interval.isZero()) {
            LOG.info("forecasts of waiting work's starts are off (forecast interval 0)");
            return;
        }
        if (thread != null) {
            throw new IllegalStateException("the forecaster is already running");
        }
        listening = true;
        adaptTo(interval);
        thread = Daemons.single("allot-forecast");
        thread.scheduleWithFixedDelay(this::roundOnThread, interval.toNanos(), interval.toNanos(),
                TimeUnit.NANOSECONDS);
        LOG.info("forecasting waiting work's starts at most every {} ({} runs, horizon {}, default duration {})",
                Durations.format(interval), settings.runs(), Durations.format(settings.horizon()),
                Durations.format(defaultDuration));
    }

    /** Whether forecasts are made ({@link #start} with a positive interval). */
    public boolean running() {
        return thread != null;
    }

    /** The latest forecast; empty before the first, and always when forecasting is off. */
    public Optional<LiveForecast> latest() {
        return Optional.ofNullable(latest.get());
    }

    private void roundOnThread() {
        try {
            forecastNow();
        } catch (RuntimeException | AssertionError e) {
            if (closing) {
                LOG.info("the forecast in progress was cut short by the stop: {}", e.toString());
                return;
            }
            // caught: a periodic task that throws is never run again
            LOG.warn("the forecast failed; trying again at the next interval", e);
        }
    }

    /**
     * One forecast on the caller's thread (the forecaster's own, or a test's or a benchmark's): takes the snapshot,
     * learns what happened since the last one, forecasts and publishes. Empty when the scheduler has not loaded yet.
     */
    public synchronized Optional<LiveForecast> forecastNow() {
        listening = true;
        // the snapshot first: every workload in it was read from the store by the loop, so the reads below find
        // what each declared; only the fork holds the loop (measured inside, not the wait for a cycle to end)
        long[] heldNanos = new long[1];
        Optional<ClusterState> snapshot = loop.inspect((state, at) -> {
            long t0 = System.nanoTime();
            ClusterState fork = state.fork(state.tree(), Job::durationSeconds);
            heldNanos[0] = System.nanoTime() - t0;
            return fork;
        });
        long snapshotNanos = heldNanos[0];
        long nowMillis = clock.millis();
        long now = Math.floorDiv(nowMillis, 1000);
        if (!seeded) {
            history.seed(store, nowMillis);
            seeded = true;
        } else {
            history.learnSubmissions(store, now);
        }
        List<String> endedIds = new ArrayList<>();
        for (String id; (id = ended.poll()) != null; ) {
            endedIds.add(id);
        }
        history.learnEnded(store, endedIds, now);
        if (snapshot.isEmpty()) {
            return Optional.empty();
        }
        afterSnapshot.run();
        ServicePolicy p = policy.get();
        ForecastSettings used = current;
        Forecaster forecaster = new Forecaster(PolicyRegistry.standard().get(ServicePolicy.POLICY), p.allocation(),
                used);
        ClusterState state = snapshot.get();
        long t1 = System.nanoTime();
        Forecasts f = forecaster.forecast(state, state.tree(), Set.of(), history.durations(), history.arrivals());
        long forecastNanos = System.nanoTime() - t1;
        adapt(used, forecastNanos);
        f = calibrated(f);
        LiveForecast out = new LiveForecast(f, used, ServicePolicy.POLICY + " (" + p.source() + ")", defaultDuration,
                history.finishedLearnt(), snapshotNanos, forecastNanos);
        latest.set(out);
        Timer s = snapshotTimer;
        if (s != null) {
            s.record(snapshotNanos, TimeUnit.NANOSECONDS);
            forecastTimer.record(forecastNanos, TimeUnit.NANOSECONDS);
        }
        LOG.debug("forecast {} waiting workloads in {} ms (snapshot held the loop {} ms; {} runs, {} decisions)",
                f.byWorkload().size(), forecastNanos / 1_000_000, snapshotNanos / 1_000_000, f.runs(), f.decisions());
        return Optional.of(out);
    }

    /**
     * Learns where the workloads forecast when first seen waiting actually started ({@link
     * dev.allot.sim.forecast.BandCalibration}), remembers the first forecast of the ones newly waiting, and returns
     * {@code raw} with its bands calibrated (medians as the runs gave them).
     */
    private Forecasts calibrated(Forecasts raw) {
        for (Start st; (st = started.poll()) != null; ) {
            if (expected.remove(st.workloadId())) {
                calibration.started(st.workloadId(), st.atSeconds());
            }
        }
        for (java.util.Iterator<String> i = expected.iterator(); i.hasNext(); ) {
            String id = i.next();
            if (!raw.byWorkload().containsKey(id)) { // cancelled or no longer waiting
                calibration.forget(id);
                i.remove();
            }
        }
        java.util.Map<String, dev.allot.sim.forecast.Forecast> out = new java.util.LinkedHashMap<>();
        for (dev.allot.sim.forecast.Forecast f : raw.byWorkload().values()) {
            out.put(f.workloadId(), calibration.apply(f));
        }
        for (dev.allot.sim.forecast.Forecast f : raw.byWorkload().values()) {
            if (expected.add(f.workloadId())) {
                calibration.expect(f); // its first forecast, made when first seen waiting
            }
        }
        return new Forecasts(raw.madeAtSeconds(), raw.horizonEndSeconds(), raw.runs(), out, raw.arrivalsBasis(),
                raw.decisions(), raw.arrivalsPerRun());
    }

    private void adapt(ForecastSettings used, long tookNanos) {
        long budget = budgetNanos;
        if (budget <= 0) {
            return;
        }
        ForecastSettings next = used;
        if (tookNanos > budget) {
            if (used.runs() > MIN_RUNS) {
                next = used.withRuns(Math.max(MIN_RUNS, used.runs() / 2));
            } else if (used.horizon().compareTo(MIN_HORIZON) > 0) {
                next = used.withHorizon(max(MIN_HORIZON, used.horizon().dividedBy(2)));
            }
        } else if (tookNanos < budget / 4) {
            if (used.horizon().compareTo(settings.horizon()) < 0) {
                next = used.withHorizon(min(settings.horizon(), used.horizon().multipliedBy(2)));
            } else if (used.runs() < settings.runs()) {
                next = used.withRuns(Math.min(settings.runs(), used.runs() * 2));
            }
        }
        if (!next.equals(used)) {
            LOG.info("the forecast took {} ms (budget {} ms): the next plays {} runs over {}", tookNanos / 1_000_000,
                    budget / 1_000_000, next.runs(), Durations.format(next.horizon()));
            current = next;
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** For tests: runs between the snapshot and the forecast, on the forecasting thread, off the loop's monitor. */
    void afterSnapshot(Runnable hook) {
        this.afterSnapshot = Objects.requireNonNull(hook, "hook");
    }

    @Override
    public void started(String workloadId, String allocation, long waitSeconds) {
        if (listening) {
            started.add(new Start(workloadId, Math.floorDiv(clock.millis(), 1000))); // on the loop's thread: noted
        }
    }

    /** A workload that started at a time (seconds). */
    private record Start(String workloadId, long atSeconds) {
    }

    @Override
    public void ended(String workloadId, String allocation, AttemptOutcome outcome) {
        if (listening) {
            ended.add(workloadId); // on the loop's thread: only noted, read at the next forecast
        }
    }

    /**
     * Stops the forecasting thread. A forecast's runs do not stop when interrupted: one in progress on a big cluster
     * may finish in the background after this returns (it writes nothing; its result is dropped with the service).
     */
    @Override
    public void close() {
        closing = true;
        ScheduledExecutorService t;
        synchronized (lifecycle) {
            t = thread;
            thread = null;
        }
        if (t != null) {
            Daemons.stop(t, Duration.ofSeconds(2), "the forecasting thread");
        }
    }
}
