package dev.allot.core.policy.allocation;

import dev.allot.core.model.Durations;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.Settings;
import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.core.policy.allocation.preemption.VictimOrder;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.sched.Reservation;
import dev.allot.core.sched.ShapeCursor;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
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
 *   ({@link AllocatedStarts})
 *   starts on idle GPUs if it fits, else preempts a minimal set of victims its rights allow
 *   ({@link PreemptionRules}, victims in {@link VictimOrder}), else it is blocked: the first
 *   {@code max-reservations} blocked gangs get a {@link Reservation} each ({@link GangReservations}), and the rest
 *   of the blocked job's shape queue is skipped for this cycle. Over-entitled allocations still start work on idle
 *   GPUs (bursting).</li>
 *   <li><b>Unallocated work</b> (minimum runtime 0) on whatever GPUs are still idle, shared among allocations by
 *   entitlement ({@link UnallocatedShares}). It never preempts.</li>
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
    private final AllocationSettings settings;
    private final Ranking ranking;
    private final double reclaimMargin;
    private final long starvationSeconds;
    private final double wasteLimit;
    private final BurstReserve burstReserve;
    private ClusterState boundTo;
    private CycleWork work;
    private FairShare fairShare;
    private Entitlements entitlements;
    private PreemptionRules rules;
    private AllocationOrder allocationOrder;
    private AllocatedStarts starts;

    public AllocationPolicy(AllocationSettings settings) {
        this.settings = settings;
        this.recheckSeconds = settings.fairshareRecheck().getSeconds();
        this.ranking = settings.ranking();
        this.reclaimMargin = settings.reclaimMargin();
        this.starvationSeconds = settings.starvationLimit().getSeconds();
        this.wasteLimit = settings.wasteLimit() == 0 ? Double.POSITIVE_INFINITY : settings.wasteLimit();
        this.burstReserve = new BurstReserve(settings.burstReserve(), settings.burstShortProtection().getSeconds());
    }

    /**
     * A new instance with these settings and nothing of this one's cycles: what an explanation asks "would it start
     * now?" of, so that reading never disturbs the instance that decides.
     */
    public AllocationPolicy fresh() {
        return new AllocationPolicy(settings);
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
            fairShare = new FairShare(state.tree(), state.cluster().totalGpus(), state.ledger().windowSeconds());
            entitlements = new Entitlements(state.tree());
            rules = new PreemptionRules(ranking, reclaimMargin, starvationSeconds, fairShare, entitlements)
                    .wasteLimit(wasteLimit).minTurn(settings.minTurn().getSeconds());
            allocationOrder = new AllocationOrder(rules, state.tree().leafCount());
            starts = new AllocatedStarts(settings, state, work, rules, fairShare, entitlements, burstReserve);
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
                .minTurn(settings.minTurn().getSeconds()).at(state.now());
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
        starts.begin();
        fairShare.reset(state);
        entitlements.reset(state);
        burstReserve.reset(state, entitlements);
        rules.at(now);
        drain(state, now);
        boolean blocked = scheduleAllocated(state, now);
        if (!burstReserve.held().isEmpty() && unallocatedWaitingGpus(state) < work.free().totalFree()) {
            // unallocated work could not fill the idle GPUs: held work goes first
            starts.startHeldOnIdleGpus(state, now);
        }
        scheduleUnallocated(state);
        starts.startHeldOnIdleGpus(state, now);
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

    private boolean scheduleAllocated(ClusterState state, long now) {
        int leaves = state.tree().leafCount();
        boolean any = false;
        for (int l = 0; l < leaves && !any; l++) {
            any = state.pending().count(l, true) > 0;
        }
        if (!any) {
            return false;
        }
        starts.clearReservations();
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
        starts.quotaPass(quota);
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
                        starts.blocked(best);
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
            AllocatedStarts.Outcome outcome;
            if (work.startedHere(w)) {
                c.advance(); // the quota pass started it
            } else if (!quota && reserveApplies && (hold = burstReserve.check(w, rules.starving(w), work.free().totalFree(),
                    entitlements, AllocatedStarts.ownLowerPriorityUnprotectedGpus(state, w))) != null) {
                // held even if it took all its own lower-priority work: skip the victim search
                burstReserve.hold(w, pos, hold); // the next job of the shape may be exempt (short protection)
                c.passOver(BurstReserve.PASS_OVER_LIMIT);
                blocked = true;
            } else if ((outcome = starts.tryStart(state, w, pos, now, !quota && reserveApplies))
                    == AllocatedStarts.Outcome.STARTED) {
                c.advance();
            } else if (outcome == AllocatedStarts.Outcome.HELD) {
                c.passOver(BurstReserve.PASS_OVER_LIMIT);
                blocked = true;
            } else {
                c.exhaust();
                blocked = true;
                starts.blocked(w);
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
     * allocation would fail {@link AllocatedStarts#tryStart} at its first checks, which change nothing, so skipping
     * them decides exactly the same.
     */
    private Job hopelessBest(ClusterState state, int leaf) {
        Job best = state.pending().bestHead(leaf, true);
        int smallest = state.pending().smallestHeadGpus(leaf, true);
        // the most it could get: its best job has the highest priority, so the most own-leaf victims, and the
        // smallest size the widest reclaim budgets
        return best != null && !starts.victimBoundAllows(state, rules.rightsOf(leaf, best.spec().priority().ordinal(), smallest, true, Long.MAX_VALUE),
                null, smallest) ? best : null;
    }

    private static final Comparator<ShapeCursor> BY_HEAD = (a, b) -> Job.QUEUE_ORDER.compare(a.head(), b.head());

    private static long unallocatedWaitingGpus(ClusterState state) {
        long gpus = 0;
        for (int l = 0; l < state.tree().leafCount(); l++) {
            gpus += state.pending().gpus(l, false);
        }
        return gpus;
    }

    // ------------------------------------------------------------------ unallocated work

    /**
     * Unallocated work on the GPUs still idle, shared among allocations by entitlement: each start goes to the
     * allocation whose running unallocated GPUs (those this cycle keeps and starts) are fewest per GPU of its quota,
     * ties in serving order; inside an allocation, its queue order. It never preempts, so the split is reached as GPUs
     * free up, not by taking any back. Without it one allocation's sweep, first in serving order, took every idle GPU
     * and the others' sweeps waited for its jobs to end. An allocation with no quota goes after every one that has
     * one, by its unallocated GPUs.
     */
    private void scheduleUnallocated(ClusterState state) {
        if (work.free().totalFree() == 0) {
            return;
        }
        int[] order = allocationOrder.leafOrder();
        int leaves = state.tree().leafCount();
        List<List<ShapeCursor>> cursors = new ArrayList<>(leaves);
        long[] held = new long[leaves];
        int[] rank = new int[leaves];
        for (int i = 0; i < leaves; i++) {
            cursors.add(null);
        }
        for (int i = 0; i < order.length; i++) {
            int leaf = order[i];
            rank[leaf] = i;
            if (state.pending().count(leaf, false) == 0) {
                continue;
            }
            List<ShapeCursor> cs = new ArrayList<>();
            for (NavigableSet<Job> q : state.pending().shapeQueues(leaf, false)) {
                if (!q.isEmpty()) {
                    cs.add(new ShapeCursor(q));
                }
            }
            cursors.set(leaf, cs);
        }
        for (Job j : state.running().unallocated()) {
            if (!work.isPreempted(j)) {
                held[j.leaf()] += j.gpus();
            }
        }
        UnallocatedShares shares = new UnallocatedShares(held, entitlements, rank);
        while (work.free().totalFree() > 0) {
            int leaf = -1;
            for (int l = 0; l < leaves; l++) {
                if (cursors.get(l) != null && (leaf < 0 || shares.before(l, leaf))) {
                    leaf = l;
                }
            }
            if (leaf < 0) {
                return;
            }
            Job w = null;
            ShapeCursor from = null;
            for (ShapeCursor c : cursors.get(leaf)) {
                Job h = c.head();
                if (h != null && (w == null || Job.QUEUE_ORDER.compare(h, w) < 0)) {
                    w = h;
                    from = c;
                }
            }
            if (w == null) {
                cursors.set(leaf, null); // nothing of it fits any more
                continue;
            }
            Placement p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null);
            if (p == null) {
                from.exhaust();
                continue;
            }
            work.start(w, p, UNALLOCATED_REASON);
            from.advance();
            shares.started(leaf, w.gpus());
        }
    }
}
