package dev.allot.server.backend;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A backend that runs nothing: an attempt started at T whose launch says it takes D ends with exit code 0 once the
 * clock reaches T + D / timeScale, and a stopped attempt ends at once (a simulated workload honours SIGTERM
 * immediately, so the grace period never matters). It exists for demos and for testing the service without GPUs;
 * time comes from the injected {@link Clock}, so a test that moves a clock by hand sees exactly the same outcome
 * every run.
 *
 * <p>A launch without a duration runs until it is stopped. A restarted service gives a new backend the runs its store
 * says were started and have not ended ({@link #remember}), so that its running work keeps running. Nothing is computed in the background: every
 * {@link #observe} derives each attempt's phase from the clock, so an attempt whose end time has passed is
 * {@code EXITED} however late anyone looks. Safe to call from several threads (every method holds the lock).
 */
public final class SimulatedBackend implements Backend {

    private final Clock clock;
    private final double timeScale;
    private final SortedMap<AttemptKey, Run> runs = new TreeMap<>();

    /** What the backend remembers of one attempt: when it started, when it ends by itself, when it was stopped. */
    private record Run(AttemptKey key, Instant startedAt, Instant endsAt, Instant stoppedAt) {
        /** The run stopped at {@code now}. */
        Run stopped(Instant now) {
            return new Run(key, startedAt, endsAt, now);
        }
    }

    /**
     * @param clock     where time comes from
     * @param timeScale how much faster than real time simulated work runs: 1 runs a one-hour job for an hour, 60
     *                  for a minute; must be at least 1 (a simulated job never takes longer than its real duration)
     */
    public SimulatedBackend(Clock clock, double timeScale) {
        this.clock = Objects.requireNonNull(clock, "clock");
        if (!(timeScale >= 1) || Double.isInfinite(timeScale)) {
            throw new IllegalArgumentException("timeScale must be a finite number >= 1, got " + timeScale);
        }
        this.timeScale = timeScale;
    }

    /** Simulated work at real speed. */
    public SimulatedBackend(Clock clock) {
        this(clock, 1);
    }

    @Override
    public String name() {
        return "simulated";
    }

    @Override
    public String outputElsewhere() {
        return "the simulated backend runs no processes, so its attempts write no output";
    }

    @Override
    public synchronized void start(Launch launch) {
        AttemptKey key = launch.attempt();
        if (runs.containsKey(key)) {
            return;
        }
        Duration duration = launch.duration();
        if (duration != null && duration.isNegative()) {
            throw new BackendException(key + ": a simulated duration cannot be negative, got " + duration);
        }
        Instant now = clock.instant();
        runs.put(key, new Run(key, now, duration == null ? null : endOf(now, duration), null));
    }

    /**
     * Remembers a run started before this backend was made, by an earlier process of the service (the store says it
     * was started and has not ended): what a real backend does when a restarted scheduler probes work that outlived
     * it. A simulated run lives only in memory, so without this a restart would find every running workload unknown
     * and end it as lost. The run ends by itself at {@code startedAt + duration / timeScale} (never, for a null
     * duration), or was stopped at {@code stoppedAt} (null: never asked) if that came first: a simulated workload
     * honours a stop at once. A run this backend already knows is left as it is.
     */
    public synchronized void remember(AttemptKey key, Instant startedAt, Duration duration, Instant stoppedAt) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(startedAt, "startedAt");
        if (runs.containsKey(key)) {
            return;
        }
        Instant endsAt = duration == null || duration.isNegative() ? null : endOf(startedAt, duration);
        boolean stoppedFirst = stoppedAt != null && (endsAt == null || stoppedAt.isBefore(endsAt));
        runs.put(key, new Run(key, startedAt, endsAt, stoppedFirst ? stoppedAt : null));
    }

    /** T + D / timeScale, or null (never) when that lies beyond what an Instant can hold. */
    private Instant endOf(Instant start, Duration duration) {
        double scaledSeconds = (duration.getSeconds() + duration.getNano() / 1e9) / timeScale;
        long wholeSeconds = (long) Math.floor(scaledSeconds);
        long nanos = Math.round((scaledSeconds - wholeSeconds) * 1e9);
        try {
            return start.plusSeconds(wholeSeconds).plusNanos(nanos);
        } catch (java.time.DateTimeException | ArithmeticException beyondTime) {
            return null;
        }
    }

    @Override
    public synchronized void stop(AttemptKey attempt, Duration grace) {
        Objects.requireNonNull(grace, "grace");
        Run run = runs.get(attempt);
        if (run == null) {
            return; // never started here, or forgotten: nothing to stop
        }
        Instant now = clock.instant();
        if (status(run, now).ended()) {
            return;
        }
        runs.put(attempt, run.stopped(now));
    }

    @Override
    public synchronized List<AttemptStatus> observe() {
        Instant now = clock.instant();
        List<AttemptStatus> statuses = new ArrayList<>(runs.size());
        for (Run run : runs.values()) {
            statuses.add(status(run, now));
        }
        return statuses;
    }

    @Override
    public synchronized void forget(AttemptKey attempt) {
        Run run = runs.get(attempt);
        if (run == null) {
            return;
        }
        AttemptStatus status = status(run, clock.instant());
        if (!status.ended()) {
            throw new IllegalStateException("cannot forget " + attempt + ": it is " + status.phase()
                    + ", not ended; stop it and wait until observe reports it ended");
        }
        runs.remove(attempt);
    }

    /**
     * When the next attempt still running ends by itself, if any will: for a driver that moves the clock from event
     * to event (a replay) instead of tick by tick.
     */
    public synchronized java.util.Optional<Instant> nextEnd() {
        Instant now = clock.instant();
        return runs.values().stream().filter(r -> r.stoppedAt() == null && r.endsAt() != null && r.endsAt().isAfter(now))
                .map(Run::endsAt).min(Instant::compareTo);
    }

    private static AttemptStatus status(Run run, Instant now) {
        if (run.stoppedAt() != null) { // recorded only while the run had not ended by itself
            return new AttemptStatus(run.key(), Phase.STOPPED, null,
                    "stopped after " + Duration.between(run.startedAt(), run.stoppedAt()) + " (simulated)");
        }
        if (run.endsAt() != null && !now.isBefore(run.endsAt())) {
            return new AttemptStatus(run.key(), Phase.EXITED, 0,
                    "completed after " + Duration.between(run.startedAt(), run.endsAt()) + " (simulated)");
        }
        return new AttemptStatus(run.key(), Phase.RUNNING, null, null);
    }
}
