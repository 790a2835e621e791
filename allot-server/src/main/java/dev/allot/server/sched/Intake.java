package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Intake, the part of a {@link SchedulerLoop} cycle that takes in what the store says of the workloads: new
 * submissions admitted to the core, cancellations applied, the safety brakes ({@link Brakes}) holding and releasing
 * waiting work. Works on the loop's shared {@link LoopCore}, on the loop's thread.
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

    /** Registers and submits a stored workload to the core. */
    void admit(Workload w, long now) {
        if (c.brakes.check(w, now * 1000)) {
            return;
        }
        Job job;
        try {
            job = c.state.register(CoreBuilder.spec(w, now));
        } catch (IllegalArgumentException e) {
            if (c.refused.put(w.id(), e.getMessage()) == null) {
                LOG.warn("workload {} cannot be scheduled: {}", w.id(), e.getMessage());
            }
            return;
        }
        c.state.submit(job, now);
        c.active.put(job.id(), job);
        c.stored.put(job.id(), w);
        c.dirty = true;
        c.queuedSince.put(job.id(), job.spec().submitSeconds());
    }

    /**
     * Takes in what the store says of the workloads. Each cycle reads only what is new: submissions after the last
     * one seen, and running workloads whose cancellation was requested. A workload cancelled while it waited is ended
     * in the store at once (it never shows as cancelling), so the whole list of workloads not ended is read again
     * after {@link SchedulerLoop#resync()} (the API calls it on every cancellation) and every
     * {@link SchedulerLoop#FULL_SYNC_SECONDS} in case a
     * hint was lost.
     */
    void syncWorkloads(long now) {
        if (c.resyncRequested.getAndSet(false) || now - c.lastFullSyncAt >= SchedulerLoop.FULL_SYNC_SECONDS) {
            fullSync(now);
            c.lastFullSyncAt = now;
            return;
        }
        WorkloadFilter f = WorkloadFilter.all().withAfterSeq(c.lastSeq);
        while (true) {
            List<Workload> page = c.store.workloads().workloads(f);
            for (Workload w : page) {
                takeIn(w, now);
            }
            if (page.size() < f.limit()) {
                break;
            }
            f = f.withAfterSeq(page.get(page.size() - 1).seq());
        }
        for (String id : c.store.workloads().cancellingIds()) {
            Job job = c.active.get(id);
            if (job != null) {
                cancel(job, now);
            }
        }
    }

    /** A workload submitted after the last one seen: admitted if it waits. */
    void takeIn(Workload w, long now) {
        if (w.seq() <= c.lastSeq) {
            return;
        }
        c.lastSeq = w.seq();
        if (waitsForCore(w)) {
            admit(w, now);
        } else if (!w.state().ended()) {
            LOG.warn("new workload {} is {} and not waiting; left alone", w.id(), w.state().label());
        }
    }

    void fullSync(long now) {
        List<Workload> all = notEnded();
        c.brakes.refresh(now * 1000);
        Map<String, Workload> byId = new HashMap<>();
        for (Workload w : all) {
            byId.put(w.id(), w);
            if (w.seq() > c.lastSeq) {
                c.lastSeq = w.seq();
                if (waitsForCore(w)) {
                    admit(w, now);
                } else {
                    LOG.warn("new workload {} is {} and not waiting; left alone", w.id(), w.state().label());
                }
            }
        }
        for (Job job : new ArrayList<>(c.active.values())) {
            Workload w = byId.get(job.id());
            if (w == null || w.cancelRequested()) {
                cancel(job, now);
            }
        }
        applyBrakes(all, now);
        c.brakes.done();
    }

    /**
     * The brakes on every waiting workload, on a full sync (so after a change of the limits): one queued that now
     * trips a brake is held; one held that no longer does is released and admitted again (after a rebuild of the
     * core when the core still knows its id, which it does when it was held after a requeue).
     */
    void applyBrakes(List<Workload> all, long now) {
        List<String> released = new ArrayList<>();
        for (Workload w : all) {
            if (!waitsForCore(w)) {
                continue;
            }
            Job job = c.active.get(w.id());
            if (job == null) {
                if (w.held() && !c.refused.containsKey(w.id()) && !c.brakes.check(w, now * 1000)) {
                    released.add(w.id());
                }
            } else if (job.state() == JobState.PENDING && c.brakes.check(w, now * 1000)) {
                hold(job, now);
            }
        }
        if (released.isEmpty()) {
            return;
        }
        if (released.stream().anyMatch(id -> c.state.job(id).isPresent())) {
            c.adoption.rebuild(c.store.allocations().allocations(), c.store.nodes().nodes(), now,
                    "held workloads were released");
        }
        for (String id : released) {
            c.store.workloads().workload(id).filter(this::waitsForCore).ifPresent(w -> admit(w, now));
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
