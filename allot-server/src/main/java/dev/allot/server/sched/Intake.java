package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.server.store.Attempts;
import dev.allot.server.store.BrakeLimits;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadChanges;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Intake, the part of a {@link SchedulerLoop} cycle that takes in what the store says of the workloads: new
 * submissions admitted to the core, cancellations applied, the safety brakes ({@link Brakes}) holding and releasing
 * waiting work. Works on the loop's shared {@link LoopCore}, on the loop's thread.
 *
 * <p>The whole list of workloads not ended is read once, when the core is loaded ({@link Adoption#load}); after
 * that a cycle reads only the rows changed since the last it saw ({@link dev.allot.server.store.Workloads#changesSince}: the store stamps
 * every change of a workload row, and its cursor misses no change, PostgreSQL's transactions committing out of order
 * included), and takes each in from what the loop holds in memory: a submission is admitted; a workload the core has
 * that ended in the store, or whose cancellation was requested, is cancelled (a waiting one cancelled through the API
 * is ended in the store at once, and is seen so, with or without a hint); a workload held by a brake that ended
 * leaves the held ones. The loop's own writes come back too, and change nothing. The brakes are checked again over
 * what the loop holds when their limits change ({@link SchedulerLoop#brakesChanged()}, and a read of the limits
 * every {@link SchedulerLoop#BRAKES_REFRESH_SECONDS} in case another instance changed them), not by reading every
 * workload again. (Issue 21: the 30-second full read was the cycle's p99, 280 ms at 12,000 workloads.)
 */
final class Intake {
    /** The loop's logger, so that what the parts say is logged as before the loop was split. */
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    private final LoopCore c;

    Intake(LoopCore c) {
        this.c = Objects.requireNonNull(c, "core");
    }

    boolean waitsForCore(Workload w) {
        return !w.cancelRequested() && w.state().waiting();
    }

    /** Every workload not ended, in seq order, page by page. */
    List<Workload> notEnded() {
        List<Workload> all = new ArrayList<>();
        WorkloadFilter f = WorkloadFilter.all().withStates(WorkloadState.PENDING, WorkloadState.RUNNING,
                WorkloadState.REQUEUED);
        while (true) {
            List<Workload> page = c.store.workloads().workloads(f);
            all.addAll(page);
            if (page.size() < f.limit()) {
                return all;
            }
            f = f.withAfterSeq(page.get(page.size() - 1).seq());
        }
    }

    /** Registers and submits a stored workload to the core; one a brake holds is kept among the held instead. */
    void admit(Workload w, long now) {
        Attempts.RunTotals totals = c.brakes.totalsOf(w, now * 1000);
        String held = c.brakes.verdict(w, totals);
        if (held != null) {
            c.held.put(w.id(), held);
            return;
        }
        c.held.remove(w.id());
        Job job;
        try {
            job = CoreBuilder.register(c.state, w, now);
        } catch (IllegalArgumentException e) {
            if (c.refused.put(w.id(), e.getMessage()) == null) {
                LOG.warn("workload {} cannot be scheduled: {}", w.id(), e.getMessage());
            }
            return;
        }
        c.state.submit(job, now);
        // preempted before (a restart, a rebuild that found it in the store): the shortest turn counts it
        c.state.restorePreemptions(job, totals.preemptions());
        c.active.put(job.id(), job);
        c.stored.put(job.id(), w);
        c.dirty = true;
        c.queuedSince.put(job.id(), job.spec().submitSeconds());
    }

    /**
     * Takes in what changed in the store since the last cycle (see the class notes), and checks the brakes again if
     * their limits changed.
     */
    void syncWorkloads(long now) {
        WorkloadChanges changes = c.store.workloads().changesSince(c.changeCursor);
        for (Workload w : changes.workloads()) {
            takeIn(w, now);
        }
        c.changeCursor = changes.cursor();
        boolean hinted = c.brakesHint.getAndSet(false);
        if (hinted || now - c.lastBrakesReadAt >= SchedulerLoop.BRAKES_REFRESH_SECONDS) {
            c.lastBrakesReadAt = now;
            BrakeLimits before = c.brakes.limits();
            if (!c.brakes.readLimits().equals(before) || hinted) {
                applyBrakes(now);
            }
        }
    }

    /**
     * One changed row, as it is now: a workload the loop has never had that waits is admitted (a new submission);
     * one the core has that ended or whose cancellation was requested is cancelled; one held that no longer waits
     * for the core leaves the held ones. Anything else is the loop's own doing, or nothing it acts on.
     */
    void takeIn(Workload w, long now) {
        Job job = c.active.get(w.id());
        if (job != null) {
            if (c.following && job.state() == JobState.RUNNING) {
                return; // a standby's view: the leader stops it, and the change of its attempt reloads the view
            }
            if (w.state().ended() || w.cancelRequested()) {
                cancel(job, now);
            }
            return;
        }
        if (!waitsForCore(w)) {
            c.held.remove(w.id());
            return;
        }
        if (c.held.containsKey(w.id()) || c.refused.containsKey(w.id()) || c.state.job(w.id()).isPresent()) {
            return; // held or refused (both looked at again when their cause changes), or the core's already
        }
        admit(w, now);
    }

    /**
     * The brakes on every waiting workload the loop holds, after a change of the limits: one queued that now trips a
     * brake is held; one held that no longer does is released and admitted again (after a rebuild of the core when the
     * core still knows its id, which it does when it was held after a requeue). The run totals of the waiting
     * workloads are read in one query; the workloads themselves are not read again.
     */
    void applyBrakes(long now) {
        long nowMillis = now * 1000;
        c.brakes.refresh(nowMillis);
        try {
            for (Job job : new ArrayList<>(c.active.values())) {
                if (job.state() == JobState.PENDING) {
                    String reason = c.brakes.recheck(job.id(), null, nowMillis);
                    if (reason != null) {
                        hold(job, now);
                        c.held.put(job.id(), reason);
                    }
                }
            }
            List<String> released = new ArrayList<>();
            for (Map.Entry<String, String> e : new ArrayList<>(c.held.entrySet())) {
                if (c.refused.containsKey(e.getKey())) {
                    continue;
                }
                String reason = c.brakes.recheck(e.getKey(), e.getValue(), nowMillis);
                if (reason == null) {
                    c.held.remove(e.getKey());
                    released.add(e.getKey());
                } else {
                    c.held.put(e.getKey(), reason);
                }
            }
            if (released.isEmpty()) {
                return;
            }
            if (released.stream().anyMatch(id -> c.state.job(id).isPresent())) {
                c.changes.rebuild(c.store.allocations().allocations(), c.store.nodes().nodes(), now,
                        "held workloads were released");
            }
            for (String id : released) {
                c.store.workloads().workload(id).filter(this::waitsForCore).ifPresent(w -> admit(w, now));
            }
        } finally {
            c.brakes.done();
        }
    }

    /** Takes a job held by a brake out of the core (the store keeps it waiting, with the reason). */
    void hold(Job job, long now) {
        c.dirty = true;
        c.books.deferred.remove(job.id());
        if (!job.state().isFinal()) {
            c.state.cancel(job, now);
        }
        c.active.remove(job.id());
        c.queuedSince.remove(job.id());
    }

    /** A cancellation the store has recorded: in the core at once; a launched attempt is stopped. */
    void cancel(Job job, long now) {
        c.dirty = true;
        LiveAttempt stopping = null;
        if (job.state() == JobState.RUNNING) {
            AttemptKey key = c.books.runningAttempt.remove(job.id());
            if (key != null) {
                stopping = c.books.live.get(key);
                stopping.cancelled = true;
                c.carrier.requestStop(stopping);
            } else {
                c.books.deferred.remove(job.id());
            }
        }
        c.state.cancel(job, now);
        if (stopping != null) {
            c.carrier.holdWhileStopping(stopping, now);
        }
        c.active.remove(job.id());
        c.queuedSince.remove(job.id());
        c.cancellations++;
    }
}
