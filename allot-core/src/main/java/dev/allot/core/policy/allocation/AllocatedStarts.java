package dev.allot.core.policy.allocation;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Priority;
import dev.allot.core.model.Words;
import dev.allot.core.policy.allocation.preemption.FailedSearches;
import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.policy.allocation.preemption.VictimOrder;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.sched.VictimPool;
import dev.allot.core.sched.VictimSearch;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.BitSet;
import java.util.List;

/**
 * How {@link AllocationPolicy} starts one waiting allocated job once its passes have chosen it: on idle GPUs if it
 * fits (where it pins protections least with {@code placement=protection}, {@link ProtectionPacking}), else after
 * preempting a minimal set of victims its rights allow ({@link PreemptionRules}, searched in {@link VictimOrder},
 * failed searches remembered in {@link FailedSearches}), keeping off the nodes the cycle's gang reservations hold
 * against it, and not at all when the burst reserve holds the start back ({@link BurstReserve}). A job that cannot
 * start is offered to {@link GangReservations}. The start's reason (the allocation's standing in the pass that
 * started it) is written here, so every allocated start says it the same way.
 *
 * <p>Bound to one state, like the policy's other bookkeeping; {@link #begin} clears what it remembers per cycle.
 */
final class AllocatedStarts {
    /** What {@link #tryStart} did. */
    enum Outcome { STARTED, BLOCKED, HELD }

    private final boolean reservations;
    private final boolean shortcuts;
    private final boolean packProtected;
    private final CycleWork work;
    private final PreemptionRules rules;
    private final FairShare fairShare;
    private final Entitlements entitlements;
    private final BurstReserve burstReserve;
    private final GangReservations gangReservations;
    private final VictimPool victimPool;
    private final WholeNodeBound wholeNodeBound;
    private final FailedSearches failedSearches = new FailedSearches();
    /** Whether the pass now serving is the quota pass (it only changes how a start's reason reads). */
    private boolean quotaPass;

    AllocatedStarts(AllocationSettings settings, ClusterState state, CycleWork work, PreemptionRules rules,
                    FairShare fairShare, Entitlements entitlements, BurstReserve burstReserve) {
        this.reservations = settings.reservation();
        this.shortcuts = settings.shortcuts();
        this.packProtected = settings.placement() == AllocationSettings.Placement.PROTECTION;
        this.work = work;
        this.rules = rules;
        this.fairShare = fairShare;
        this.entitlements = entitlements;
        this.burstReserve = burstReserve;
        this.gangReservations = new GangReservations(settings.maxReservations(), shortcuts);
        this.victimPool = new VictimPool(state.nodes().count());
        this.wholeNodeBound = new WholeNodeBound(state.tree().leafCount());
    }

    /** A new cycle: no victim pool built, no search failed yet. */
    void begin() {
        victimPool.reset();
        failedSearches.clear();
    }

    /** The allocated phase begins: no gang holds a reservation yet. */
    void clearReservations() {
        gangReservations.clear();
    }

    /** Which pass starts what follows (the quota pass, or the open pass). */
    void quotaPass(boolean quota) {
        quotaPass = quota;
    }

    /** GPUs of {@code w}'s own allocation's lower-priority work past its protection: all it could replace. */
    static long ownLowerPriorityUnprotectedGpus(ClusterState state, Job w) {
        long gpus = 0;
        for (Priority pr : Priority.values()) {
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
    Outcome tryStart(ClusterState state, Job w, int rank, long now, boolean reserve) {
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
                work.preempt(v, rules.cause(state.tree(), v, w, rights));
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
        start(state, w, p, rank, victims == null ? "; idle GPUs"
                : "; after preempting " + Words.count(victims.size(), "workload"));
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

    /** {@code w} cannot start this cycle: it may get a reservation. */
    void blocked(Job w) {
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

    private void start(ClusterState state, Job w, Placement p, int rank, String how) {
        AllocationTree tree = state.tree();
        double ratio = fairShare.leafRatio(w.leaf());
        String standing = quotaPass
                ? "allocation " + tree.leafName(w.leaf()) + " was #" + (rank + 1) + " among allocations owed GPUs (it "
                        + entitlements.describe(w.leaf()) + ")"
                : "allocation " + tree.leafName(w.leaf()) + " was #" + (rank + 1) + " in fair share (usage "
                        + fmt(ratio) + " of entitlement)";
        work.start(w, p, standing + how);
        fairShare.chargeStart(w);
        entitlements.started(w);
    }

    /**
     * A necessary condition for {@code w} to fit by preempting: usable idle GPUs plus every GPU its rights let it take
     * (ignoring where they are) reach {@code gpus}.
     */
    boolean victimBoundAllows(ClusterState state, PreemptionRules.Rights rights, BitSet excluded, int gpus) {
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

    /**
     * The burst reserve does not leave GPUs idle for nothing: when the waiting unallocated work asks for fewer GPUs
     * than are idle, the work it held back goes first; and whatever is still idle after unallocated work had its turn
     * goes to held work too. Held work starts in serving order on idle GPUs only (it preempts nothing here) and
     * honours the gangs' reservations.
     */
    void startHeldOnIdleGpus(ClusterState state, long now) {
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
                start(state, w, p, h.rank(), "; GPUs left idle by unallocated work (held back by the burst"
                        + " reserve until then)");
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
