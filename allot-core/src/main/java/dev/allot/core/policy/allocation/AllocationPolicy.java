package dev.allot.core.policy.allocation;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.Settings;
import dev.allot.core.policy.allocation.preemption.FailedSearches;
import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.core.policy.allocation.preemption.VictimOrder;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.sched.Reservation;
import dev.allot.core.sched.ShapeCursor;
import dev.allot.core.sched.VictimPool;
import dev.allot.core.sched.VictimSearch;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.PriorityQueue;

/**
 * Allot's own policy: budgets, hierarchical fair share over a lookback window, and minimum-runtime contracts.
 * {@code docs/policy.md} states the whole rule with the measurements behind its defaults.
 *
 * <p>One cycle, in order:
 * <ol>
 *   <li><b>Drain.</b> On every unhealthy node, each job that may leave leaves: unallocated ones at once, allocated
 *   ones once past their minimum runtime (the protection expiry wakes the scheduler at that instant).</li>
 *   <li><b>Allocated work.</b> With {@code ranking=entitlement}, first a <i>quota pass</i>: allocations holding less
 *   than their quota ({@link Entitlements}) in {@link AllocationOrder}, most under-paid first. Then, under either
 *   ranking, the <i>open pass</i>: every allocation in lookback order ({@link FairShare}, recomputed after every
 *   start, since a start commits its minimum runtime). Inside an allocation by priority, submission and id. A job
 *   starts on idle GPUs if it fits, else preempts a minimal set of victims its rights allow
 *   ({@link PreemptionRules}, victims in {@link VictimOrder}), else it is blocked: the first
 *   {@code max-reservations} blocked gangs get a {@link Reservation} each ({@link GangReservations}), and the rest
 *   of the blocked job's shape queue is skipped for this cycle. Over-entitled allocations still start work on idle
 *   GPUs (bursting).</li>
 *   <li><b>Unallocated work</b> (minimum runtime 0) on whatever GPUs are still idle, allocations in the same order.
 *   It never preempts.</li>
 * </ol>
 *
 * <p>Fair share drifts between events as usage accrues and ages out of the window, so while allocated work is
 * blocked and preemptible work runs, the plan asks to be woken after {@code fairshare-recheck}.
 */
public final class AllocationPolicy implements Policy {
    public static final String NAME = "allocation";

    public static final PolicyFactory FACTORY = PolicyFactory.of(NAME,
            "Allot: budgets, hierarchical fair share over the lookback window, minimum-runtime contracts,"
            + " unallocated work on idle GPUs, automatic drains",
            AllocationSettings.SPECS,
            settings -> new AllocationPolicy(AllocationSettings.from(settings)));

    private static final String UNALLOCATED_REASON = "unallocated (minimum runtime 0): free, never charged,"
            + " started on GPUs no waiting allocated work could use; preemptible at any moment";

    private final long recheckSeconds;
    private final boolean reservations;
    private final boolean shortcuts;
    private final Ranking ranking;
    private final double reclaimMargin;
    private final int maxReservations;
    private final long starvationSeconds;
    private final double wasteLimit;
    private final boolean packProtected;
    private final BurstReserve burstReserve;
    private ClusterState boundTo;
    private CycleWork work;
    private FairShare fairShare;
    private Entitlements entitlements;
    private PreemptionRules rules;
    private AllocationOrder allocationOrder;
    private VictimPool victimPool;
    private WholeNodeBound wholeNodeBound;
    private final FailedSearches failedSearches = new FailedSearches();

    public AllocationPolicy(AllocationSettings settings) {
        this.recheckSeconds = settings.fairshareRecheck().getSeconds();
        this.reservations = settings.reservation();
        this.shortcuts = settings.shortcuts();
        this.ranking = settings.ranking();
        this.reclaimMargin = settings.reclaimMargin();
        this.maxReservations = settings.maxReservations();
        this.starvationSeconds = settings.starvationLimit().getSeconds();
        this.wasteLimit = settings.wasteLimit() == 0 ? Double.POSITIVE_INFINITY : settings.wasteLimit();
        this.packProtected = settings.placement() == AllocationSettings.Placement.PROTECTION;
        this.burstReserve = new BurstReserve(settings.burstReserve(), settings.burstShortProtection().getSeconds());
    }

