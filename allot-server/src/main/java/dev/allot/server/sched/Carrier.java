package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.core.policy.Decision;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.GpuLanes;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.server.identity.AccountMap;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.ConflictException;
import dev.allot.server.store.NotFoundException;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carrying out, the part of a {@link SchedulerLoop} cycle that acts: turns the policy's decisions into attempts begun
 * in the store (durable first) and started on the backend, or deferred behind a fence; asks the backend to stop
 * attempts; observes the backend and records every end in the store and in the core. Sending the starts and stops
 * to the backend (together, and only once the store has them) is {@link Dispatcher}'s. Works on the loop's shared
 * {@link LoopCore}, on the loop's thread.
 *
 * <p><b>Fences.</b> A preemption or a cancellation is applied to the core at once (its GPUs become the next job's), but
 * the stopped process may hold its GPUs through the grace period: the core is told so
 * ({@link ClusterState#holdUntilStopped}) and hears when it has ended. A start whose chosen GPUs are still held by a
 * stopping attempt (or whose workload's own previous attempt has not ended) is <em>deferred</em>: the core holds its
 * placement and protects it, but it waits ({@link ClusterState#startWhenStopped}): not charged, its minimum runtime not
 * begun; the store and the backend hear of it only once the fence has cleared, and its protection counts from that
 * launch ({@link ClusterState#launch}), so a slow stop never spends it (issue 21's preemption ping-pong). Lanes free
 * for good are chosen before fenced ones, so a start waits only when it must. No GPU index is ever given to two live
 * attempts.
 */
final class Carrier {
    /** The loop's logger, so that what the parts say is logged as before the loop was split. */
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    private final LoopCore c;
    /** Tells the backend of the starts and stops, together and once durable. */
    private final Dispatcher send;

    Carrier(LoopCore c) {
        this.c = Objects.requireNonNull(c, "core");
        this.send = new Dispatcher(c);
    }

    /** Records what the backend says of the live attempts; returns how many of them it found ended. */
    int observe(long now, long nowMillis) {
        for (LiveAttempt l : new ArrayList<>(c.books.live.values())) {
            if (l.startUnconfirmed) {
                retryStart(l, now, nowMillis);
            }
        }
        send.sendUnsentStops();
        List<AttemptStatus> statuses;
        try {
            statuses = new ArrayList<>(c.backend.observe());
        } catch (BackendException e) {
            LOG.warn("could not observe the {} backend: {}", c.backend.name(), e.getMessage());
            c.sight.failed(e.getMessage(), nowMillis);
            return 0;
        }
        c.sight.observed(nowMillis);
        statuses.sort(Comparator.comparing(AttemptStatus::attempt));
        // What the backend says is recorded in one store transaction (one fsync for a thousand ends, not a thousand);
        // the backend forgets the ended attempts only once their ends are durable.
        List<AttemptKey> forgets = new ArrayList<>();
        forgetLater = forgets;
        List<Requeued> requeued = new ArrayList<>();
        brakesLater = requeued;
        int[] ends = {0};
        try {
            c.store.batch(() -> {
                for (AttemptStatus st : statuses) {
                    LiveAttempt l = c.books.live.get(st.attempt());
                    if (l == null) {
                        continue;
                    }
                    if (st.phase() == AttemptStatus.Phase.RUNNING && !l.markedRunning) {
                        c.store.attempts().markRunning(l.key);
                        l.markedRunning = true;
                    }
                    if (st.ended()) {
                        ends[0]++;
                        finish(l, st, now, nowMillis);
                    } else if (st.phase() != AttemptStatus.Phase.UNKNOWN) {
                        l.adoptedUnseen = false; // seen alive: from now on it ends on the service's watch
                    }
                }
                brakesLater = null;
                holdIfBraked(requeued, now, nowMillis);
            });
        } catch (RuntimeException e) {
            // Nothing of the batch was stored, but the core and the books moved on: start again from the store and
            // the backend next cycle, as after a restart (the backend still knows every attempt it did not forget).
            c.forget();
            throw e;
        } finally {
            forgetLater = null;
            brakesLater = null;
        }
        for (AttemptKey key : forgets) {
            forget(key);
        }
        if (c.staleStarts != null) {
            c.staleStarts.sweep(statuses);
        }
        return ends[0];
    }

    /** While {@link #observe} records ends in a batch: the attempts the backend forgets once it has committed. */
    private List<AttemptKey> forgetLater;

    /**
     * While {@link #observe} records ends in a batch: the workloads that went back to the queue, whose brakes are
     * checked together at the batch's end (one query for their totals; nothing decides in between).
     */
    private List<Requeued> brakesLater;

    /** A job the core keeps (not final) whose attempt ended, with its workload as the end left it. */
    private record Requeued(Job job, Workload w) {
    }

    /** Checks the brakes of these workloads (one query) and holds in the core those a brake holds. */
    private void holdIfBraked(List<Requeued> rs, long now, long nowMillis) {
        if (rs.isEmpty()) {
            return;
        }
        Map<String, String> reasons = c.brakes.checkAfterRequeue(rs.stream().map(Requeued::w).toList(), nowMillis);
        for (Requeued r : rs) {
            String heldReason = reasons.get(r.job().id());
            if (heldReason != null) {
                c.intake.hold(r.job(), now);
                c.held.put(r.job().id(), heldReason);
            }
        }
    }

    private void forget(AttemptKey key) {
        if (forgetLater != null) {
            forgetLater.add(key);
            return;
        }
        try {
            c.backend.forget(key);
        } catch (RuntimeException e) {
            LOG.warn("the {} backend could not forget {}: {}", c.backend.name(), key, e.getMessage());
        }
    }

    /**
     * Asks the backend again to start an attempt whose start it could not confirm. One asked to stop meanwhile is not
     * started again: the stop goes to the backend, which ends it either way (a backend that never started it reports
     * it stopped, see {@link Backend#stop}).
     */
    void retryStart(LiveAttempt l, long now, long nowMillis) {
        if (l.stopping) {
            return;
        }
        Workload w = c.stored.get(l.jobId);
        if (w == null) {
            w = c.store.workloads().workload(l.jobId).orElse(null);
        }
        if (w == null) {
            return;
        }
        Duration duration = w.durationSeconds() == null ? null
                : c.state.job(l.jobId).map(j -> Duration.ofSeconds(j.remainingSeconds())).orElse(null);
        try {
            c.backend.start(launchOf(l.key, l.where, w, duration, l.attemptStartedAtMillis));
            l.startUnconfirmed = false;
            LOG.info("the {} backend confirmed the start of {}", c.backend.name(), l.key);
            // its wait ends when the policy started it, as its charge begins (the attempt's recorded start)
            send.launched(l.jobId, w.allocationPath(), Math.min(now, Math.floorDiv(l.attemptStartedAtMillis, 1000)));
        } catch (BackendUnavailableException e) {
            LOG.warn("still cannot tell whether the {} backend started {}: {}", c.backend.name(), l.key, e.getMessage());
        } catch (BackendException e) {
            end(l, AttemptOutcome.FAILED, refusedReason(), e.getMessage(), null, null, now, nowMillis, nowMillis);
        }
    }

    /** The launch of an attempt begun at {@code startedAtMillis} (its stored start), as the backend gets it. */
    Launch launchOf(AttemptKey key, List<Launch.NodeGpus> where, Workload w, Duration duration,
                            long startedAtMillis) {
        AccountMap map = c.accounts;
        return new Launch(key, where, w.command(), c.campaigns.launchEnvironment(w), duration,
                Launch.Terms.of(w.minRuntimeSeconds(), w.resumable()), map == null ? null : map.accountOf(w.user()),
                startedAtMillis);
    }

    /**
     * Records the end of an attempt in the store, then in the core, and lets the backend forget it. An attempt the
     * backend reports {@link AttemptStatus.Phase#NEVER_STARTED} (stopped before a start that never reached it) ends as
     * its stop says (cancelled, preempted, lost), with a reason saying it never started, however the loop came to stop
     * it: while its start was unconfirmed, or adopted after a restart and stopped before the backend was asked to start
     * it again. It threw no work away and is charged nothing: it ends at its own start
     * ({@link SchedulerLoop#NEVER_RAN_ENDED_AT_MILLIS}).
     */
    void finish(LiveAttempt l, AttemptStatus st, long now, long nowMillis) {
        boolean exitedOk = st.phase() == AttemptStatus.Phase.EXITED && Integer.valueOf(0).equals(st.exitCode());
        boolean neverRan = st.phase() == AttemptStatus.Phase.NEVER_STARTED;
        AttemptOutcome outcome;
        String reason;
        String preemptor = null;
        Double lost = null;
        // The backend's words (they may name the workload's program and PATH: only those who may see its details read
        // them), unless they only repeat the exit code the reason states.
        String words = st.detail() == null || st.detail().equals("exited with code " + st.exitCode()) ? null
                : st.detail();
        String never = "";
        if (neverRan && (words == null || !words.contains("never started"))) {
            never = " (it never started on the " + c.backend.name() + " backend)";
        }
        if (exitedOk) {
            outcome = AttemptOutcome.COMPLETED;
            reason = "exited with code 0" + never;
        } else if (l.stopping && l.cancelled) {
            // Asked to stop: however it ended (a process often exits non-zero on SIGTERM), the stop ended it.
            outcome = AttemptOutcome.CANCELLED;
            reason = "stopped: its cancellation was requested" + never;
        } else if (l.lostReason != null) {
            outcome = AttemptOutcome.LOST;
            reason = l.lostReason + never;
        } else if (l.stopping && l.result != null) {
            outcome = l.result.requeued() ? AttemptOutcome.REQUEUED : AttemptOutcome.PREEMPTED;
            if (l.cause == null) {
                reason = "stopped: it was being stopped when the scheduler restarted" + never;
            } else {
                reason = l.cause.explanation() + never;
                words = l.startUnconfirmed || neverRan ? words : null;
            }
            preemptor = l.cause == null ? null : l.cause.preemptorId();
            lost = neverRan ? 0.0 : (double) l.result.lostGpuSeconds();
        } else if (neverRan) {
            outcome = AttemptOutcome.LOST;
            reason = "stopped before it started" + never;
        } else if (st.phase() == AttemptStatus.Phase.STOPPED) {
            outcome = AttemptOutcome.LOST;
            reason = "stopped, but not by the scheduler" + never;
        } else if (l.adoptedUnseen && DiedWhileDown.lostReason(st).isPresent()) {
            outcome = AttemptOutcome.LOST;
            reason = DiedWhileDown.lostReason(st).get() + never;
        } else if (st.phase() == AttemptStatus.Phase.FAILED_TO_START) {
            outcome = AttemptOutcome.FAILED;
            reason = "failed to start" + never;
        } else {
            outcome = AttemptOutcome.FAILED;
            reason = (st.exitCode() == null ? "exited with an unknown code" : "exited with code " + st.exitCode()) + never;
        }
        end(l, outcome, reason, words, preemptor, lost, now, nowMillis,
                neverRan ? SchedulerLoop.NEVER_RAN_ENDED_AT_MILLIS : EndedAt.millis(st, l, nowMillis));
    }

    /**
     * The scheduler's words for an attempt the backend refused to start; the backend's own (its exception's message,
     * which may name the workload's program or account) go with them as the reason's detail.
     */
    String refusedReason() {
        return "the " + c.backend.name() + " backend refused it";
    }

    /** Ends an attempt in the store with the given outcome, lets the backend forget it, and brings the core along. */
    void end(LiveAttempt l, AttemptOutcome outcome, String reason, String preemptor, Double lost, long now,
                     long nowMillis) {
        end(l, outcome, reason, null, preemptor, lost, now, nowMillis, nowMillis);
    }

    /**
     * {@link #end}, with the backend's words about the end ({@code reasonDetail}, private to those who may see the
     * workload's details; may be null), recording the attempt's end at {@code endedAtMillis} in the store. An end
     * before now (one the backend recorded and the loop observed late) is charged and run up to then in the core
     * too; its GPUs are freed now ({@link EndedAt}).
     */
    void end(LiveAttempt l, AttemptOutcome outcome, String reason, String reasonDetail, String preemptor, Double lost,
             long now, long nowMillis, long endedAtMillis) {
        // The policy hears of the end only if the core did not already count the attempt as over (an attempt being
        // stopped was preempted or cancelled in the core when the stop was asked; the simulator has no such end).
        c.dirty |= !l.stopping;
        if (l.stop != null) {
            // Its GPUs are idle now: a start that waited for them may launch (launchDeferred), protected from then.
            c.state.stopped(l.stop, now);
            l.stop = null;
        }
        Workload w;
        try {
            w = c.store.attempts().endAttempt(l.key, outcome, reason, reasonDetail, preemptor, lost, endedAtMillis);
        } catch (ConflictException e) {
            LOG.warn("attempt {} had already ended otherwise: {}", l.key, e.getMessage());
            w = c.store.workloads().workload(l.jobId).orElseThrow();
        }
        c.books.live.remove(l.key);
        forget(l.key);
        c.observer.ended(l.jobId, w.allocationPath(), outcome);
        if (outcome == AttemptOutcome.COMPLETED) {
            c.completions++;
        } else if (outcome == AttemptOutcome.FAILED) {
            c.failures++;
        }
        Job job = c.state.job(l.jobId).orElse(null);
        if (job == null) {
            // Not in the core (lost when the core was rebuilt, and not to run again): the store's word is all.
            c.active.remove(l.jobId);
            return;
        }
        if (!l.stopping) {
            // The core still runs the job on this attempt.
            c.books.runningAttempt.remove(l.jobId);
            long ended = EndedAt.coreSeconds(endedAtMillis, now, nowMillis);
            switch (outcome) {
                case COMPLETED -> c.state.complete(job, ended, now);
                case LOST -> {
                    if (w.state().waiting()) {
                        c.state.preempt(job, ended, now, true);
                        c.queuedSince.put(job.id(), now);
                    } else {
                        c.state.cancel(job, ended, now);
                    }
                }
                default -> c.state.cancel(job, ended, now);
            }
        } else if (w.state().ended() && !job.state().isFinal()) {
            // The core had moved it on (requeued, maybe started again behind a fence) but it ended for good: it
            // finished in its grace period, or its cancellation was requested while it was being preempted.
            c.books.deferred.remove(l.jobId);
            c.state.cancel(job, now);
            c.dirty = true;
        }
        if (!job.state().isFinal()) {
            if (brakesLater != null) {
                brakesLater.add(new Requeued(job, w));
            } else {
                holdIfBraked(List.of(new Requeued(job, w)), now, nowMillis);
            }
        }
        if (job.state().isFinal()) {
            c.active.remove(job.id());
            c.queuedSince.remove(job.id()); // kept while a start was unconfirmed (Dispatcher.launched)
        }
    }

    /**
     * Tells the core that an attempt asked to stop, already preempted or cancelled there, still holds its GPUs until
     * it ends ({@link ClusterState#holdUntilStopped}). Call it right after the core moved its job on.
     */
    void holdWhileStopping(LiveAttempt l, long now) {
        if (l.stop == null && l.placement != null) {
            // its workload, unless the core runs it on another attempt (then this stop is not its own to wait for)
            Job job = c.state.job(l.jobId).filter(j -> j.state() != dev.allot.core.state.JobState.RUNNING
                    || j.awaitingLaunch()).orElse(null);
            l.stop = c.state.holdUntilStopped(job, l.placement, now);
        }
    }

    /**
     * Marks the attempt stopping (in the store, where a restart finds it) and asks the backend to stop it; while
     * {@link #together} runs, both wait: the marks are stored together at the instant's end, in its batch, and the
     * stops are sent once that has committed.
     */
    /** Runs {@code change} and only then tells the backend of the stops it asked for ({@link Dispatcher#sendingAfter}). */
    void sendingAfter(Runnable change) {
        send.sendingAfter(change);
    }

    void requestStop(LiveAttempt l) {
        l.stopping = true;
        l.stopRequestedAtMillis = c.clock.millis();
        send.stop(l);
    }

    void launchDeferred(long now, long nowMillis) {
        if (c.books.deferred.isEmpty()) {
            return;
        }
        together(() -> {
            Books.Fences fences = c.books.fences(c.sizes.length);
            for (Books.Deferred d : new ArrayList<>(c.books.deferred.values())) {
                if (fences.cleared(d) && c.state.canLaunch(d.job())) {
                    c.books.deferred.remove(d.job().id());
                    launch(d.job(), d.placement(), d.lanes(), now, nowMillis, true);
                    AttemptKey launched = c.books.runningAttempt.get(d.job().id());
                    if (launched != null) {
                        fences.add(c.books.live.get(launched));
                    }
                }
            }
        });
    }

    /** Carries out one decision; returns whether it sent a job back to the queue. */
    boolean carryOut(Decision d, long now, long nowMillis) {
        Job job = d.job();
        if (d instanceof Decision.Preempt p) {
            AttemptKey key = c.books.runningAttempt.remove(job.id());
            LiveAttempt l = key == null ? null : c.books.live.get(key);
            if (l != null) {
                l.cause = p.cause();
                requestStop(l);
            }
            Books.Deferred was = c.books.deferred.remove(job.id());
            ClusterState.PreemptionResult r = c.state.preempt(job, now, c.restarts);
            if (l != null) {
                l.result = r;
                holdWhileStopping(l, now);
            } else if (was != null && !r.requeued()) {
                // Never launched, but the core ended it: the store must not keep it waiting.
                c.store.workloads().workload(job.id()).filter(w -> w.state().waiting())
                        .ifPresent(w -> c.store.workloads().setState(job.id(), w.state(), WorkloadState.PREEMPTED));
            }
            c.preemptions++;
            if (r.requeued()) {
                c.queuedSince.put(job.id(), now);
            }
            c.observer.preempted(job.id(), job.spec().allocation(), p.cause(), r.lostGpuSeconds());
            if (job.state().isFinal()) {
                c.active.remove(job.id());
            }
            return r.requeued();
        }
        Decision.Start s = (Decision.Start) d;
        GpuLanes.Choice lanes = c.books.chooseLanes(s.placement(), c.sizes);
        boolean ownOpen = c.books.live.hasJob(job.id());
        if (lanes.fenced() || ownOpen || !c.state.fitsNow(job, s.placement())) {
            // It waits in the core too: protected, not charged, its minimum runtime not begun until it launches.
            c.state.startWhenStopped(job, s.placement(), now);
            c.books.deferred.put(job.id(), new Books.Deferred(job, s.placement(), lanes));
            c.deferrals++;
            return false;
        }
        launch(job, s.placement(), lanes, now, nowMillis, false);
        return false;
    }

    /**
     * Begins the attempt in the store (durable before the backend hears of it), starts it in the core unless the core
     * already counts it as running (a deferred start), and starts it on the backend: at once, or, while
     * {@link #together} holds the instant's store calls in one batch, once that batch has committed
     * ({@link Dispatcher#start}).
     */
    void launch(Job job, Placement placement, GpuLanes.Choice lanes, long now, long nowMillis, boolean inCore) {
        List<Launch.NodeGpus> where = lanes.nodeGpus(placement, c.nodeNames);
        AttemptKey key;
        try {
            key = c.store.attempts().beginAttempt(job.id(), where, nowMillis);
        } catch (ConflictException | NotFoundException e) {
            // Cancelled (or removed) between the store's answer and now: the core lets it go too.
            LOG.info("workload {} was not started: {}", job.id(), e.getMessage());
            c.dirty = true;
            c.state.cancel(job, now);
            c.active.remove(job.id());
            c.cancellations++;
            return;
        }
        Workload w = c.stored.get(job.id());
        Duration duration = w.durationSeconds() == null ? null : Duration.ofSeconds(job.remainingSeconds());
        LiveAttempt l = new LiveAttempt(key, job.id(), where, now, placement, lanes.lanes());
        l.attemptStartedAtMillis = nowMillis;
        c.books.live.put(key, l);
        if (!inCore) {
            c.state.start(job, placement, now);
        } else {
            c.state.launch(job, now); // it waited for a stop: its protection and charging begin now
        }
        c.books.runningAttempt.put(job.id(), key);
        send.start(l, job, launchOf(key, where, w, duration, nowMillis), now, nowMillis);
    }

    /**
     * Carries out a decision instant, or a round of deferred launches ({@code instant}), with its store calls in one
     * batch, the backend hearing of its stops and starts once that has committed ({@link Dispatcher#together}).
     */
    void together(Runnable instant) {
        send.together(instant);
    }
}
