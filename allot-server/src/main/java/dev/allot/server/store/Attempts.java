package dev.allot.server.store;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;

/**
 * The attempts part of the {@link Store} ({@link Store#attempts()}): the runs of workloads on GPUs, from beginning
 * one through its phases to its end, the open ones a restarted scheduler must reconcile, and the usage they add up
 * to. Beginning and ending an attempt also move its workload into and out of running, in the same transaction;
 * that is what keeps the invariant that a workload is running exactly when it has one attempt not ended, so those
 * state changes live here rather than in {@link Workloads}. The usage queries (what the attempts add up to, for fair
 * share and the brakes) only read, and their work is {@link AttemptUsage}'s.
 */
public final class Attempts {
    static final String ATTEMPT_COLUMNS = "a.workload_id, a.attempt, a.placement, a.phase, a.started_at_ms,"
            + " a.ended_at_ms, a.outcome, a.reason, a.reason_detail, a.preemptor, a.lost_gpu_seconds, a.stop_requested_at_ms,"
            + " a.charged_from_ms";
    static final String WAITING = "('pending', 'requeued')";

    private final Transactions transactions;
    /** The read-only usage and totals queries, which the methods of that kind hand over to. */
    private final AttemptUsage usage;

    Attempts(Transactions transactions) {
        this.transactions = transactions;
        this.usage = new AttemptUsage(transactions);
    }

    /**
     * Begins the next attempt of a waiting workload (pending or requeued, its cancellation not
     * requested): stores the attempt, phase launching, charged from its start when the workload is allocated (minimum
     * runtime above zero), and sets the workload running, together. Call it before
     * asking the backend to start the attempt, so that a crash in between leaves an open attempt to reconcile
     * rather than a process nobody knows about.
     *
     * @param placement the GPUs chosen, node by node; as many in all as the workload asked for
     * @throws NotFoundException when there is no such workload
     * @throws ConflictException when the workload is not waiting, or its cancellation was requested
     */
    public AttemptKey beginAttempt(String workloadId, List<Launch.NodeGpus> placement, long nowMillis) {
        Objects.requireNonNull(workloadId, "workloadId");
        List<Launch.NodeGpus> where = List.copyOf(placement);
        if (where.isEmpty()) {
            throw new IllegalArgumentException("workload " + workloadId + ": a placement needs at least one node");
        }
        Set<String> nodes = new HashSet<>();
        for (Launch.NodeGpus p : where) {
            if (!nodes.add(p.node())) {
                throw new IllegalArgumentException("workload " + workloadId + ": node " + p.node()
                        + " appears twice in the placement");
            }
        }
        String placementJson = Rows.placementJson(where);
        int gpus = where.stream().mapToInt(p -> p.gpus().size()).sum();
        return transactions.txGuarded("begin an attempt of workload " + workloadId, h -> {
            // One guarded update moves a waiting workload of that size to running and returns what the attempt's
            // charge needs; only when it moved nothing is the workload read, to say why.
            Long minRuntime;
            try (RawStatement st = transactions.raw(h, BEGIN_MOVE)) {
                minRuntime = st.set(workloadId).set(false).set(gpus).one(rs -> rs.getLong(1));
            }
            if (minRuntime == null) {
                Workload w = Workloads.require(h, workloadId);
                if (w.gpus() != gpus) {
                    throw new IllegalArgumentException("workload " + workloadId + " asks for " + w.gpus()
                            + " GPUs; the placement has " + gpus);
                }
                throw new ConflictException("workload " + workloadId + " is " + w.state().label()
                        + (w.cancelRequested() ? " and its cancellation was requested" : "")
                        + "; an attempt begins only for a pending or requeued workload not being cancelled");
            }
            Integer next;
            try (RawStatement st = transactions.raw(h, BEGIN_INSERT)) {
                next = st.set(workloadId).set(placementJson).set(nowMillis)
                        .setNullable(Workload.allocated(minRuntime) ? Long.valueOf(nowMillis) : null).set(workloadId)
                        .one(rs -> rs.getInt(1));
            }
            return new AttemptKey(workloadId, Objects.requireNonNull(next, "the attempt inserted"));
        });
    }

