package dev.allot.server.forecast;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.server.sched.CoreBuilder;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Attempts;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import dev.allot.sim.forecast.DurationHistory;
import dev.allot.sim.forecast.RecentArrivals;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What the live forecasts know of the past, read from the store: how long finished work ran ({@link DurationHistory},
 * by user, allocation, kind and GPUs) and what was submitted in the last days ({@link RecentArrivals}), and the
 * durations workloads declared. Seeded once from the store (the finished work and the submissions of the last
 * {@link RecentArrivals#DAYS} days, the declared durations of all unfinished work), then kept learning: the new
 * submissions by their sequence number, and the workloads whose attempts ended ({@link #learnEnded}).
 *
 * <p>Why the declared durations are kept here: the core's spec of a workload that declared none carries
 * {@link CoreBuilder#DEFAULT_DURATION} (a year), a placeholder a forecast must not take for a declaration; only the
 * stored workload says whether it declared one. They are kept for unfinished work and for the recent submissions the
 * arrival model copies, and forgotten once both no longer apply.
 *
 * <p>Not thread-safe: the forecaster's one thread learns and forecasts, one after the other.
 */
final class LiveHistory {
    private static final long DAY_SECONDS = 86_400;
    /** Declared durations of finished work are kept this long after submission (the arrival model's reach + a day). */
    private static final long KEEP_DECLARED_SECONDS = (RecentArrivals.DAYS + 1) * DAY_SECONDS;
    private static final int PAGE = 10_000;

    private final DurationHistory durations;
    private final RecentArrivals arrivals = new RecentArrivals();
    private final Map<String, Declared> declared = new HashMap<>();
    private final ArrayDeque<String> declaredOrder = new ArrayDeque<>();
    private long lastSeq;
    private long firstSubmitSeconds = Long.MAX_VALUE;
    private int finishedLearnt;
    /** The finished work the seed learnt: the loop may report it ended too, after the seed read it (learnt once). */
    private final java.util.Set<String> seededFinished = new java.util.HashSet<>();
    private int roundsSinceSeed;

    private static final class Declared {
        final long seconds;
        final long submitSeconds;
        boolean ended;

        Declared(long seconds, long submitSeconds) {
            this.seconds = seconds;
            this.submitSeconds = submitSeconds;
        }
    }

    LiveHistory(Duration defaultDuration) {
        this.durations = new DurationHistory(defaultDuration, this::declared);
    }

    /** The duration {@code spec}'s workload declared, if it did (by id: the store's, not the core's placeholder). */
    OptionalLong declared(WorkloadSpec spec) {
        Declared d = declared.get(spec.id());
        return d == null ? OptionalLong.empty() : OptionalLong.of(d.seconds);
    }

    DurationHistory durations() {
        return durations;
    }

    RecentArrivals arrivals() {
        return arrivals;
    }

    /** Finished workloads whose running time it has learnt. */
    int finishedLearnt() {
        return finishedLearnt;
    }

    /**
     * Reads the store once: every workload in submission order (keeping the declared durations of the unfinished and
     * of the last days' submissions, and those submissions as arrivals), then the attempts of the last days, whose
     * finished workloads' running times it learns, in the order they ended.
     */
    void seed(Store store, long nowMillis) {
        seededFinished.clear();
        long now = Math.floorDiv(nowMillis, 1000);
        long since = now - RecentArrivals.DAYS * DAY_SECONDS;
        learnSubmissions(store, now, w -> !w.state().ended() || w.submittedAtMillis() / 1000 >= since - 3_600);
        Map<String, List<Attempt>> byWorkload = new LinkedHashMap<>();
        Map<String, Workload> workloads = new HashMap<>();
        for (Attempts.AttemptOfWorkload a : store.attempts().attemptsBetween(since * 1000, nowMillis)) {
            if (a.workload().state() == WorkloadState.COMPLETED || a.workload().state() == WorkloadState.FAILED) {
                byWorkload.computeIfAbsent(a.workload().id(), k -> new ArrayList<>()).add(a.attempt());
                workloads.put(a.workload().id(), a.workload());
            }
        }
        List<String> ids = new ArrayList<>(byWorkload.keySet());
        ids.sort(Comparator.comparingLong((String id) -> lastEnd(byWorkload.get(id))).thenComparing(id -> id));
        for (String id : ids) {
            learnFinished(workloads.get(id), byWorkload.get(id), now);
            seededFinished.add(id);
        }
    }

    /** Learns the submissions made since the last call (their arrivals and declared durations). */
    void learnSubmissions(Store store, long now) {
        learnSubmissions(store, now, w -> true);
        forgetOldDeclarations(now);
    }

    private void learnSubmissions(Store store, long now, java.util.function.Predicate<Workload> keepDeclared) {
        while (true) {
            List<Workload> page = store.workloads().workloads(WorkloadFilter.all().withAfterSeq(lastSeq)
                    .withLimit(PAGE));
            for (Workload w : page) {
                lastSeq = w.seq();
                long submitted = Math.floorDiv(w.submittedAtMillis(), 1000);
                firstSubmitSeconds = Math.min(firstSubmitSeconds, submitted);
                if (w.durationSeconds() != null && keepDeclared.test(w)) {
                    Declared d = new Declared(w.durationSeconds(), submitted);
                    d.ended = w.state().ended();
                    declared.put(w.id(), d);
                    declaredOrder.addLast(w.id());
                }
                if (submitted >= now - RecentArrivals.DAYS * DAY_SECONDS - 3_600) {
                    arrivals.learn(CoreBuilder.spec(w, Math.max(now, submitted)), firstSubmitSeconds);
                }
            }
            if (page.size() < PAGE) {
                return;
            }
        }
    }

    /**
     * Learns the running times of the workloads among {@code ids} that have finished (completed or failed: their
     * GPUs were given back when their work ended; cancelled work says nothing of how long work runs).
     */
    void learnEnded(Store store, Collection<String> ids, long now) {
        if (++roundsSinceSeed > 2) {
            seededFinished.clear(); // reports of what ended before the seed have all come by now
        }
        for (String id : ids) {
            if (seededFinished.remove(id)) {
                continue;
            }
            Workload w = store.workloads().workload(id).orElse(null);
            if (w == null || !w.state().ended()) {
                continue; // requeued: it runs again
            }
            Declared d = declared.get(id);
            if (d != null) {
                d.ended = true;
                if (d.submitSeconds < now - KEEP_DECLARED_SECONDS) {
                    declared.remove(id);
                }
            }
            if (w.state() == WorkloadState.COMPLETED || w.state() == WorkloadState.FAILED) {
                learnFinished(w, store.attempts().attempts(id), now);
            }
        }
    }

    private void learnFinished(Workload w, List<Attempt> attempts, long now) {
        long millis = 0;
        long firstStartMillis = Long.MAX_VALUE;
        for (Attempt a : attempts) {
            if (a.endedAtMillis() != null) {
                millis += Math.max(0, a.endedAtMillis() - a.startedAtMillis());
                firstStartMillis = Math.min(firstStartMillis, a.startedAtMillis());
            }
        }
        long seconds = Math.round(millis / 1000.0); // in all, over its attempts
        if (seconds > 0) {
            // when it first started and when it ended, so that a forecast counts the group's work still running
            // among the runs that started since the oldest end kept (DurationHistory.given), as the simulator's does
            durations.learn(CoreBuilder.spec(w, now), seconds, Math.floorDiv(firstStartMillis, 1000),
                    Math.floorDiv(lastEnd(attempts), 1000));
            finishedLearnt++;
        }
    }

    /** Forgets the declared durations of finished work submitted before the arrival model's reach. */
    private void forgetOldDeclarations(long now) {
        while (!declaredOrder.isEmpty()) {
            String id = declaredOrder.peekFirst();
            Declared d = declared.get(id);
            if (d != null && d.submitSeconds >= now - KEEP_DECLARED_SECONDS) {
                return;
            }
            declaredOrder.pollFirst();
            if (d != null && d.ended) {
                declared.remove(id); // unfinished: kept until its end is learnt (learnEnded forgets it then)
            }
        }
    }

    private static long lastEnd(List<Attempt> attempts) {
        long end = Long.MIN_VALUE;
        for (Attempt a : attempts) {
            if (a.endedAtMillis() != null) {
                end = Math.max(end, a.endedAtMillis());
            }
        }
        return end;
    }
}
