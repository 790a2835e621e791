package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.core.state.Job;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Attempts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sending, the part of {@link Carrier} that tells the backend what the carrying out decided: the attempts begun are
 * started and the attempts asked to stop are stopped, each kind together in one call ({@link Backend#startAll},
 * {@link Backend#stopAll}), and, while {@link #together} runs an instant, only once the store has committed that
 * instant's batch (attempts begun, stops marked). Apart from {@link Carrier} because when and how the backend hears of
 * starts and stops (durable first, batched; issue 21) is one idea, and what to start, stop and record is another.
 * Works on the loop's shared {@link LoopCore}, on the loop's thread.
 */
final class Dispatcher {
    /** The loop's logger, so that what the parts say is logged as before the loop was split. */
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    private final LoopCore c;

    Dispatcher(LoopCore c) {
        this.c = Objects.requireNonNull(c, "core");
    }

    /**
     * Carries out a decision instant, or a round of deferred launches ({@code instant}), with its store calls
     * (attempts begun, stops marked) in one batch: then the backend hears of the stops, then of the starts, each only
     * once durable, as one at a time they were. A
     * thousand preemptions and starts were two thousand commits (an fsync each; issue 21). A batch that fails makes
     * the loop start again from the store, as after a restart; the backend was told nothing of it.
     */
    void together(Runnable instant) {
        List<PendingStart> starts = new ArrayList<>();
        startsLater = starts;
        List<Attempts.StopMark> marks = new ArrayList<>();
        stopMarks = marks;
        try {
            c.store.batch(() -> {
                instant.run();
                stopMarks = null;
                c.store.attempts().markStopping(marks);
            });
        } catch (RuntimeException e) {
            c.forget();
            throw e;
        } finally {
            startsLater = null;
            stopMarks = null;
        }
        sendUnsentStops();
        sendStarts(starts);
    }

    /**
     * While {@link #together} runs: the attempts asked to stop, marked stopping in the store together at the end of
     * the instant (one statement for a thousand; issue 21) and sent once the batch has committed.
     */
    private List<Attempts.StopMark> stopMarks;

    /**
     * Marks the attempt stopping in the store (at its {@link LiveAttempt#stopRequestedAtMillis}) and asks the backend
     * to stop it; while {@link #together} runs, both wait: the marks are stored together at the instant's end, in its
     * batch, and the stops are sent once that has committed.
     */
    void stop(LiveAttempt l) {
        if (stopMarks != null) {
            stopMarks.add(new Attempts.StopMark(l.key, l.stopRequestedAtMillis));
            return;
        }
        c.store.attempts().markStopping(l.key, l.stopRequestedAtMillis);
        if (stopsLater != null) {
            stopsLater.add(l);
            return;
        }
        sendStop(l);
    }

    /** While {@link #sendingAfter} runs: the stops asked for, sent once it is done. */
    private List<LiveAttempt> stopsLater;

    /**
     * Runs {@code change}, which may ask for stops, and sends them once it is done: for a change that builds the
     * core's state anew ({@link TopologyChanges#rebuild}), during which the state is not whole, so that the backend is not
     * called (and the API's reads let in, see {@link StateLock}) halfway.
     */
    void sendingAfter(Runnable change) {
        if (stopsLater != null) {
            change.run();
            return;
        }
        List<LiveAttempt> later = new ArrayList<>();
        stopsLater = later;
        try {
            change.run();
        } finally {
            stopsLater = null;
        }
        sendStops(later);
    }

    private void sendStop(LiveAttempt l) {
        sendStops(List.of(l));
    }

    /** Sends the stops asked for (in the store) and not sent yet, together. */
    void sendUnsentStops() {
        List<LiveAttempt> unsent = new ArrayList<>();
        for (LiveAttempt l : c.books.live.values()) {
            if (l.stopping && !l.stopSent) {
                unsent.add(l);
            }
        }
        sendStops(unsent);
    }

    /**
     * Asks the backend to stop these attempts, together ({@link Backend#stopAll}: a backend whose every stop is a
     * command may send them at once); one it could not ask is asked again next cycle.
     */
    private void sendStops(List<LiveAttempt> ls) {
        if (ls.isEmpty()) {
            return;
        }
        List<Backend.Stop> stops = new ArrayList<>(ls.size());
        for (LiveAttempt l : ls) {
            Duration left = c.grace;
            if (l.stopRequestedAtMillis >= 0) {
                // After a restart, only what is left of the grace period the first request gave.
                long spent = Math.max(0, c.clock.millis() - l.stopRequestedAtMillis);
                left = c.grace.minusMillis(Math.min(spent, c.grace.toMillis()));
            }
            stops.add(new Backend.Stop(l.key, left, stopWords(l)));
        }
        Map<AttemptKey, BackendException> failed = ask(() -> c.backend.stopAll(stops, Backend.OPEN),
                stops.stream().map(Backend.Stop::attempt).toList());
        for (LiveAttempt l : ls) {
            BackendException e = failed.get(l.key);
            if (e != null) {
                LOG.warn("could not stop {} on the {} backend, trying again next cycle: {}", l.key, c.backend.name(),
                        e.getMessage());
                continue;
            }
            l.stopSent = true;
            c.stopsThisCycle = true;
        }
    }

    /**
     * Starts on the backend a launch begun in the store: at once, or, while {@link #together} holds the instant's store
     * calls in one batch, once that batch has committed ({@link #sendStarts}).
     */
    void start(LiveAttempt l, Job job, Launch launch, long now, long nowMillis) {
        PendingStart start = new PendingStart(l, job, launch, now, nowMillis);
        if (startsLater != null) {
            startsLater.add(start);
        } else {
            sendStarts(List.of(start));
        }
    }

    /** A launch begun in the store whose backend start waits for the batch of its instant to commit. */
    private record PendingStart(LiveAttempt attempt, Job job, Launch launch, long now, long nowMillis) {
    }

    /** While {@link #together} runs: the starts the backend hears of once the instant's batch has committed. */
    private List<PendingStart> startsLater;

    /**
     * Asks the backend to start launches begun in the store, together ({@link Backend#startAll}: a backend whose every
     * start is a command may send them at once). One refused fails, and the core lets its job go (its GPUs come back,
     * the policy decides again); one not known to have started is asked again next cycle.
     */
    private void sendStarts(List<PendingStart> ps) {
        if (ps.isEmpty()) {
            return;
        }
        List<Launch> launches = ps.stream().map(PendingStart::launch).toList();
        Map<AttemptKey, BackendException> failed = ask(() -> c.backend.startAll(launches, Backend.OPEN),
                launches.stream().map(Launch::attempt).toList());
        for (PendingStart p : ps) {
            started(p, failed.get(p.attempt().key));
        }
    }

    /** Applies what the backend answered to one start: null if it took it. */
    private void started(PendingStart p, BackendException failure) {
        LiveAttempt l = p.attempt();
        Job job = p.job();
        if (failure instanceof BackendUnavailableException e) {
            // Not known to have started nor to have been refused: the attempt stays launching (it holds its GPUs) and
            // the start is asked again next cycle; the backend's start is idempotent, so this never runs it twice.
            // It is told as started (log, counters) once the backend confirms it (Carrier.retryStart): until then an
            // operator reading "started" took a start the backend never heard of for a launch.
            l.startUnconfirmed = true;
            LOG.warn("could not tell whether the {} backend started {}; asking again next cycle: {}", c.backend.name(),
                    l.key, e.getMessage());
            return;
        } else if (failure != null) {
            c.books.live.remove(l.key);
            c.books.runningAttempt.remove(job.id());
            c.store.attempts().endAttempt(l.key, AttemptOutcome.FAILED, c.carrier.refusedReason(),
                    failure.getMessage(), null, null, p.nowMillis());
            c.dirty = true;
            if (!job.state().isFinal()) {
                c.state.cancel(job, p.now());
            }
            c.active.remove(job.id());
            c.failures++;
            return;
        }
        launched(job.id(), job.spec().allocation(), p.now());
    }

    /**
     * Counts and tells a start the backend took ({@link LoopObserver#started}), with its wait from when it queued to
     * {@code startedAt}, the instant the policy started it.
     */
    void launched(String jobId, String allocation, long startedAt) {
        c.starts++;
        Long since = c.queuedSince.remove(jobId);
        c.observer.started(jobId, allocation, since == null ? 0 : Math.max(0, startedAt - since));
    }

    /** What a batch call of the backend answered; a batch refused as a whole fails for each of its attempts. */
    private static Map<AttemptKey, BackendException> ask(Supplier<Map<AttemptKey, BackendException>> call,
                                                         List<AttemptKey> keys) {
        try {
            return call.get();
        } catch (BackendException e) {
            Map<AttemptKey, BackendException> all = new HashMap<>();
            keys.forEach(k -> all.put(k, e));
            return all;
        }
    }

    /**
     * Why an attempt is stopped, in the words the backend shows (a Slurm job's comment): "cancelled", "preempted by
     * w-3", "drained: host gpu-04 is unhealthy" (it said "stopped: host_drain"), else the cause's kind in words.
     */
    static String stopWords(LiveAttempt l) {
        if (l.cancelled) {
            return "cancelled";
        }
        if (l.cause == null) {
            return null;
        }
        if (l.cause.preemptorId() != null) {
            return "preempted by " + l.cause.preemptorId();
        }
        if (l.cause.kind() == dev.allot.core.policy.PreemptionCause.Kind.HOST_DRAIN) {
            return "drained: host " + (l.cause.node() == null ? "" : l.cause.node() + " ") + "is unhealthy";
        }
        return "stopped: " + l.cause.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }
}
