package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.model.Words;
import dev.allot.core.state.Job;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.AttemptPhase;
import dev.allot.server.store.Node;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Load and adoption, the first part of a {@link SchedulerLoop} cycle: builds the core from the store on the first
 * cycle ({@link CoreBuilder}), admits the waiting workloads, adopts the attempts found open (work started before a
 * crash, a restart or a failover) and reconciles them with the backend, by the rule below. Later changes of the tree
 * and the nodes are {@link TopologyChanges}' (it builds the core again with {@link #buildState}). Works on the loop's
 * shared {@link LoopCore}, on the loop's thread.
 *
 * <p><b>Adoption.</b> Attempts found open in the store at load (work started before a crash or a restart) are adopted,
 * in store order: each workload is registered in the core and resumed there on its stored placement (node by name, GPU
 * count per node) <em>from the attempt's stored start</em> ({@link dev.allot.core.state.ClusterState#resume}), so its
 * minimum-runtime protection ends when it was promised to, neither later nor earlier, and its stored GPU indexes,
 * exactly those, are marked as held. A stopping attempt is adopted fenced (its GPUs held, the core moves it on at once:
 * cancelled if its cancellation was requested, otherwise preempted, requeued by the core's rule) and its stop is sent
 * again, with what is left of the grace period the first request gave (the store keeps when it was asked). The first
 * cycle then reconciles them with the backend (again each cycle until the backend answers): an attempt the backend
 * reports starting, running, stopping or {@code UNKNOWN} stays live; one it reports ended is ended through the usual
 * path; one it does not know at all is, if still launching (the crash came between the store's begin and the backend's
 * start), started again with the <em>same</em> attempt key and its stored command, environment and GPUs (never a new
 * attempt number, so never a double launch), and otherwise ended as lost (requeued if resumable, per the store's rule),
 * its GPUs released. An adopted attempt whose first observation shows it ended without an exit code, or killed by a
 * signal no stop asked for, died while the service was down and ends as lost too ({@link DiedWhileDown}). An attempt
 * stopped before its start ever reached the backend (the backend reports it {@code NEVER_STARTED}: stopped while its
 * start was unconfirmed, or adopted still launching and stopped before the reconciliation could start it again) ends as
 * its stop says, its reason saying it never started, with no work lost and no GPU time charged, whichever came first.
 * An open attempt whose GPU indexes the node no longer has (it shrank while the scheduler was down) is adopted as being
 * stopped as lost, as after a change ({@link TopologyChanges}). One that cannot be adopted (its GPU indexes clash with
 * another's, the core refuses the workload) is logged and left alone, its GPUs unknown to the policy.
 */
final class Adoption {
    /** The loop's logger, so that what the parts say is logged as before the loop was split. */
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    private final LoopCore c;

    Adoption(LoopCore c) {
        this.c = Objects.requireNonNull(c, "core");
    }

    /**
     * What the scheduler waits for before it can load, said to the users who wonder why their work has no place
     * ({@link SchedulerLoop#awaiting}): a node to schedule on, an allocation to schedule for, and how each comes.
     */
    static String awaiting(boolean noNode, boolean noAllocation) {
        List<String> missing = new java.util.ArrayList<>();
        if (noNode) {
            missing.add("a node: none is registered yet (the simulated backend's are registered with PUT"
                    + " /v1/nodes/NAME {\"gpus\": N}, Slurm's come from its node list; allot nodes lists them)");
        }
        if (noAllocation) {
            missing.add("an allocation: none exists yet (allot budget set NAME --share 1 creates one)");
        }
        return "the scheduler has not started: it waits for " + String.join(", and for ", missing);
    }

    boolean load(long now, long nowMillis) {
        List<Allocation> allocations = c.store.allocations().allocations();
        List<Node> nodes = c.store.nodes().nodes();
        if (allocations.isEmpty() || nodes.isEmpty()) {
            c.awaiting = awaiting(nodes.isEmpty(), allocations.isEmpty());
            if (c.cycles == 0) {
                LOG.info("scheduling waits for the store to have nodes ({}) and allocations ({})", nodes.size(),
                        allocations.size());
            }
            c.cycles++;
            return false;
        }
        c.awaiting = null;
        buildState(allocations, nodes, now);
        // the counters add up over the loop's life (every load of every term); the log tells of this load
        int foundBefore = c.foundRunningAtLoad;
        int adoptedBefore = c.adoptedAtLoad;
        Map<String, Attempt> open = new HashMap<>();
        for (Attempt a : c.store.attempts().openAttempts()) {
            open.putIfAbsent(a.key().workloadId(), a);
        }
        c.brakes.refresh(nowMillis);
        c.changeCursor = c.store.workloads().changeCursor(); // before the full read: a change it misses is read next
        for (Workload w : c.intake.notEnded()) {
            if (w.state() == WorkloadState.RUNNING) {
                c.foundRunningAtLoad++;
                Attempt a = open.get(w.id());
                if (a == null) {
                    LOG.warn("workload {} is running in the store without an open attempt; left alone", w.id());
                } else {
                    adopt(w, a, now);
                }
            } else if (c.intake.waitsForCore(w)) {
                c.intake.admit(w, now);
            }
        }
        c.brakes.done();
        c.changes.markHealth(nodes, now);
        c.lastBrakesReadAt = now;
        c.syncedAtMillis = nowMillis;
        (c.following ? LOG.atDebug() : LOG.atInfo()).log("{} loaded {}, {}, {} in the core; {} running before, {} of"
                        + " their attempts adopted", c.following ? "a standby's view of the scheduler" : "scheduling",
                Words.count(nodes.size(), "node"), Words.count(allocations.size(), "allocation"),
                Words.count(c.active.size(), "workload"), Words.count(c.foundRunningAtLoad - foundBefore, "workload"),
                c.adoptedAtLoad - adoptedBefore);
        return true;
    }

    /** A fresh core state for this tree and these nodes, usage seeded from the store; the loop's node names. */
    void buildState(List<Allocation> allocations, List<Node> nodes, long now) {
        c.state = CoreBuilder.build(c.store, allocations, nodes, c.config, now);
        c.protectionsSeen = c.state.protections().endedCount();
        c.topology = CoreBuilder.Topology.of(allocations, nodes);
        c.nodeNames = new ArrayList<>(nodes.size());
        c.sizes = new int[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            c.nodeNames.add(nodes.get(i).name());
            c.sizes[i] = nodes.get(i).gpus();
        }
        c.dirty = true;
    }

    /** How many of the workload's ended attempts were preempted (requeued or for good), from the store. */
    private int preemptedBefore(String workloadId) {
        int n = 0;
        for (Attempt a : c.store.attempts().attempts(workloadId)) {
            if (a.preempted()) {
                n++;
            }
        }
        return n;
    }

    /** Whether a workload whose attempt is lost waits again (the store's rule: resumable, no cancellation asked). */
    boolean requeuedWhenLost(String workloadId) {
        Workload w = c.stored.get(workloadId);
        return w != null && AttemptOutcome.LOST.workloadState(w.resumable(), w.cancelRequested()).waiting();
    }

    /**
     * Adopts an attempt found open at load: the core runs its workload on its stored placement since the attempt's
     * start, the loop holds exactly its stored GPU indexes; a stopping one is moved on in the core at once and stays
     * fenced.
     */
    void adopt(Workload w, Attempt a, long now) {
        LiveAttempt.Mapped m = LiveAttempt.map(a.placement(), c.nodeNames, c.sizes);
        if (!m.ok()) {
            adoptLost(w, a, m.failure(), now);
            return;
        }
        for (LiveAttempt other : c.books.live.values()) {
            if (other.overlaps(m.placement(), m.lanes())) {
                LOG.warn("open attempts {} and {} hold the same GPUs; {} not adopted", other.key, a.key(), a.key());
                return;
            }
        }
        Job job;
        try {
            job = CoreBuilder.register(c.state, w, now);
        } catch (IllegalArgumentException e) {
            c.refused.put(w.id(), e.getMessage());
            LOG.warn("open attempt {} not adopted: the core cannot hold workload {}: {}", a.key(), w.id(), e.getMessage());
            return;
        }
        // A shard promoted in place is protected from its promotion, not its start.
        long startedAt = Math.min(now, Math.floorDiv(a.contractStartMillis(), 1000));
        c.state.submit(job, now);
        c.state.restorePreemptions(job, preemptedBefore(w.id()));
        try {
            c.state.resume(job, m.placement(), startedAt, now);
        } catch (IllegalStateException e) {
            LOG.warn("open attempt {} not adopted: {}", a.key(), e.getMessage());
            c.state.cancel(job, now);
            return;
        }
        c.stored.put(job.id(), w);
        LiveAttempt l = new LiveAttempt(a.key(), job.id(), a.placement(), startedAt, m.placement(), m.lanes());
        l.attemptStartedAtMillis = a.startedAtMillis();
        l.markedRunning = a.phase() != AttemptPhase.LAUNCHING;
        l.adoptedUnseen = c.backend.workMayDieWithTheService();
        c.books.live.put(a.key(), l);
        c.adoptedAtLoad++;
        c.toReconcile.put(a.key(), a);
        if (a.phase() != AttemptPhase.STOPPING) {
            c.active.put(job.id(), job);
            c.books.runningAttempt.put(job.id(), a.key());
            return;
        }
        // Asked to stop before the restart: fenced until it ends; the stop is sent again (idempotent), with what is
        // left of its grace period.
        l.stopping = true;
        l.stopRequestedAtMillis = a.stopRequestedAtMillis() == null ? -1 : a.stopRequestedAtMillis();
        if (w.cancelRequested()) {
            l.cancelled = true;
            c.state.cancel(job, now);
        } else {
            l.result = c.state.preempt(job, now, c.restarts);
            if (!job.state().isFinal()) {
                c.active.put(job.id(), job);
                c.queuedSince.put(job.id(), now);
            }
        }
        c.carrier.holdWhileStopping(l, now);
    }

    /**
     * Adopts an open attempt whose GPUs the cluster no longer has all of (its node shrank while the scheduler was
     * down) as being stopped as lost: it fences the GPUs that remain until it ends; its workload waits in the core if
     * the store's rule for lost work requeues it. One whose remaining GPUs clash with another's is left alone.
     */
    void adoptLost(Workload w, Attempt a, String failure, long now) {
        LiveAttempt.Mapped rest = LiveAttempt.remaining(a.placement(), c.nodeNames, c.sizes);
        if (rest.placement() != null) {
            for (LiveAttempt other : c.books.live.values()) {
                if (other.overlaps(rest.placement(), rest.lanes())) {
                    LOG.warn("open attempts {} and {} hold the same GPUs; {} not adopted", other.key, a.key(), a.key());
                    return;
                }
            }
        }
        long startedAt = Math.min(now, Math.floorDiv(a.startedAtMillis(), 1000));
        LiveAttempt l = new LiveAttempt(a.key(), w.id(), a.placement(), startedAt, rest.placement(), rest.lanes());
        l.attemptStartedAtMillis = a.startedAtMillis();
        l.markedRunning = a.phase() != AttemptPhase.LAUNCHING;
        l.stopping = true;
        l.cancelled = w.cancelRequested();
        l.lostReason = "its GPUs are gone: " + failure;
        if (a.phase() == AttemptPhase.STOPPING && a.stopRequestedAtMillis() != null) {
            l.stopRequestedAtMillis = a.stopRequestedAtMillis();
        } else {
            l.stopRequestedAtMillis = now * 1000;
            if (!c.following) { // a standby's view holds it as the leader will stop it, and records nothing
                c.store.attempts().markStopping(a.key(), l.stopRequestedAtMillis);
            }
        }
        LOG.atWarn().addKeyValue("attempt", a.key()).log("open attempt {} is stopped as lost: {}", a.key(),
                l.lostReason);
        c.stored.put(w.id(), w);
        c.books.live.put(a.key(), l);
        c.adoptedAtLoad++;
        c.toReconcile.put(a.key(), a);
        if (requeuedWhenLost(w.id())) {
            try {
                Job job = CoreBuilder.register(c.state, w, now);
                c.state.submit(job, now);
                c.active.put(job.id(), job);
                c.queuedSince.put(job.id(), now);
            } catch (IllegalArgumentException e) {
                c.refused.put(w.id(), e.getMessage());
                LOG.warn("workload {} cannot be scheduled: {}", w.id(), e.getMessage());
            }
        }
        c.carrier.holdWhileStopping(l, now);
    }

    /**
     * Reconciles the attempts adopted at load with what the backend knows: those it does not know are launched
     * again with the same key (still launching) or ended as lost; the rest are left to {@link Carrier#observe}.
     */
    void reconcile(long now, long nowMillis) {
        Set<AttemptKey> known = new HashSet<>();
        try {
            for (AttemptStatus st : c.backend.observe()) {
                known.add(st.attempt());
            }
        } catch (BackendException e) {
            LOG.warn("could not reconcile {} adopted attempts with the {} backend, trying again next cycle: {}",
                    c.toReconcile.size(), c.backend.name(), e.getMessage());
            return;
        }
        Map<AttemptKey, Attempt> todo = c.toReconcile;
        c.toReconcile = new LinkedHashMap<>();
        for (Attempt a : todo.values()) {
            LiveAttempt l = c.books.live.get(a.key());
            if (l == null || known.contains(a.key())) {
                continue;
            }
            if (a.phase() == AttemptPhase.LAUNCHING && l.stopping) {
                // Never started, and asked to stop since the load (reconciled late): it ended before it began.
                c.carrier.finish(l, new AttemptStatus(a.key(), AttemptStatus.Phase.NEVER_STARTED, null,
                        "never started on the backend"), now, nowMillis);
            } else if (a.phase() == AttemptPhase.LAUNCHING) {
                Workload w = c.stored.get(l.jobId);
                Job job = c.state.job(l.jobId).orElseThrow();
                Duration duration = w.durationSeconds() == null ? null : Duration.ofSeconds(job.remainingSeconds());
                try {
                    c.backend.start(c.carrier.launchOf(a.key(), a.placement(), w, duration, a.startedAtMillis()));
                    LOG.info("adopted attempt {} was never started on the {} backend; started it", a.key(),
                            c.backend.name());
                    c.starts++;
                } catch (BackendUnavailableException e) {
                    l.startUnconfirmed = true;
                    LOG.warn("could not tell whether the {} backend started adopted attempt {}; asking again next"
                            + " cycle: {}", c.backend.name(), a.key(), e.getMessage());
                } catch (BackendException e) {
                    c.carrier.end(l, AttemptOutcome.FAILED, c.carrier.refusedReason(), e.getMessage(), null, null,
                            now, nowMillis, nowMillis);
                }
            } else {
                c.carrier.end(l, AttemptOutcome.LOST,
                        "the " + c.backend.name() + " backend did not know it after a restart",
                        null, null, now, nowMillis);
            }
        }
    }
}
