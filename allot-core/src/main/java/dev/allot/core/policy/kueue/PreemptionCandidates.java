package dev.allot.core.policy.kueue;

import dev.allot.core.model.Priority;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Which admitted workloads a pending workload may evict, offered in Kueue's order, for one scheduling pass of the
 * {@code kueue} policy; {@link FairPreemption} then chooses among them. Eligibility is Kueue's preemption
 * configuration: from the preemptor's own ClusterQueue only workloads of strictly lower priority
 * ({@code withinClusterQueue: LowerPriority}); from any other ClusterQueue of the cohort tree every workload while
 * that ClusterQueue borrows ({@code reclaimWithinCohort: Any} and fair sharing; the borrowing test is
 * {@link FairPreemption}'s). Each ClusterQueue's workloads come in {@link CandidateOrder}.
 *
 * <p>Admitted means running, or started earlier in this pass (a candidate in the pass's later cycles, as in
 * Kueue's next cycle). Before any search, two cheap bounds rule out the hopeless cases, most of them in a fair state:
 * which ClusterQueues could give up anything at all ({@link #eligibleSources}), and whether evicting all of their
 * candidates would make room on the nodes ({@link #enoughRoom}). In a flat cohort tree the first bound's answer
 * "none" comes from the two highest shares among the ClusterQueues that could give up anything
 * ({@link OfferingSources}), kept until usage or the admitted work changes: most heads of a pass ask it, and the
 * state changes only when one is admitted.
 */
final class PreemptionCandidates {
    private final Cohorts cohorts;
    private final ToIntFunction<Job> cqOf;
    private final LocalQueueUsage lqUsage;
    private final ToIntFunction<Job> localQueue;
    private final int cqCount;
    private final boolean[] eligible;

    private ClusterState state;
    private CycleWork work;
    private List<Job> started;
    private long passNow;
    private List<List<Job>> passLists;
    /** Per ClusterQueue, whether its pass list is {@link #runningInOrder}'s own (copied before the pass changes it). */
    private boolean[] sharedList;
    private List<FairPreemption.Candidates<Job>> passCandidates;
    private boolean[] candidatesStale;
    /** GPUs admitted per ClusterQueue and priority in this pass, and in total; valid once {@link #counted}. */
    private final long[][] passRunningByPriority;
    private final long[] passRunning;
    private boolean counted;
    private int evictionsThisPass;
    /**
     * Per ClusterQueue, the GPUs of its running list in total and per priority, and the list's change count they were
     * summed at ({@link dev.allot.core.state.RunningLists#listChanges}; -1: never). A running workload's GPUs,
     * priority and ClusterQueue do not change while it runs in that list.
     */
    private final long[] keptChanges;
    private final long[] keptRunning;
    private final long[][] keptByPriority;
    private double[] lqUsageSnapshot = new double[0];
    private CandidateOrder order;
    /** In a flat cohort tree, the ClusterQueues that could give up work; null otherwise. */
    private final OfferingSources offering;
    /** Without Admission Fair Sharing, the running workloads kept in candidate order; null with it. */
    private final RunningInOrder runningInOrder;
    /**
     * Per ClusterQueue, the candidates made of {@link #runningInOrder}'s list and its {@link RunningInOrder#looks}
     * count then (-1: none): while the count is the same the list is, and so are its candidates (their suffix minima
     * were a tenth of the policy's allocation on the Philly trace, made anew in every pass that searched).
     */
    private final List<FairPreemption.Candidates<Job>> keptCandidates = new ArrayList<>();
    private final long[] keptCandidatesLooks;

    private final FairPreemption.Sizes<Job> sizes = new FairPreemption.Sizes<>() {
        @Override
        public int cq(Job j) {
            return cqOf.applyAsInt(j);
        }

        @Override
        public long gpus(Job j) {
            return j.gpus();
        }
    };
    private final FairPreemption.Finder<Job> finder;
    private final List<FairPreemption.Candidates<Job>> searchLists = new ArrayList<>();
    private final java.util.function.Predicate<Job> usable = v -> !work.isPreempted(v);
    /**
     * The pass ({@link #passes}) and work version ({@link CycleWork#version}) the scratch index was copied at: a search
     * gives back every GPU it frees in it, and within a pass the work's free GPUs change only with its version, so
     * while both are the same the scratch index still equals them and is not copied again.
     */
    private long passes;
    private long scratchPass = -1;
    private long scratchVersion;

    /**
     * @param lqUsage    with Admission Fair Sharing, the LocalQueues' usage (candidates of heavier LocalQueues go
     *                   first); null without
     * @param localQueue each workload's LocalQueue (used only with {@code lqUsage})
     */
    PreemptionCandidates(Cohorts cohorts, ToIntFunction<Job> cqOf, LocalQueueUsage lqUsage,
                         ToIntFunction<Job> localQueue) {
        this.cohorts = cohorts;
        this.cqOf = cqOf;
        this.lqUsage = lqUsage;
        this.localQueue = localQueue;
        this.cqCount = cohorts.cqCount();
        this.eligible = new boolean[cqCount];
        this.keptChanges = new long[cqCount];
        java.util.Arrays.fill(keptChanges, -1);
        this.keptRunning = new long[cqCount];
        this.keptByPriority = new long[cqCount][Priority.values().length];
        this.passRunning = new long[cqCount];
        this.passRunningByPriority = new long[cqCount][Priority.values().length];
        this.offering = cohorts.flat() ? new OfferingSources(cohorts) : null;
        this.runningInOrder = lqUsage == null ? new RunningInOrder(cqCount, cqOf) : null;
        this.finder = new FairPreemption.Finder<>(cohorts, sizes);
        this.keptCandidatesLooks = new long[cqCount];
        java.util.Arrays.fill(keptCandidatesLooks, -1);
        for (int q = 0; q < cqCount; q++) {
            keptCandidates.add(null);
        }
    }

    /** Starts a pass at {@code now}; {@code started} is the pass's own list of the workloads it admits, kept live. */
    void beginPass(ClusterState passState, CycleWork passWork, List<Job> passStarted, long now) {
        state = passState;
        work = passWork;
        started = passStarted;
        passNow = now;
        passes++;
        passLists = null;
        passCandidates = null;
        counted = false;
        evictionsThisPass = 0;
        if (offering != null) {
            offering.markStale();
        }
    }

    /** The pass admitted {@code w} into ClusterQueue {@code cq}: a candidate from now on. */
    void admitted(Job w, int cq) {
        if (offering != null) {
            offering.markStale();
        }
        if (counted) {
            passRunning[cq] += w.gpus();
            passRunningByPriority[cq][priority(w)] += w.gpus();
        }
        if (passLists != null) {
            List<Job> l = ownList(cq);
            int at = Collections.binarySearch(l, w, order);
            l.add(at < 0 ? -at - 1 : at, w);
            candidatesStale[cq] = true;
        }
    }

    /** The pass evicted {@code v} (a target of ClusterQueue {@code cq}). */
    void evicted(Job v, int cq) {
        evictionsThisPass++;
        if (offering != null) {
            offering.markStale();
        }
        passRunningByPriority[cq][priority(v)] -= v.gpus();
        passRunning[cq] -= v.gpus();
    }

    /**
     * The workloads to evict so that {@code w}, of ClusterQueue {@code cq}, is admitted, in the order
     * {@link FairPreemption} chose them; null if no allowed set makes room for it in quota and on the nodes.
     */
    List<FairPreemption.Target<Job>> targets(Job w, int cq) {
        countRunning();
        int pr = priority(w);
        if (!eligibleSources(w, cq, pr) || !enoughRoom(w, cq, pr)) {
            return null;
        }
        buildCandidates();
        for (int q = 0; q < cqCount; q++) {
            if (candidatesStale[q]) {
                passCandidates.set(q, FairPreemption.Candidates.of(passLists.get(q), sizes));
                candidatesStale[q] = false;
            }
        }
        if (offering != null && !QuotaReach.reachable(cohorts, cq, w.gpus(), ownGpus(cq, pr), eligible, passRunning,
                passCandidates)) {
            return null;
        }
        List<FairPreemption.Candidates<Job>> lists = searchLists;
        lists.clear();
        for (int q = 0; q < cqCount; q++) {
            lists.add(q == cq ? ownCandidates(cq, pr) : passCandidates.get(q));
        }
        FreeIndex scratch = work.scratch();
        if (scratchPass != passes || scratchVersion != work.version()) {
            scratch.copyFrom(work.free());
            scratchPass = passes;
            scratchVersion = work.version();
        }
        FairPreemption.Room<Job> room = new FairPreemption.Room<>() {
            @Override
            public void free(Job v) {
                scratch.give(work.placementOf(v));
            }

            @Override
            public void unfree(Job v) {
                scratch.take(work.placementOf(v));
            }

            @Override
            public boolean fits() {
                return Placer.fits(scratch, w.gpus(), w.gpusPerNode(), null);
            }
        };
        return finder.find(cq, w.gpus(), lists, room, usable, FairPreemption.DEFAULT_STRATEGIES);
    }

    /** The GPUs ClusterQueue {@code cq} has admitted in the pass at priorities below {@code pr}. */
    private long ownGpus(int cq, int pr) {
        long own = 0;
        for (int p = 0; p < pr; p++) {
            own += passRunningByPriority[cq][p];
        }
        return own;
    }

    /** Every running workload, allocation by allocation, then the unallocated ones. */
    static void forEachRunning(ClusterState state, Consumer<Job> f) {
        for (int l = 0; l < state.tree().leafCount(); l++) {
            state.running().allocated(l).forEach(f);
        }
        state.running().unallocated().forEach(f);
    }

    private static int priority(Job j) {
        return j.spec().priority().ordinal();
    }

    /** When a workload was admitted: now if this pass started it, else the start of its running attempt. */
    private long admittedAt(Job j) {
        return work.startedHere(j) ? passNow : j.attemptStartSeconds();
    }

    /** GPUs of the workloads running when the pass began, per ClusterQueue and priority (evictions deducted). */
    private void countRunning() {
        if (counted) {
            return;
        }
        counted = true;
        // every admitted workload, list by list: the running ones, then those this pass started; a running list's
        // sums are kept from pass to pass while the list holds the same workloads (its change count is the same),
        // as long as the pass has evicted nothing yet (the sums leave out what it evicted)
        for (int q = 0; q < cqCount; q++) {
            if (evictionsThisPass > 0) {
                passRunning[q] = 0;
                java.util.Arrays.fill(passRunningByPriority[q], 0);
                count(RunningInOrder.running(state, q));
                continue;
            }
            long changes = state.running().listChanges(q);
            if (keptChanges[q] != changes) {
                List<Job> running = RunningInOrder.running(state, q);
                keptRunning[q] = 0;
                java.util.Arrays.fill(keptByPriority[q], 0);
                for (int i = 0; i < running.size(); i++) {
                    Job j = running.get(i);
                    keptRunning[q] += j.gpus();
                    keptByPriority[q][priority(j)] += j.gpus();
                }
                keptChanges[q] = changes;
            }
            passRunning[q] = keptRunning[q];
            System.arraycopy(keptByPriority[q], 0, passRunningByPriority[q], 0, keptByPriority[q].length);
        }
        count(started);
    }

    private void count(List<Job> admitted) {
        for (int i = 0; i < admitted.size(); i++) {
            Job j = admitted.get(i);
            if (!work.isPreempted(j)) {
                int q = cqOf.applyAsInt(j);
                passRunning[q] += j.gpus();
                passRunningByPriority[q][priority(j)] += j.gpus();
            }
        }
    }

    /**
     * Each ClusterQueue's admitted workloads in {@link CandidateOrder}, with the LocalQueues' usage as it stood when
     * the pass first needed candidates (as Kueue reads it from its snapshot).
     */
    private void buildCandidates() {
        if (passLists != null) {
            return;
        }
        // every admitted workload (running, or started this pass), a running list at a time: ClusterQueue l is
        // allocation l, the last one the unallocated work (Cohorts.forAllocations); with Admission Fair Sharing the
        // lists are sorted below, without it the running ones come sorted and the started ones are filed in order
        passLists = new ArrayList<>(cqCount);
        sharedList = new boolean[cqCount];
        boolean quiet = state.stopPhase().stopping().isEmpty() && state.stopPhase().waiting().isEmpty();
        for (int q = 0; q < cqCount; q++) {
            if (runningInOrder == null) {
                passLists.add(new ArrayList<>(RunningInOrder.running(state, q)));
            } else {
                passLists.add(runningInOrder.sorted(state, q, quiet));
                sharedList[q] = true;
            }
        }
        if (lqUsage != null) {
            lqUsageSnapshot = new double[lqUsage.size()];
            for (int lq = 0; lq < lqUsageSnapshot.length; lq++) {
                lqUsageSnapshot[lq] = lqUsage.usage(lq);
            }
        }
        order = new CandidateOrder(this::admittedAt,
                lqUsage == null ? null : j -> usageForCandidates(localQueue.applyAsInt(j)));
        for (Job j : started) {
            List<Job> l = ownList(cqOf.applyAsInt(j));
            if (runningInOrder == null) {
                l.add(j);
            } else {
                int at = Collections.binarySearch(l, j, order);
                l.add(at < 0 ? -at - 1 : at, j);
            }
        }
        passCandidates = new ArrayList<>(cqCount);
        candidatesStale = new boolean[cqCount];
        for (int q = 0; q < cqCount; q++) {
            List<Job> l = passLists.get(q);
            if (runningInOrder == null) {
                l.sort(order);
                passCandidates.add(FairPreemption.Candidates.of(l, sizes));
            } else if (sharedList[q]) {
                long looks = runningInOrder.looks(q);
                if (keptCandidatesLooks[q] != looks) {
                    keptCandidates.set(q, FairPreemption.Candidates.of(l, sizes));
                    keptCandidatesLooks[q] = looks;
                }
                passCandidates.add(keptCandidates.get(q));
            } else {
                passCandidates.add(FairPreemption.Candidates.of(l, sizes));
            }
        }
    }

    /** ClusterQueue {@code q}'s pass list, copied first if it is still the kept one, so that the pass may change it. */
    private List<Job> ownList(int q) {
        if (sharedList[q]) {
            passLists.set(q, new ArrayList<>(passLists.get(q)));
            sharedList[q] = false;
        }
        return passLists.get(q);
    }

    private double usageForCandidates(int lq) {
        return lq < lqUsageSnapshot.length ? lqUsageSnapshot[lq] : lqUsage.usage(lq);
    }

    /** The preemptor's own ClusterQueue offers its workloads of lower priority ({@code withinClusterQueue: LowerPriority}). */
    private FairPreemption.Candidates<Job> ownCandidates(int cq, int pr) {
        FairPreemption.Candidates<Job> all = passCandidates.get(cq);
        if (lqUsage == null) {
            // without Admission Fair Sharing the list is in priority order: the lower-priority ones lead it
            int n = 0;
            while (n < all.end() && priority(all.items().get(n)) < pr) {
                n++;
            }
            return all.limit(n);
        }
        List<Job> lower = new ArrayList<>();
        for (Job j : all.items()) {
            if (priority(j) < pr) {
                lower.add(j);
            }
        }
        return FairPreemption.Candidates.of(lower, sizes);
    }

    /**
     * Which ClusterQueues could give up any workload to {@code w}: a superset of what the search may take, so that
     * hopeless searches (most of them, in a fair state) cost a few share comparisons. The preemptor's ClusterQueue if
     * it runs lower-priority work; every borrowing ClusterQueue if the preemptor's stays within its nominal quota;
     * otherwise a borrowing ClusterQueue whose side's share is at least the lowest share the preemptor's side could
     * reach (with the workload admitted and every candidate on its side evicted), since both strategies need the
     * preemptor's side's share at most the target's, and evictions only lower the target's. Returns whether any is.
     */
    private boolean eligibleSources(Job w, int cq, int pr) {
        long own = ownGpus(cq, pr);
        if (own == 0 && offering != null && offering.none(cq, w.gpus(), passRunning)) {
            return false;
        }
        boolean any = own > 0;
        eligible[cq] = any;
        // with w admitted: only x and the cohorts above it would use more, so the usage of x and of the preemptor's
        // sides (all on x's path) is taken with w's GPUs added, and every other node's as it is
        int x = cohorts.cqNode(cq);
        boolean withinNominal = !cohorts.borrowsWith(x, cohorts.usage(x) + w.gpus());
        int lastSide = -1;
        long lowestDelta = 0;
        for (int q = 0; q < cqCount; q++) {
            if (q == cq) {
                continue;
            }
            int y = cohorts.cqNode(q);
            if (passRunning[q] <= 0 || !cohorts.borrowing(y)) {
                eligible[q] = false;
                continue;
            }
            if (withinNominal) {
                eligible[q] = true;
            } else {
                int side = cohorts.almostLca(x, y);
                if (side != lastSide) {
                    lastSide = side;
                    long removable = own;
                    if (side != x) {
                        for (int r = 0; r < cqCount; r++) {
                            int rn = cohorts.cqNode(r);
                            if (r != cq && cohorts.borrowing(rn) && cohorts.isAncestorOrSelf(side, rn)) {
                                removable += passRunning[r];
                            }
                        }
                    }
                    lowestDelta = w.gpus() - removable;
                }
                // the lowest share the preemptor's side could reach, at most the target side's share
                eligible[q] = cohorts.compareIfAdded(side, lowestDelta, cohorts.almostLca(y, x), 0) <= 0;
            }
            any |= eligible[q];
        }
        return any;
    }

    /**
     * Whether evicting every workload of the {@linkplain #eligibleSources eligible} ClusterQueues (only the
     * lower-priority ones of the preemptor's) would make room on the nodes; if not, no search can succeed.
     */
    private boolean enoughRoom(Job w, int cq, int pr) {
        FreeIndex f = work.free();
        long bound = f.totalFree();
        for (int q = 0; q < cqCount; q++) {
            if (q == cq) {
                for (int p = 0; p < pr; p++) {
                    bound += passRunningByPriority[cq][p];
                }
            } else if (eligible[q]) {
                bound += passRunning[q];
            }
        }
        if (w.gpusPerNode() == 0 || bound < w.gpus()) {
            // without a per-node shape the GPU count decides; with one, too few GPUs in all rules out any nodes
            return bound >= w.gpus();
        }
        int perNode = w.gpusPerNode();
        int need = w.gpus() / perNode;
        int have = 0;
        int[] extra = null;
        for (Job j : started) {
            int q = cqOf.applyAsInt(j);
            if (eligible[q] && !work.isPreempted(j) && (q != cq || priority(j) < pr)) {
                if (extra == null) {
                    extra = new int[f.nodeCount()];
                }
                Placement jp = work.placementOf(j);
                for (int i = 0; i < jp.nodeCount(); i++) {
                    extra[jp.node(i)] += jp.gpusOn(i);
                }
            }
        }
        for (int n = 0; n < f.nodeCount() && have < need; n++) {
            if (!f.isSchedulable(n) || f.capacity(n) < perNode) {
                continue;
            }
            int room = f.free(n) + (extra == null ? 0 : extra[n]);
            if (room < perNode) {
                for (Job j : state.nodes().jobsOn(n)) {
                    int q = cqOf.applyAsInt(j);
                    if (eligible[q] && !work.isPreempted(j) && (q != cq || priority(j) < pr)) {
                        Placement jp = j.placement();
                        room += jp.nodeCount() == 1 ? jp.gpusOn(0) : jp.gpusOnNode(n);
                    }
                }
            }
            if (room >= perNode) {
                have++;
            }
        }
        return have >= need;
    }
}
