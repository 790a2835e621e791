package dev.allot.server.sched;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Attempts;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.sim.forecast.DurationHistory;
import dev.allot.sim.forecast.RecentArrivals;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * The models a what-if assumes, read from the store when asked: durations as declared, else from the running times of
 * the work that completed in the last {@link RecentArrivals#DAYS} days ({@link DurationHistory}), and new work like
 * that submitted at the same hour of a recent one of those days ({@link RecentArrivals}). A completed attempt's running time is the
 * work's running time in all: the service learns of no checkpoint, so a preempted attempt's work is lost and the
 * completing attempt ran it all.
 *
 * <p>Read afresh for each what-if (a what-if is rare and asked by a person); a live forecaster that learns as work
 * ends and arrives can replace it.
 */
public final class WhatIfHistory {
    /** What work that declares no duration and is like nothing measured is assumed to run. */
    public static final Duration DEFAULT_DURATION = Duration.ofHours(1);
    private static final long DAY_MILLIS = 86_400_000L;

    /** The two models. */
    public record Models(DurationHistory durations, RecentArrivals arrivals) {
    }

    private WhatIfHistory() {
    }

    /** The models as of {@code nowSeconds}, from what the store holds. */
    public static Models read(Store store, long nowSeconds) {
        long nowMillis = nowSeconds * 1000;
        long since = nowMillis - RecentArrivals.DAYS * DAY_MILLIS;
        DurationHistory durations = new DurationHistory(DEFAULT_DURATION, WhatIfHistory::declared);
        List<Attempts.AttemptOfWorkload> attempts = store.attempts().attemptsBetween(since, nowMillis);
        for (Attempts.AttemptOfWorkload a : attempts) {
            Long ended = a.attempt().endedAtMillis();
            if (a.attempt().outcome() == AttemptOutcome.COMPLETED && ended != null) {
                durations.learn(CoreBuilder.spec(a.workload(), nowSeconds),
                        Math.floorDiv(ended - a.attempt().startedAtMillis(), 1000));
            }
        }
        RecentArrivals arrivals = new RecentArrivals();
        List<Workload> all = store.workloads().workloads(WorkloadFilter.all());
        // the history begins with the first submission the store holds: days before it are not offered
        long first = Math.floorDiv(all.stream().mapToLong(Workload::submittedAtMillis).min().orElse(nowMillis), 1000);
        List<Workload> recent = all.stream()
                .filter(w -> w.submittedAtMillis() >= since && w.submittedAtMillis() <= nowMillis)
                .sorted(Comparator.comparingLong(Workload::submittedAtMillis).thenComparingLong(Workload::seq))
                .toList();
        for (Workload w : recent) {
            arrivals.learn(CoreBuilder.spec(w, nowSeconds), first);
        }
        return new Models(durations, arrivals);
    }

    /** The duration a workload declared: the core's spec carries {@link CoreBuilder#DEFAULT_DURATION} when none. */
    static OptionalLong declared(WorkloadSpec spec) {
        return spec.duration().equals(CoreBuilder.DEFAULT_DURATION) ? OptionalLong.empty()
                : OptionalLong.of(spec.duration().getSeconds());
    }
}