    /** {@link #beginAttempt}'s guarded move of the workload to running (id, false, gpus). */
    private static final String BEGIN_MOVE = "UPDATE workloads SET state = 'running', held_reason = NULL WHERE id = ?"
            + " AND state IN " + WAITING + " AND cancel_requested = ? AND gpus = ? RETURNING min_runtime_seconds";
    /** {@link #beginAttempt}'s new attempt (id, placement, start, charged from, id). */
    private static final String BEGIN_INSERT = "INSERT INTO attempts (workload_id, attempt, placement, phase,"
            + " started_at_ms, charged_from_ms) SELECT ?, COALESCE(MAX(attempt), 0) + 1, ?, 'launching', ?, ?"
            + " FROM attempts WHERE workload_id = ? RETURNING attempt";

    /**
     * Records that the backend reports the attempt running: true if it moved from launching to running, false if it
     * was already past launching (running, stopping or ended), so a repeated report is harmless.
     *
     * @throws NotFoundException when there is no such attempt
     */
    public boolean markRunning(AttemptKey key) {
        Objects.requireNonNull(key, "key");
        return transactions.txGuarded("mark attempt " + key + " running", h -> {
            int n;
            try (RawStatement st = transactions.raw(h, "UPDATE attempts SET phase = ? WHERE workload_id = ?"
                    + " AND attempt = ? AND phase = 'launching'")) {
                n = st.set(AttemptPhase.RUNNING.label()).set(key.workloadId()).set(key.attempt()).update();
            }
            if (n == 0) {
                requireAttempt(h, key);
            }
            return n == 1;
        });
    }

    /**
     * Records that the scheduler asked the backend to stop the attempt: true if it moved from launching or running
     * to stopping, false if it was already stopping or ended.
     *
     * @throws NotFoundException when there is no such attempt
     */
    public boolean markStopping(AttemptKey key, long nowMillis) {
        return markStopping(List.of(new StopMark(key, nowMillis)))[0];
    }

    /** One attempt asked to stop, and when: an entry of {@link #markStopping(List)}. */
    public record StopMark(AttemptKey key, long atMillis) {
        public StopMark {
            Objects.requireNonNull(key, "key");
        }
    }

    /**
     * {@link #markStopping(AttemptKey, long)} for each of these attempts, in one transaction and one JDBC batch of
     * one statement (the loop asks some 1,000 attempts to stop in the cycle that takes in 10,000 submissions, one
     * statement each before; issue 21). Whether each moved, in order.
     *
     * @throws NotFoundException when one of them does not exist (then none is marked)
     */
    public boolean[] markStopping(List<StopMark> stops) {
        List<StopMark> all = List.copyOf(stops);
        if (all.isEmpty()) {
            return new boolean[0];
        }
        HandleCallback<boolean[], RuntimeException> work = h -> {
            int[] counts;
            try (RawStatement st = transactions.raw(h, MARK_STOPPING)) {
                for (StopMark m : all) {
                    st.set(AttemptPhase.STOPPING.label()).set(m.atMillis()).set(m.key().workloadId())
                            .set(m.key().attempt()).add();
                }
                counts = st.runBatch();
            }
            boolean[] moved = new boolean[all.size()];
            for (int i = 0; i < moved.length; i++) {
                moved[i] = counts[i] > 0 || counts[i] == java.sql.Statement.SUCCESS_NO_INFO;
                if (counts[i] == 0) {
                    requireAttempt(h, all.get(i).key());
                }
            }
            return moved;
        };
        // One entry throws only before it writes (txGuarded's rule); of several, a missing one is found after others
        // were marked, and its savepoint undoes them.
        String what = all.size() == 1 ? "mark attempt " + all.get(0).key() + " stopping"
                : "mark " + all.size() + " attempts stopping";
        return all.size() == 1 ? transactions.txGuarded(what, work) : transactions.tx(what, work);
    }

    /** {@link #markStopping}'s statement (the phase, when, the id, the attempt). */
    private static final String MARK_STOPPING = "UPDATE attempts SET phase = ?, stop_requested_at_ms = ?"
            + " WHERE workload_id = ? AND attempt = ? AND phase IN ('launching', 'running')";

