package dev.allot.core.policy.allocation;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.sched.Reservation;
import dev.allot.core.sched.ShapeCursor;
import dev.allot.core.sched.VictimPool;
import dev.allot.core.sched.VictimSearch;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.PriorityQueue;

/**
 * Allot's own policy: budgets, hierarchical fair share over a lookback window, and minimum-runtime contracts.
 *
 * <p>One cycle, in order:
 * <ol>
 *   <li><b>Drain.</b> On every unhealthy node, each job that may leave leaves: unallocated ones at once, allocated
 *   ones once past their minimum runtime (the protection expiry wakes the scheduler at that instant).</li>
 *   <li><b>Allocated work</b>, allocation by allocation in {@link FairShare} order (recomputed after every start,
 *   since a start commits its minimum runtime), inside an allocation by priority, submission and id. A job starts
 *   on idle GPUs if it fits, else preempts a minimal set of victims it may preempt (see below), else it is
 *   blocked: the first blocked job of the cycle gets a {@link Reservation} and the rest of its shape queue is
 *   skipped for this cycle. Over-entitled allocations still start work on idle GPUs (bursting).</li>
 *   <li><b>Unallocated work</b> (minimum runtime 0) on whatever GPUs are still idle, allocations in the same order.
 *   It never preempts.</li>
 * </ol>
 *
 * <p><b>Who may preempt whom.</b> Unallocated work: any allocated job. A job past its minimum runtime: a job of an
 * allocation that ranks above its own
 * (compared where their tree paths part, see {@link FairShare#ranksAbove}), or a higher-priority job of its own allocation. A job inside its minimum
 * runtime: nobody. Victims are preferred unallocated first, then from the most over-served allocation, then the
 * least work lost since the last checkpoint, then by id.
 *
 * <p>Fair share drifts between events as usage accrues and ages out of the window, so while allocated work is
 * blocked and preemptible work runs, the plan asks to be woken after {@code fairshare-recheck}.
 */
public final class AllocationPolicy implements Policy {
    public static final String NAME = "allocation";

    static final List<SettingSpec> SETTINGS = List.of(
            SettingSpec.duration("fairshare-recheck", Duration.ofMinutes(5),
                    "while allocated work waits and preemptible work runs, re-rank at least this often"
                            + " (fair share drifts as usage accrues and leaves the window)"),
            SettingSpec.bool("reservation", true,
                    "hold nodes for the first allocated workload that cannot start, so small work cannot starve large"
                            + " gangs (EASY backfill with minimum runtimes as the known horizon)"),
            SettingSpec.bool("shortcuts", true,
                    "skip victim searches that provably fail (failed-search memo, whole-node bound); false decides"
                            + " exactly the same, slower: for verification"));

    public static final PolicyFactory FACTORY = PolicyFactory.of(NAME,
            "Allot: budgets, hierarchical fair share over the lookback window, minimum-runtime contracts,"
            + " unallocated work on idle GPUs, automatic drains",
            SETTINGS,
            settings -> new AllocationPolicy(settings.duration("fairshare-recheck"), settings.bool("reservation"),
                settings.bool("shortcuts")));

    private static final String UNALLOCATED_REASON = "unallocated (minimum runtime 0): free, never charged,"
            + " started on GPUs no waiting allocated work could use; preemptible at any moment";

    private final long recheckSeconds;
    private final boolean reservations;
    private final boolean shortcuts;
    private ClusterState boundTo;
    private CycleWork work;
    private FairShare fairShare;
    private VictimPool victimPool;
    private WholeNodeBound wholeNodeBound;

    public AllocationPolicy(Duration fairshareRecheck, boolean reservations, boolean shortcuts) {
        if (fairshareRecheck.isNegative() || fairshareRecheck.isZero()) {
            throw new IllegalArgumentException("fairshare-recheck must be positive, got " + Durations.format(fairshareRecheck));
        }
        this.recheckSeconds = fairshareRecheck.getSeconds();
        this.reservations = reservations;
        this.shortcuts = shortcuts;
    }