    public static AllocationPolicy withDefaults() {
        return (AllocationPolicy) FACTORY.create(Settings.defaults(AllocationSettings.SPECS));
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
            victimPool = new VictimPool(state.nodes().count());
            wholeNodeBound = new WholeNodeBound(state.tree().leafCount());
            fairShare = new FairShare(state.tree(), state.cluster().totalGpus(), state.ledger().windowSeconds());
            entitlements = new Entitlements(state.tree());
            rules = new PreemptionRules(ranking, reclaimMargin, starvationSeconds, fairShare, entitlements)
                    .wasteLimit(wasteLimit);
            allocationOrder = new AllocationOrder(rules, state.tree().leafCount());
            gangReservations = new GangReservations(maxReservations, shortcuts);
        }
    }

    /**
     * Why the last {@link #schedule} held {@code job} back under the burst reserve ({@link BurstReserve}); empty if
     * it did not.
     */
    public java.util.Optional<BurstReserve.Hold> burstHold(Job job) {
        return java.util.Optional.ofNullable(boundTo == null ? null : burstReserve.heldBack(job));
    }

    /**
     * The rules of who may preempt whom and the serving order as this policy sees {@code state} now, on fresh
     * bookkeeping (for explanations; the policy's own cycle is not affected).
     */
    public PreemptionRules freshRules(ClusterState state) {
        FairShare fs = new FairShare(state.tree(), state.cluster().totalGpus(), state.ledger().windowSeconds());
        fs.reset(state);
        Entitlements e = new Entitlements(state.tree());
        e.reset(state);
        return new PreemptionRules(ranking, reclaimMargin, starvationSeconds, fs, e).wasteLimit(wasteLimit)
                .at(state.now());
    }

    @Override
    public Plan schedule(ClusterState state, long now) {
        if (state.now() != now) {
            throw new IllegalArgumentException("the state is at " + state.now() + ", not at " + now + "; advance it first");
        }
        if (state.pending().total() == 0 && state.nodes().nextUnhealthyBusy(0) < 0) {
            return Plan.empty();
        }
        bind(state);
        work.begin(now);
        victimPool.reset();
        failedSearches.clear();
        fairShare.reset(state);
        entitlements.reset(state);
        burstReserve.reset(state, entitlements);
        rules.at(now);
        drain(state, now);
        boolean blocked = scheduleAllocated(state, now);
        if (!burstReserve.held().isEmpty() && unallocatedWaitingGpus(state) < work.free().totalFree()) {
            startHeldOnIdleGpus(state, now); // unallocated work could not fill the idle GPUs: held work goes first
        }
        scheduleUnallocated(state);
        startHeldOnIdleGpus(state, now);
        long wake = Plan.NO_WAKE_UP;
        if (blocked && anyUnprotected(state)) {
            wake = now + recheckSeconds;
        }
        return new Plan(work.decisions(), wake);
    }

    private static boolean anyUnprotected(ClusterState state) {
        for (int l = 0; l < state.tree().leafCount(); l++) {
            if (state.protections().unprotectedGpus(l) > 0) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ drain

    private void drain(ClusterState state, long now) {
        for (int n = state.nodes().nextUnhealthyBusy(0); n >= 0; n = state.nodes().nextUnhealthyBusy(n + 1)) {
            for (Job j : state.nodes().jobsOn(n)) {
                if (work.isPreempted(j) || j.isProtected(now)) {
                    continue;
                }
                String why = j.allocated()
                        ? "host " + state.nodes().name(n) + " is unhealthy and " + j.id() + " is past its "
                                + Durations.formatSeconds(j.minRuntimeSeconds()) + " minimum runtime"
                        : "host " + state.nodes().name(n) + " is unhealthy and " + j.id() + " runs unallocated";
                work.preempt(j, PreemptionCause.drain(state.nodes().name(n), why));
                entitlements.preempted(j);
                burstReserve.preempted(j);
            }
        }
    }

    // ------------------------------------------------------------------ allocated work

    /** Per-cycle state of the allocated phase: the gangs' reservations, planned as gangs are found blocked. */
    private GangReservations gangReservations;
    private boolean quotaPass;

    private boolean scheduleAllocated(ClusterState state, long now) {
        int leaves = state.tree().leafCount();
        boolean any = false;
        for (int l = 0; l < leaves && !any; l++) {
            any = state.pending().count(l, true) > 0;
        }
        if (!any) {
            return false;
        }
        gangReservations.clear();
        boolean blocked = false;
        boolean[] triedInFull = new boolean[leaves];
        if (ranking == Ranking.ENTITLEMENT) {
            blocked = servePass(state, now, true, triedInFull);
        }
        return servePass(state, now, false, triedInFull) | blocked;
    }

    /**
     * One pass over the allocations' waiting allocated work. The <b>quota pass</b> ({@code quota}, ranking
     * entitlement only) serves owed allocations in {@link AllocationOrder}, each until it is no longer owed (every
     * start adds its GPUs); it stops at the first allocation that is not owed. The
     * <b>open pass</b> serves every allocation in lookback order ({@link FairShare#leafOrder()}), with whatever rights
     * each job has.
     */
    private boolean servePass(ClusterState state, long now, boolean quota, boolean[] triedInFull) {
        quotaPass = quota;
        int leaves = state.tree().leafCount();
        List<PriorityQueue<ShapeCursor>> heads = new ArrayList<>(java.util.Collections.nCopies(leaves, null));
        boolean[] done = quota ? triedInFull : new boolean[leaves];
        boolean victimsExist = state.running().unallocatedGpus() > 0 || anyUnprotected(state);
        boolean blocked = false;
        int[] order = passOrder(quota);
        boolean reserveApplies = ranking == Ranking.ENTITLEMENT; // the seed's lookback ranking stays as it was
        long orderVersion = rules.version();
        int pos = 0;
        while (true) {
            if (!victimsExist && work.free().totalFree() == 0) {
                return true;
            }
            if (orderVersion != rules.version()) {
                order = passOrder(quota);
                orderVersion = rules.version();
                pos = 0;
            }
            PriorityQueue<ShapeCursor> heap = null;
            for (; pos < order.length; pos++) {
                int leaf = order[pos];
                if (quota && !entitlements.owed(leaf)) {
                    return blocked; // owed allocations come first in the order: the rest are not owed either
                }
                if (done[leaf] || state.pending().count(leaf, true) == 0) {
                    continue;
                }
                if (!quota && triedInFull[leaf] && entitlements.owed(leaf)) {
                    // the quota pass tried all its waiting work with the same rights it has now: nothing more starts
                    done[leaf] = true;
                    continue;
                }
                if (heads.get(leaf) == null) {
                    Job best = hopelessBest(state, leaf);
                    if (best != null) {
                        // nothing of this allocation can start: as if each of its queues had been tried and failed
                        done[leaf] = true;
                        blocked = true;
                        blocked(best);
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
            BurstReserve.Hold hold;
            Outcome outcome;
            if (work.startedHere(w)) {
                c.advance(); // the quota pass started it
            } else if (!quota && reserveApplies && (hold = burstReserve.check(w, rules.starving(w), work.free().totalFree(),
                    entitlements, ownLowerPriorityUnprotectedGpus(state, w))) != null) {
                // held even if it took all its own lower-priority work: skip the victim search
                burstReserve.hold(w, pos, hold); // the next job of the shape may be exempt (short protection)
                c.passOver(BurstReserve.PASS_OVER_LIMIT);
                blocked = true;
            } else if ((outcome = tryStart(state, w, pos, now, !quota && reserveApplies)) == Outcome.STARTED) {
                c.advance();
            } else if (outcome == Outcome.HELD) {
                c.passOver(BurstReserve.PASS_OVER_LIMIT);
                blocked = true;
            } else {
                c.exhaust();
                blocked = true;
                blocked(w);
            }
            if (c.head() != null) {
                heap.add(c);
            }
        }
    }

    private int[] passOrder(boolean quota) {
        return quota ? allocationOrder.leafOrder() : fairShare.leafOrder();
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
        // the most it could get: its best job has the highest priority, so the most own-leaf victims, and the
        // smallest size the widest reclaim budgets
        return best != null && !victimBoundAllows(state, rules.rightsOf(leaf, best.spec().priority().ordinal(), smallest, true, Long.MAX_VALUE),
                null, smallest) ? best : null;
    }

    private static final Comparator<ShapeCursor> BY_HEAD = (a, b) -> Job.QUEUE_ORDER.compare(a.head(), b.head());

    /** What {@link #tryStart} did. */
    private enum Outcome { STARTED, BLOCKED, HELD }

    /** GPUs of {@code w}'s own allocation's lower-priority work past its protection: all it could replace. */
    private static long ownLowerPriorityUnprotectedGpus(ClusterState state, Job w) {
        long gpus = 0;
        for (dev.allot.core.model.Priority pr : dev.allot.core.model.Priority.values()) {
            if (pr.ordinal() < w.spec().priority().ordinal()) {
                gpus += state.protections().unprotectedGpus(w.leaf(), pr);
            }
        }
        return gpus;
    }

    /**
     * Starts {@code w} on idle GPUs or after preempting victims, honouring the reservation; with {@code reserve}, not
     * if the burst reserve holds the start back once its victims are known ({@link BurstReserve}: a start that only
     * replaces its own allocation's work does not grow the allocation's holdings).
     */
    private Outcome tryStart(ClusterState state, Job w, int rank, long now, boolean reserve) {
        BitSet excluded = null;
        Placement p = place(w, null, now);
        if (p != null && touches(p, reservedAgainst(w, now))) {
            excluded = reservedAgainst(w, now);
            p = place(w, excluded, now);
        }
        List<Job> victims = null;
        if (p == null) {
            PreemptionRules.Rights rights = rules.rightsOf(w);
            // the GPU bound without the reservation is necessary with it too: check it before planning one
            if (excluded == null && !victimBoundAllows(state, rights, null, w.gpus())) {
                return Outcome.BLOCKED;
            }
            if (excluded == null) {
                excluded = reservedAgainst(w, now);
            }
            victims = findVictims(state, w, rights, now, excluded);
            if (victims == null || victims.isEmpty()) {
                return Outcome.BLOCKED;
            }
            if (reserve && held(w, victims, rank)) {
                return Outcome.HELD;
            }
            for (Job v : victims) {
                work.preempt(v, rules.cause(state.tree(), v, w));
            }
            for (Job v : victims) {
                entitlements.preempted(v);
                burstReserve.preempted(v);
            }
            p = place(w, excluded, now);
            if (p == null) {
                throw new IllegalStateException("victim search promised room for " + w.id() + " but none was found");
            }
        }
        if (victims == null && reserve && held(w, List.of(), rank)) {
            return Outcome.HELD;
        }
        startAllocated(state, w, p, rank, victims == null ? 0 : victims.size());
        return Outcome.STARTED;
    }

    /** Whether the burst reserve holds back {@code w} with these victims; if so it is recorded as held. */
    private boolean held(Job w, List<Job> victims, int rank) {
        long own = 0;
        for (Job v : victims) {
            if (v.allocated() && v.leaf() == w.leaf()) {
                own += v.gpus();
            }
        }
        BurstReserve.Hold h = burstReserve.check(w, rules.starving(w), work.free().totalFree(), entitlements, own);
        if (h != null) {
            burstReserve.hold(w, rank, h);
        }
        return h != null;
    }

    /** Where {@code w} starts on idle GPUs outside {@code excluded} (null: nowhere). */
    private Placement place(Job w, BitSet excluded, long now) {
        return packProtected ? ProtectionPacking.place(work, w, excluded, now)
                : Placer.find(work.free(), w.gpus(), w.gpusPerNode(), excluded);
    }

    private void blocked(Job w) {
        if (reservations) {
            gangReservations.blocked(work, rules, w);
        }
    }

    /** The nodes {@code w} must keep off: those of the cycle's reservations that do not allow it. */
    private BitSet reservedAgainst(Job w, long now) {
        return gangReservations.against(w, now);
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
        startAllocated(state, w, p, rank, victims, victims == 0 ? "; idle GPUs"
                : "; after preempting " + dev.allot.core.model.Words.count(victims, "workload"));
    }

    private void startAllocated(ClusterState state, Job w, Placement p, int rank, int victims, String how) {
        AllocationTree tree = state.tree();
        double ratio = fairShare.leafRatio(w.leaf());
        String standing = quotaPass
                ? "allocation " + tree.leafName(w.leaf()) + " was #" + (rank + 1) + " among allocations owed GPUs (it "
                        + entitlements.describe(w.leaf()) + ")"
                : "allocation " + tree.leafName(w.leaf()) + " was #" + (rank + 1) + " in fair share (usage "
                        + fmt(ratio) + " of entitlement)";
        String reason = standing + how;
        work.start(w, p, reason);
        fairShare.chargeStart(w);
        entitlements.started(w);
    }

    /**
     * A necessary condition for {@code w} to fit by preempting: usable idle GPUs plus every GPU its rights let it take
     * (ignoring where they are) reach {@code gpus}.
     */
    private boolean victimBoundAllows(ClusterState state, PreemptionRules.Rights rights, BitSet excluded, int gpus) {
        long bound = Placer.usableFree(work.free(), excluded) + rules.preemptibleGpus(state, rights);
        return bound >= gpus;
    }

    private List<Job> findVictims(ClusterState state, Job w, PreemptionRules.Rights rights, long now, BitSet excluded) {
        if (shortcuts && failedSearches.covers(w, rights, work.version(), excluded)) {
            return null;
        }
        boolean wholeNodes = w.gpusPerNode() > 0 && w.gpusPerNode() == state.cluster().maxGpusPerNode();
        if (shortcuts && wholeNodes && wholeNodeBound.nodesFor(state, work, rights, excluded) < w.gpus() / w.gpusPerNode()) {
            return null;
        }
        List<Job> pool = rules.victimPool(victimPool, state, now);
        if (w.gpusPerNode() > 0 && !wholeNodes
                && victimPool.nodesThatCouldHost(work.free(), w.gpusPerNode(), excluded) < w.gpus() / w.gpusPerNode()) {
            return null;
        }
        List<Job> candidates = rules.candidates(pool, rights, work::isPreempted);
        List<Job> found = VictimSearch.find(work, w.gpus(), w.gpusPerNode(), excluded, candidates);
        if (packProtected) {
            found = ProtectionPacking.victims(work, w, excluded, candidates, found, new VictimOrder(rules, now), now);
        }
        if (found == null) {
            failedSearches.add(w, rights, work.version(), excluded);
        }
        return found;
    }

    private static long unallocatedWaitingGpus(ClusterState state) {
        long gpus = 0;
        for (int l = 0; l < state.tree().leafCount(); l++) {
            gpus += state.pending().gpus(l, false);
        }
        return gpus;
    }

    /**
     * The burst reserve does not leave GPUs idle for nothing: when the waiting unallocated work asks for fewer GPUs
     * than are idle, the work it held back goes first; and whatever is still idle after unallocated work had its turn
     * goes to held work too. Held work starts in serving order on idle GPUs only (it preempts nothing here) and
     * honours the gangs' reservations.
     */
    private void startHeldOnIdleGpus(ClusterState state, long now) {
        for (BurstReserve.Held h : burstReserve.held()) {
            if (work.free().totalFree() == 0) {
                return;
            }
            Job w = h.job();
            if (w.gpus() > work.free().totalFree() || work.startedHere(w)) {
                continue;
            }
            BitSet excluded = reservedAgainst(w, now);
            Placement p = place(w, excluded, now);
            if (p != null) {
                startAllocated(state, w, p, h.rank(), 0, "; GPUs left idle by unallocated work (held back by the burst"
                        + " reserve until then)");
            }
        }
    }

    // ------------------------------------------------------------------ unallocated work

    private void scheduleUnallocated(ClusterState state) {
        if (work.free().totalFree() == 0) {
            return;
        }
        int[] order = allocationOrder.leafOrder().clone();
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