    /**
     * Ends an attempt and sets its workload's state from the outcome, together (the rule is
     * {@link AttemptOutcome#workloadState}: the state of the same name; lost is requeued when resumable and failed
     * otherwise; a workload whose cancellation was requested is cancelled rather than sent back to the queue).
     * Ending an attempt again with the same outcome changes nothing. Returns the workload as it is afterwards.
     *
     * @param reason         the scheduler's words for people, which every viewer reads; may be null
     * @param preemptor      the workload it made room for; may be null
     * @param lostGpuSeconds the work thrown away, when known; may be null
     * @param nowMillis      when it ended; a time before the attempt's start (a clock that stepped back) is
     *                       recorded as its start
     * @throws NotFoundException when there is no such attempt
     * @throws ConflictException when it already ended with another outcome
     */
    public Workload endAttempt(AttemptKey key, AttemptOutcome outcome, String reason, String preemptor,
                               Double lostGpuSeconds, long nowMillis) {
        return endAttempt(key, outcome, reason, null, preemptor, lostGpuSeconds, nowMillis);
    }

    /**
     * {@link #endAttempt(AttemptKey, AttemptOutcome, String, String, Double, long)} with the backend's words about the
     * end ({@code reasonDetail}; may be null), which only those who may see the workload's details read
     * ({@link AttemptReasons}).
     */
    public Workload endAttempt(AttemptKey key, AttemptOutcome outcome, String reason, String reasonDetail,
                               String preemptor, Double lostGpuSeconds, long nowMillis) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(outcome, "outcome");
        if (lostGpuSeconds != null && !(lostGpuSeconds >= 0)) {
            throw new IllegalArgumentException("attempt " + key + ": lost GPU-seconds must be >= 0, got " + lostGpuSeconds);
        }
        return transactions.txGuarded("end attempt " + key, h -> {
            // The loop ends hundreds of attempts in a cycle, so the usual case is two statements: the workload,
            // running with this attempt open, takes its next state (the rule's answer for each combination of
            // resumable and cancellation requested, chosen by the row) and comes back; then the attempt ends. Only
            // when the first moved nothing are they read, to tell an attempt already ended (the same outcome again
            // changes nothing) from none, or from a store out of step.
            Workload moved;
            try (RawStatement st = transactions.raw(h, END_MOVE)) {
                moved = st.set(true).set(true)
                        .set(outcome.workloadState(true, true).label())
                        .set(outcome.workloadState(false, true).label())
                        .set(true)
                        .set(outcome.workloadState(true, false).label())
                        .set(outcome.workloadState(false, false).label())
                        .set(key.workloadId()).set(key.workloadId()).set(key.attempt())
                        .one(Rows::workloadInColumnOrder);
            }
            if (moved == null) {
                Attempt a = requireAttempt(h, key);
                Workload w = Workloads.require(h, key.workloadId());
                if (a.phase() != AttemptPhase.ENDED) {
                    throw new ConflictException("workload " + w.id() + " is " + w.state().label() + " while its"
                            + " attempt " + key + " is open; the store is inconsistent");
                }
                if (a.outcome() == outcome) {
                    return w;
                }
                throw new ConflictException("attempt " + key + " already ended as " + a.outcome().label()
                        + "; it cannot end again as " + outcome.label());
            }
            try (RawStatement st = transactions.raw(h, END_ATTEMPT)) {
                st.set(nowMillis).set(nowMillis).set(outcome.label()).set(reason).set(reasonDetail).set(preemptor)
                        .setNullable(lostGpuSeconds).set(key.workloadId()).set(key.attempt()).update();
            }
            return moved;
        });
    }

    /**
     * {@link #endAttempt}'s move of the workload out of running (true, true, the states for cancellation requested
     * and resumable, and not; true, the states for resumable and not; the id twice, the attempt).
     */
    private static final String END_MOVE = "UPDATE workloads SET state = CASE WHEN cancel_requested = ? THEN"
            + " (CASE WHEN resumable = ? THEN ? ELSE ? END) ELSE (CASE WHEN resumable = ? THEN ? ELSE ? END) END"
            + " WHERE id = ? AND state = 'running' AND EXISTS (SELECT 1 FROM attempts WHERE workload_id = ?"
            + " AND attempt = ? AND phase <> 'ended') RETURNING " + Workloads.WORKLOAD_COLUMNS;
    /**
     * {@link #endAttempt}'s end of the attempt (the end twice, outcome, reason, its detail, preemptor, lost, id,
     * attempt).
     */
    private static final String END_ATTEMPT = "UPDATE attempts SET phase = 'ended', ended_at_ms = CASE WHEN ? >"
            + " started_at_ms THEN ? ELSE started_at_ms END, outcome = ?, reason = ?, reason_detail = ?, preemptor = ?,"
            + " lost_gpu_seconds = ? WHERE workload_id = ? AND attempt = ? AND phase <> 'ended'";

    /** The attempts of a workload, first to last (none for an unknown workload). */
    public List<Attempt> attempts(String workloadId) {
        Objects.requireNonNull(workloadId, "workloadId");
        return transactions.read("list the attempts of workload " + workloadId, h -> attemptsOf(h, workloadId));
    }

    /**
     * A workload and its attempts, first to last, read in one transaction: one snapshot, so the attempts are those
     * of the workload as it is read (two reads could see it running and its attempts from before it started), and
     * one reader connection taken instead of two ({@code GET /v1/workloads/ID}). Empty for an unknown workload.
     */
    public Optional<WorkloadHistory> workloadWithAttempts(String workloadId) {
        Objects.requireNonNull(workloadId, "workloadId");
        return transactions.read("read workload " + workloadId + " and its attempts", h -> Workloads.find(h, workloadId)
                .map(w -> new WorkloadHistory(w, attemptsOf(h, workloadId))));
    }

    /** A workload and its attempts, first to last, as one read saw them. */
    public record WorkloadHistory(Workload workload, List<Attempt> attempts) {
        public WorkloadHistory {
            Objects.requireNonNull(workload, "workload");
            attempts = List.copyOf(attempts);
        }
    }

    private static List<Attempt> attemptsOf(Handle h, String workloadId) {
        return h.createQuery("SELECT " + ATTEMPT_COLUMNS + " FROM attempts a WHERE a.workload_id = :id ORDER BY a.attempt")
                .bind("id", workloadId)
                .map((rs, ctx) -> Rows.attempt(rs))
                .list();
    }

    /**
     * Every attempt that has not ended, in submission order of their workloads: what a restarted scheduler must
     * reconcile with the backend (ask it about each, end the ones it no longer runs).
     */
    public List<Attempt> openAttempts() {
        return transactions.read("list open attempts", h ->
                h.createQuery("SELECT " + ATTEMPT_COLUMNS + " FROM attempts a JOIN workloads w ON w.id = a.workload_id"
                                + " WHERE a.phase <> 'ended' ORDER BY w.seq, a.attempt")
                        .map((rs, ctx) -> Rows.attempt(rs))
                        .list());
    }

    /**
     * The workloads whose attempt is launching: the backend was asked to start it and has not yet reported it running
     * (on Slurm, until the job is seen running on the GPUs Allot placed it on). A few at any moment, read through the
     * open attempts' index; what lists of workloads show as starting rather than running.
     */
    public Set<String> launchingWorkloads() {
        return transactions.read("list launching attempts", h ->
                new HashSet<>(h.createQuery("SELECT workload_id FROM attempts WHERE phase <> 'ended'"
                                + " AND phase = 'launching'")
                        .mapTo(String.class)
                        .list()));
    }

    /**
     * Allocated GPU-seconds per allocation path over the window {@code [sinceMillis, nowMillis)}: for each charged
     * attempt (of allocated work, or of unallocated work promoted in place; unallocated work is never charged) that
     * overlaps the window, its GPUs times the part of its charged run inside the window, an attempt still open
     * counting up to {@code nowMillis}. This is what rebuilds fair-share usage after a restart. Allocations with no
     * usage are absent; the map is sorted by path.
     */
    public SortedMap<String, Double> usageSince(long sinceMillis, long nowMillis) {
        return usage.usageSince(sinceMillis, nowMillis);
    }

    /**
     * One run: an attempt's GPUs and the stretch of it that counts ({@code endedAtMillis} null while it runs): its
     * charged part, or its uncharged part.
     */
    public record ChargedRun(String allocationPath, int gpus, long startedAtMillis, Long endedAtMillis) {
        /** GPU-seconds of this run inside {@code [fromMillis, untilMillis)}, a run still going counting to the end. */
        public double gpuSecondsIn(long fromMillis, long untilMillis) {
            long start = Math.max(startedAtMillis, fromMillis);
            long end = endedAtMillis == null ? untilMillis : Math.min(endedAtMillis, untilMillis);
            return end > start ? gpus * (end - start) / 1000.0 : 0;
        }
    }

    /**
     * The charged part of every attempt that was charged at some time in {@code [sinceMillis, nowMillis)}, in
     * submission order: from its charging start ({@link Attempt#chargedFromMillis}: its start for allocated work, its
     * promotion for work promoted in place) to its end. What a restarted scheduler seeds its fair-share window with.
     */
    public List<ChargedRun> chargedRuns(long sinceMillis, long nowMillis) {
        return usage.chargedRuns(sinceMillis, nowMillis);
    }

    /**
     * The uncharged part of every attempt that ran uncharged at some time in {@code [sinceMillis, nowMillis)}: an
     * attempt of unallocated work, up to its end or to its promotion in place. The GPU time allocations received
     * beyond what they are charged for.
     */
    public List<ChargedRun> unallocatedRuns(long sinceMillis, long nowMillis) {
        return usage.unallocatedRuns(sinceMillis, nowMillis);
    }

    /**
     * Promotes a workload in place from unallocated to allocated (a campaign's shard taking a protected slot): its
     * minimum runtime becomes {@code minRuntimeSeconds}, and its open attempt, if it has one, is charged from
     * {@code nowMillis} on (the same attempt; what it ran before stays uncharged). Together, so a restart finds either
     * both or neither. False when the workload is not unallocated and not ended (nothing changed).
     *
     * @throws NotFoundException when there is no such workload
     */
    public boolean promote(String workloadId, long minRuntimeSeconds, long nowMillis) {
        Objects.requireNonNull(workloadId, "workloadId");
        if (minRuntimeSeconds <= 0) {
            throw new IllegalArgumentException("workload " + workloadId + ": a promotion needs a minimum runtime above"
                    + " zero, got " + minRuntimeSeconds + " s");
        }
        return transactions.tx("promote workload " + workloadId, h -> {
            int n = h.createUpdate("UPDATE workloads SET min_runtime_seconds = :min WHERE id = :id"
                            + " AND min_runtime_seconds = 0 AND state IN ('pending', 'running', 'requeued')")
                    .bind("min", minRuntimeSeconds).bind("id", workloadId).execute();
            if (n == 0) {
                Workloads.require(h, workloadId);
                return false;
            }
            h.createUpdate("UPDATE attempts SET charged_from_ms = :now WHERE workload_id = :id AND phase <> 'ended'"
                            + " AND charged_from_ms IS NULL")
                    .bind("now", Math.max(0, nowMillis)).bind("id", workloadId).execute();
            return true;
        });
    }

    /**
     * What allocated work asked for in {@code [sinceMillis, nowMillis)}: each allocated workload's GPUs from its
     * submission until it ended (the end of its last attempt), or until now while it waits or runs. A workload that
     * ended without ever starting (cancelled while waiting) is not counted: the store does not keep when it ended.
     * As {@link ChargedRun}s, so that the same per-step arithmetic applies.
     */
    public List<ChargedRun> allocatedDemand(long sinceMillis, long nowMillis) {
        return usage.allocatedDemand(sinceMillis, nowMillis);
    }

    /**
     * What a workload's attempts add up to, for the safety brakes: how many of them ended by a failure of the
     * workload's own (failed: a non-zero exit, a launch refused; lost: its run gone without the scheduler stopping
     * it, requeued if it can resume) and the GPU-seconds of all its runs (GPUs times run time, an open attempt
     * counting up to now), charged or not. A preemption decided by the scheduler (an attempt ended preempted or
     * requeued) is not the workload's failure and does not count: the policy preempting the same work again and again
     * must not hold it. Those are counted apart ({@code preemptions}): the policy's shortest turn asks whether work
     * was preempted before, also after a restart of the service.
     */
    public record RunTotals(int failures, double gpuSeconds, int preemptions) {
        public static final RunTotals NONE = new RunTotals(0, 0, 0);

        public double gpuHours() {
            return gpuSeconds / 3600;
        }
    }

    /** The {@link RunTotals} of one workload ({@link RunTotals#NONE} without attempts, or for an unknown one). */
    public RunTotals runTotals(String workloadId, long nowMillis) {
        return usage.runTotals(workloadId, nowMillis);
    }

    /**
     * The {@link RunTotals} of each of these workloads that has attempts, by id, in one query per
     * {@value AttemptUsage#TOTALS_PER_QUERY} (the loop checks the brakes of every workload a round of ends sent back
     * to the queue: some 500 in the cycle that takes in 10,000 submissions, one query each before; issue 21).
     */
    public Map<String, RunTotals> runTotals(Collection<String> workloadIds, long nowMillis) {
        return usage.runTotals(workloadIds, nowMillis);
    }

    /** The {@link RunTotals} of every waiting workload that has attempts, by id (one query). */
    public Map<String, RunTotals> runTotalsOfWaiting(long nowMillis) {
        return usage.runTotalsOfWaiting(nowMillis);
    }

    /** An attempt with its workload: what the live GPU timeline draws. */
    public record AttemptOfWorkload(Attempt attempt, Workload workload) {
    }

    /**
     * Every attempt that ran at some time in {@code [sinceMillis, untilMillis)} (open ones included), with its
     * workload, by start time, then submission order, then attempt number. The workloads come without their command
     * and environment (empty), which the timeline does not show. Two indexed reads in one transaction: the open
     * attempts, and those that ended after the window's start.
     */
    public List<AttemptOfWorkload> attemptsBetween(long sinceMillis, long untilMillis) {
        if (sinceMillis > untilMillis) {
            throw new IllegalArgumentException("window starts (" + sinceMillis + " ms) after it ends (" + untilMillis + " ms)");
        }
        String select = "SELECT " + ATTEMPT_COLUMNS + ", "
                + Workloads.WORKLOAD_COLUMNS_OF_W.replace("w.command", "'[]' AS command")
                .replace("w.environment", "'{}' AS environment")
                + " FROM attempts a JOIN workloads w ON w.id = a.workload_id WHERE a.started_at_ms < :until AND ";
        List<AttemptOfWorkload> out = transactions.read("list the attempts of a window", h -> {
            List<AttemptOfWorkload> all = new ArrayList<>();
            all.addAll(h.createQuery(select + "a.phase <> 'ended'").bind("until", untilMillis)
                    .map((rs, ctx) -> new AttemptOfWorkload(Rows.attempt(rs), Rows.workload(rs))).list());
            all.addAll(h.createQuery(select + "a.ended_at_ms > :since").bind("since", sinceMillis).bind("until", untilMillis)
                    .map((rs, ctx) -> new AttemptOfWorkload(Rows.attempt(rs), Rows.workload(rs))).list());
            return all;
        });
        out.sort(Comparator.comparingLong((AttemptOfWorkload x) -> x.attempt().startedAtMillis())
                .thenComparingLong(x -> x.workload().seq()).thenComparingInt(x -> x.attempt().key().attempt()));
        return out;
    }

    private static Attempt requireAttempt(Handle h, AttemptKey key) {
        return h.createQuery("SELECT " + ATTEMPT_COLUMNS + " FROM attempts a WHERE a.workload_id = :id AND a.attempt = :attempt")
                .bind("id", key.workloadId()).bind("attempt", key.attempt())
                .map((rs, ctx) -> Rows.attempt(rs))
                .findOne()
                .orElseThrow(() -> new NotFoundException("no attempt " + key));
    }
}