    public static AllocationPolicy withDefaults() {
        return (AllocationPolicy) FACTORY.create(Settings.defaults(SETTINGS));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isProtected(Job job, long now) {
        return job.isProtected(now);
    }

    private void bind(ClusterState state) {
        if (boundTo != state) {
            boundTo = state;
            work = new CycleWork(state);
            victimPool = new VictimPool(state.nodeCount());
            wholeNodeBound = new WholeNodeBound(state.tree().leafCount());
            fairShare = new FairShare(state.tree(), state.cluster().totalGpus(), state.ledger().windowSeconds());
        }
    }

    @Override
    public Plan schedule(ClusterState state, long now) {
        if (state.now() != now) {
            throw new IllegalArgumentException("the state is at " + state.now() + ", not at " + now + "; advance it first");
        }
        if (state.pending().total() == 0 && state.nextUnhealthyBusyNode(0) < 0) {
            return Plan.empty();
        }
        bind(state);
        work.begin(now);
        victimPool.reset();
        failedSearches.clear();
        fairShare.reset(state);
        drain(state, now);
        boolean blocked = scheduleAllocated(state, now);
        scheduleUnallocated(state);
        long wake = Plan.NO_WAKE_UP;
        if (blocked && anyUnprotected(state)) {
            wake = now + recheckSeconds;
        }
        return new Plan(work.decisions(), wake);
    }

    private static boolean anyUnprotected(ClusterState state) {
        for (int l = 0; l < state.tree().leafCount(); l++) {
            if (state.unprotectedGpus(l) > 0) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ drain

    private void drain(ClusterState state, long now) {
        for (int n = state.nextUnhealthyBusyNode(0); n >= 0; n = state.nextUnhealthyBusyNode(n + 1)) {
            for (Job j : state.jobsOn(n)) {
                if (work.isPreempted(j) || j.isProtected(now)) {
                    continue;
                }
                String why = j.allocated()
                        ? "host " + state.nodeName(n) + " is unhealthy and " + j.id() + " is past its "
                                + Durations.formatSeconds(j.minRuntimeSeconds()) + " minimum runtime"
                        : "host " + state.nodeName(n) + " is unhealthy and " + j.id() + " runs unallocated";
                work.preempt(j, PreemptionCause.drain(state.nodeName(n), why));
            }
        }
    }

    // ------------------------------------------------------------------ allocated work

    /** Per-cycle state of the allocated phase: the reservation, planned only once someone would need it. */
    private Job blockedOwner;
    private Reservation reservation;
    private boolean reservationPlanned;

    private boolean scheduleAllocated(ClusterState state, long now) {
        int leaves = state.tree().leafCount();
        boolean any = false;
        for (int l = 0; l < leaves && !any; l++) {
            any = state.pending().count(l, true) > 0;
        }
        if (!any) {
            return false;
        }
        List<PriorityQueue<ShapeCursor>> heads = new ArrayList<>(java.util.Collections.nCopies(leaves, null));
        boolean[] done = new boolean[leaves];
        boolean victimsExist = state.unallocatedRunningGpus() > 0 || anyUnprotected(state);
        blockedOwner = null;
        reservation = null;
        reservationPlanned = false;
        boolean blocked = false;
        int[] order = fairShare.leafOrder();
        long orderVersion = fairShare.version();
        int pos = 0;
        while (true) {
            if (!victimsExist && work.free().totalFree() == 0) {
                return true;
            }
            if (orderVersion != fairShare.version()) {
                order = fairShare.leafOrder();
                orderVersion = fairShare.version();
                pos = 0;
            }
            PriorityQueue<ShapeCursor> heap = null;
            for (; pos < order.length; pos++) {
                int leaf = order[pos];
                if (done[leaf] || state.pending().count(leaf, true) == 0) {
                    continue;
                }
                if (heads.get(leaf) == null) {
                    Job best = hopelessBest(state, leaf);
                    if (best != null) {
                        // nothing of this allocation can start: as if each of its queues had been tried and failed
                        done[leaf] = true;
                        blocked = true;
                        if (blockedOwner == null) {
                            blockedOwner = best;
                        }
                        continue;
                    }
                    heads.set(leaf, cursors(state, leaf));
                }
                if (!heads.get(leaf).isEmpty()) {
                    heap = heads.get(leaf);
                    break;
                }
                done[leaf] = true;
            }
            if (heap == null) {
                return blocked;
            }
            ShapeCursor c = heap.poll();
            Job w = c.head();
            if (tryStart(state, w, pos, now)) {
                c.advance();
            } else {
                c.exhaust();
                blocked = true;
                if (blockedOwner == null) {
                    blockedOwner = w;
                }
            }
            if (c.head() != null) {
                heap.add(c);
            }
        }
    }

    private static PriorityQueue<ShapeCursor> cursors(ClusterState state, int leaf) {
        PriorityQueue<ShapeCursor> h = new PriorityQueue<>(BY_HEAD);
        for (NavigableSet<Job> q : state.pending().shapeQueues(leaf, true)) {
            if (!q.isEmpty()) {
                h.add(new ShapeCursor(q));
            }
        }
        return h;
    }

    /**
     * When no waiting allocated job of {@code leaf} could start now, even on every idle GPU and after preempting every
     * job it may preempt (ignoring where GPUs are), its first job in queue order; otherwise null. Every job of the
     * allocation would fail {@link #tryStart} at its first checks, which change nothing, so skipping them decides
     * exactly the same.
     */
    private Job hopelessBest(ClusterState state, int leaf) {
        Job best = state.pending().bestHead(leaf, true);
        int smallest = state.pending().smallestHeadGpus(leaf, true);
        // the most it could get: its best job has the highest priority, so the most own-leaf victims
        return best != null && !victimBoundAllows(state, best, null, smallest) ? best : null;
    }

    private static final Comparator<ShapeCursor> BY_HEAD = (a, b) -> Job.QUEUE_ORDER.compare(a.head(), b.head());

    /** Starts {@code w} on idle GPUs or after preempting victims, honouring the reservation; false if it cannot. */
    private boolean tryStart(ClusterState state, Job w, int rank, long now) {
        BitSet excluded = null;
        Placement p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null);
        if (p != null && touches(p, reservedAgainst(w, now))) {
            excluded = reservedAgainst(w, now);
            p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), excluded);
        }
        List<Job> victims = null;
        if (p == null) {
            // the GPU bound without the reservation is necessary with it too: check it before planning one
            if (excluded == null && !victimBoundAllows(state, w, null)) {
                return false;
            }
            if (excluded == null) {
                excluded = reservedAgainst(w, now);
            }
            victims = findVictims(state, w, now, excluded);
            if (victims == null || victims.isEmpty()) {
                return false;
            }
            for (Job v : victims) {
                work.preempt(v, cause(state, v, w));
            }
            p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), excluded);
            if (p == null) {
                throw new IllegalStateException("victim search promised room for " + w.id() + " but none was found");
            }
        }
        startAllocated(state, w, p, rank, victims == null ? 0 : victims.size());
        return true;
    }

    /**
     * The nodes {@code w} must keep off: those reserved for the cycle's first blocked workload, unless {@code w} will
     * be preemptible by the time the reservation is due. The reservation is planned on first need.
     */
    private BitSet reservedAgainst(Job w, long now) {
        if (blockedOwner == null || !reservations) {
            return null;
        }
        if (!reservationPlanned) {
            final Job owner = blockedOwner;
            reservation = Reservation.plan(work, owner, j -> mayPreempt(owner, j));
            reservationPlanned = true;
        }
        return reservation == null || reservation.allows(w, now) ? null : reservation.nodes();
    }

    private static boolean touches(Placement p, BitSet nodes) {
        if (nodes == null) {
            return false;
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            if (nodes.get(p.node(i))) {
                return true;
            }
        }
        return false;
    }

    private void startAllocated(ClusterState state, Job w, Placement p, int rank, int victims) {
        AllocationTree tree = state.tree();
        double ratio = fairShare.leafRatio(w.leaf());
        String reason = "allocation " + tree.leafName(w.leaf()) + " was #" + (rank + 1) + " in fair share (usage "
                + fmt(ratio) + " of entitlement)" + (victims == 0 ? "; idle GPUs" : "; after preempting " + dev.allot.core.model.Words.count(victims, "workload"));
        work.start(w, p, reason);
        fairShare.chargeStart(w);
    }

    /** Whether {@code w} may preempt {@code v} once {@code v} is past its protection (protection not checked here). */
    private boolean mayPreempt(Job w, Job v) {
        return mayPreempt(fairShare, w, v);
    }

    /**
     * The rule of who may preempt whom, on a fair share of the current cycle: whether allocated work {@code w} may
     * preempt running {@code v} once {@code v} is past its protection (protection is not checked here). Unallocated
     * work may always be preempted; work of the same allocation only by higher priority; other allocated work only
     * when {@code w}'s allocation {@link FairShare#ranksAbove ranks above} it. Public for explanations.
     */
    public static boolean mayPreempt(FairShare fairShare, Job w, Job v) {
        if (!v.allocated()) {
            return true;
        }
        if (v.leaf() == w.leaf()) {
            return v.spec().priority().ordinal() < w.spec().priority().ordinal();
        }
        return fairShare.ranksAboveRow(w.leaf())[v.leaf()];
    }

    /**
     * GPUs allocated work {@code w} could take by preemption right now, wherever they are: every unallocated running
     * GPU, the unprotected GPUs of allocations {@code w}'s ranks above, and the unprotected GPUs of lower priorities
     * of its own allocation. Public for explanations.
     */
    public static long preemptibleGpus(ClusterState state, FairShare fairShare, Job w) {
        boolean[] above = fairShare.ranksAboveRow(w.leaf());
        int prio = w.spec().priority().ordinal();
        long gpus = state.unallocatedRunningGpus();
        for (int l = 0; l < above.length; l++) {
            if (above[l]) {
                gpus += state.unprotectedGpus(l);
            }
        }
        for (var pr : dev.allot.core.model.Priority.values()) {
            if (pr.ordinal() < prio) {
                gpus += state.unprotectedGpus(w.leaf(), pr);
            }
        }
        return gpus;
    }

    /**
     * A necessary condition for {@code w} to fit by preempting: usable idle GPUs plus every GPU it may take (ignoring
     * where they are) reach its size.
     */
    private boolean victimBoundAllows(ClusterState state, Job w, BitSet excluded) {
        return victimBoundAllows(state, w, excluded, w.gpus());
    }

    /** The same bound, with {@code w}'s rights, against {@code gpus} instead of its size. */
    private boolean victimBoundAllows(ClusterState state, Job w, BitSet excluded, int gpus) {
        long bound = Placer.usableFree(work.free(), excluded) + preemptibleGpus(state, fairShare, w);
        return bound >= gpus;
    }

    private List<Job> findVictims(ClusterState state, Job w, long now, BitSet excluded) {
        int leaves = state.tree().leafCount();
        boolean[] above = fairShare.ranksAboveRow(w.leaf());
        int prio = w.spec().priority().ordinal();
        if (!victimBoundAllows(state, w, excluded)) {
            return null;
        }
        for (FailedSearch f : failedSearches) {
            if (shortcuts && f.covers(w, above, work.version(), excluded)) {
                return null;
            }
        }
        boolean wholeNodes = w.gpusPerNode() > 0 && w.gpusPerNode() == state.cluster().maxGpusPerNode();
        if (shortcuts && wholeNodes && wholeNodeBound.nodesFor(state, work, fairShare, w, excluded) < w.gpus() / w.gpusPerNode()) {
            return null;
        }
        List<Job> pool = victimPool.sorted(all -> {
            state.runningUnallocated().forEach(all);
            for (int l = 0; l < leaves; l++) {
                state.runningAllocated(l).forEach(all);
            }
        }, v -> !v.isProtected(now), victimKeys(now), fairShare.version());
        if (w.gpusPerNode() > 0 && !wholeNodes
                && victimPool.nodesThatCouldHost(work.free(), w.gpusPerNode(), excluded) < w.gpus() / w.gpusPerNode()) {
            return null;
        }
        List<Job> candidates = new ArrayList<>();
        for (Job v : pool) {
            if (work.isPreempted(v)) {
                continue;
            }
            if (!v.allocated() || (v.leaf() == w.leaf() ? v.spec().priority().ordinal() < prio : above[v.leaf()])) {
                candidates.add(v);
            }
        }
        List<Job> found = VictimSearch.find(work, w.gpus(), w.gpusPerNode(), excluded, candidates);
        if (found == null) {
            failedSearches.add(new FailedSearch(w.shape(), w.leaf(), prio, above.clone(), work.version(), excluded));
        }
        return found;
    }

    /**
     * A victim search that found nothing. Feasibility only grows with the candidate set, so on the same free GPUs
     * and victims any search for the same shape whose rights are a subset of these fails too. Rights are compared
     * allocation by allocation on the rank rows, without walking the victims: in fair-share order later allocations
     * may preempt fewer, so one search per shape and cycle usually settles every allocation's blocked gangs.
     */
    private record FailedSearch(int shape, int leaf, int priority, boolean[] above, long freeVersion, BitSet excluded) {
        boolean covers(Job w, boolean[] wAbove, long fv, BitSet ex) {
            if (w.shape() != shape || fv != freeVersion || ex != excluded) {
                return false;
            }
            int wLeaf = w.leaf();
            int wPrio = w.spec().priority().ordinal();
            for (int b = 0; b < wAbove.length; b++) {
                if (b == wLeaf) {
                    // w may take its own lower-priority jobs: covered if this search could take them all, or the same
                    boolean ownCovered = wPrio == 0 || (b == leaf ? wPrio <= priority : above[b]);
                    if (!ownCovered) {
                        return false;
                    }
                } else if (wAbove[b]) {
                    // w may take everything unprotected of b; this search only lower priorities of its own leaf
                    if (b == leaf || !above[b]) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    private final List<FailedSearch> failedSearches = new ArrayList<>();

    /** Unallocated first, then the most over-served allocation, then the least work lost, then id. */
    private VictimPool.Keys victimKeys(long now) {
        return new VictimPool.Keys() {
            @Override
            public int group(Job j) {
                return j.allocated() ? 1 : 0;
            }

            @Override
            public double overServed(Job j) {
                return j.allocated() ? fairShare.leafRatio(j.leaf()) : 0;
            }

            @Override
            public long workLost(Job j) {
                return j.workLostIfPreemptedAtGpuSeconds(now);
            }
        };
    }

    private PreemptionCause cause(ClusterState state, Job v, Job w) {
        AllocationTree tree = state.tree();
        String wAlloc = tree.leafName(w.leaf());
        if (!v.allocated()) {
            return PreemptionCause.by(PreemptionCause.Kind.UNALLOCATED, w.id(),
                    v.id() + " ran unallocated (minimum runtime 0) and allocated work " + w.id() + " of " + wAlloc + " needed its GPUs");
        }
        String past = v.id() + " was past its " + Durations.formatSeconds(v.minRuntimeSeconds()) + " minimum runtime";
        if (v.leaf() == w.leaf()) {
            return PreemptionCause.by(PreemptionCause.Kind.PRIORITY, w.id(),
                    "higher-priority " + w.id() + " (" + w.spec().priority().label() + ") of the same allocation " + wAlloc
                            + " needed its GPUs; " + past);
        }
        return PreemptionCause.by(PreemptionCause.Kind.FAIR_SHARE, w.id(),
                w.id() + " of " + wAlloc + " ranks above " + tree.leafName(v.leaf()) + ": "
                        + fairShare.explainAbove(w.leaf(), v.leaf()) + "; " + past);
    }

    // ------------------------------------------------------------------ unallocated work

    private void scheduleUnallocated(ClusterState state) {
        if (work.free().totalFree() == 0) {
            return;
        }
        int[] order = fairShare.leafOrder().clone();
        for (int leaf : order) {
            if (state.pending().count(leaf, false) == 0) {
                continue;
            }
            List<ShapeCursor> cs = new ArrayList<>();
            for (NavigableSet<Job> q : state.pending().shapeQueues(leaf, false)) {
                if (!q.isEmpty()) {
                    cs.add(new ShapeCursor(q));
                }
            }
            while (true) {
                if (work.free().totalFree() == 0) {
                    return;
                }
                Job w = null;
                ShapeCursor from = null;
                for (ShapeCursor c : cs) {
                    Job h = c.head();
                    if (h != null && (w == null || Job.QUEUE_ORDER.compare(h, w) < 0)) {
                        w = h;
                        from = c;
                    }
                }
                if (w == null) {
                    break;
                }
                Placement p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null);
                if (p == null) {
                    from.exhaust();
                    continue;
                }
                work.start(w, p, UNALLOCATED_REASON);
                from.advance();
            }
        }
    }

    private static String fmt(double ratio) {
        if (Double.isInfinite(ratio)) {
            return "inf";
        }
        return dev.allot.core.model.Decimals.significant(ratio, 3); // a long window makes ratios tiny
    }
}
