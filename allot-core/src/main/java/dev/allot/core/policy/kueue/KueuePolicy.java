package dev.allot.core.policy.kueue;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Priority;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.sched.ShapeCursor;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * A model of <a href="https://kueue.sigs.k8s.io/">Kueue</a> with Fair Sharing, to measure Allot's policy against
 * the Kubernetes-native queueing a lab would otherwise run. It follows Kueue's documentation
 * (<a href="https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/">ClusterQueue</a>,
 * <a href="https://kueue.sigs.k8s.io/docs/concepts/cohort/">Cohort</a>,
 * <a href="https://kueue.sigs.k8s.io/docs/concepts/preemption/">Preemption</a>,
 * <a href="https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/">Fair Sharing</a>,
 * <a href="https://kueue.sigs.k8s.io/docs/concepts/admission_fair_sharing/">Admission Fair Sharing</a>) and, where
 * the documentation is silent, its scheduler ({@code pkg/scheduler}: {@code scheduler.go},
 * {@code fair_sharing_iterator.go}, {@code preemption/}), with the defaults of Kueue v0.17 and later.
 *
 * <p><b>Queues and quotas.</b> Every allocation (leaf) is a ClusterQueue with one resource, GPUs, and nominal quota
 * {@code entitlement x cluster GPUs} rounded by largest remainder so the quotas add up to the cluster
 * ({@link Cohorts#nominalQuotas}). All ClusterQueues share one cohort, weighted by entitlement; with
 * {@code hierarchical-cohorts} the cohorts follow the allocation tree instead (inner nodes are cohorts, every node
 * weighted by its share). No borrowing or lending limits: a ClusterQueue may borrow any quota its tree leaves unused.
 * Quota counts every admitted (running) workload, on healthy nodes or not.
 *
 * <p><b>Unallocated work</b> (minimum runtime 0) has no equivalent in Kueue. It maps to the usual best-effort
 * set-up: one extra ClusterQueue, {@code (unallocated)}, in the root cohort with nominal quota 0 and fair sharing
 * weight 0. It only borrows, its share is infinite whenever it runs anything, so it is admitted after every other
 * ClusterQueue's head and its workloads are the first to be preempted (the documented meaning of weight 0).
 *
 * <p><b>A scheduling pass</b> (one call, at one instant) repeats Kueue's scheduling cycle until nothing more can
 * happen. Each cycle takes the head of every ClusterQueue (BestEffortFIFO: priority, then creation time, then id;
 * with Admission Fair Sharing the LocalQueue's usage first) and processes them in {@link AdmissionTournament} order.
 * A head is admitted when it fits the quota its tree has unused and the Placer finds GPUs for it; otherwise
 * {@link FairPreemption} looks for workloads to evict and, if it finds a set that makes room, they are evicted and
 * the head admitted; otherwise the head is set aside (Kueue's inadmissible list), and with it the rest of its
 * ClusterQueue's queue of the same shape and no higher priority, which would fail the same test.
 *
 * <p><b>Simplifications.</b> Kueue itself does not place workloads; the Kubernetes scheduler does. Here admission
 * also needs room on the nodes (the Placer, Allot's shared mechanism), as with Kueue's topology-aware scheduling:
 * a workload that fits the quota but not the nodes waits without holding quota (without topology-aware scheduling
 * Kueue would admit it and its pods would wait holding the quota), and the preemption search counts the room the
 * victims free on the nodes as well as the quota. Evictions complete at once, so a preemptor is admitted in the same
 * cycle instead of a later one, once its victims are gone. A workload admitted in one cycle of a pass is a preemption
 * candidate in the pass's later cycles, as in Kueue's next cycle (the plan then starts and stops it at the same
 * instant). Set-aside workloads come back when quota or GPUs are released (a workload ends or is
 * evicted, a node changes health), as Kueue requeues inadmissible workloads when quota is released. Ties Kueue leaves
 * to map order are broken by workload id and tree order.
 *
 * <p><b>Preemption and protection.</b> {@code withinClusterQueue: LowerPriority}, {@code reclaimWithinCohort: Any},
 * fair sharing strategies {@code [LessThanOrEqualToFinalShare, LessThanInitialShare]} (Kueue's defaults for fair
 * sharing). There is no minimum runtime: any admitted workload may be evicted at any moment, so
 * {@link #isProtected} promises nothing. An evicted workload is requeued, as Kueue requeues every evicted workload:
 * with its checkpointed progress if resumable, else to start over ({@link #restartsWorkThatCannotResume}).
 *
 * <p><b>Preemption loops.</b> Kueue's proof that fair sharing preemption cannot cycle covers two workloads evicting
 * each other by share; it does not cover priority preemption inside a ClusterQueue. A small low-priority workload of
 * A evicts one of B by share, then A's large high-priority workload evicts it ({@code InClusterQueue}), which raises
 * A's share enough for B's workload to evict the large one by share, and so on (Kueue has reports of preemption
 * loops, e.g. kubernetes-sigs/kueue#14543 and #7101). A simulation must end, so here a workload evicted by preemption does not
 * preempt in turn until quota is released by something other than an eviction (a workload ends, a node changes
 * health); until then it is admitted only where it fits. Each workload then preempts at most once between two such
 * releases, so the evictions are finite.
 *
 * <p><b>Unhealthy hosts</b> take no new work; their workloads keep running until they end (cordoning a Kubernetes
 * node does not evict its pods, and Kueue does not watch nodes).
 *
 * <p><b>Admission Fair Sharing</b> (optional): inside a ClusterQueue, workloads of LocalQueues with less decayed
 * historical usage go first ({@link LocalQueueUsage}); a LocalQueue is a user's queue in a ClusterQueue (in Kueue a
 * namespace's LocalQueue; here the workload's {@code user}). Preemption inside a ClusterQueue then prefers victims
 * of LocalQueues with more usage, as Kueue does.
 */
public final class KueuePolicy implements Policy {
    public static final String NAME = "kueue";
    static final String UNALLOCATED_QUEUE = "(unallocated)";

    static final List<SettingSpec> SETTINGS = List.of(
            SettingSpec.bool("hierarchical-cohorts", false,
                    "false: every allocation's ClusterQueue in one cohort, fair sharing weight = its entitlement;"
                            + " true: cohorts follow the allocation tree (inner nodes are cohorts, weight = share)"),
            SettingSpec.bool("admission-fair-sharing", false,
                    "order workloads inside a ClusterQueue by the decayed historical GPU usage of their LocalQueue"
                            + " (one per user and allocation), lowest first, before priority (Kueue's"
                            + " UsageBasedAdmissionFairSharing)"),
            SettingSpec.duration("usage-half-life-time", Duration.ofHours(168),
                    "Admission Fair Sharing: the time in which historical usage decays by half (Kueue's"
                            + " usageHalfLifeTime); 0 keeps no history"),
            SettingSpec.duration("usage-sampling-interval", Duration.ofMinutes(5),
                    "Admission Fair Sharing: Kueue's usageSamplingInterval, which sizes the entry penalty each"
                            + " admission adds at once (the decay itself is computed exactly)"));

    public static final PolicyFactory FACTORY = PolicyFactory.of(NAME,
            "Kueue with Fair Sharing: a ClusterQueue per allocation, nominal quota = entitlement, borrowing in"
            + " the cohort, share-ordered admission and preemption, no minimum runtime",
            SETTINGS,
            settings -> new KueuePolicy(settings.bool("hierarchical-cohorts"), settings.bool("admission-fair-sharing"),
                settings.duration("usage-half-life-time"), settings.duration("usage-sampling-interval")));

    /** Kueue's candidate order inside a ClusterQueue: lower priority, then admitted more recently, then id. */
    private final Comparator<Job> victimOrder = (a, b) -> {
        int c = Integer.compare(a.spec().priority().ordinal(), b.spec().priority().ordinal());
        if (c != 0) {
            return c;
        }
        c = Long.compare(admittedAt(b), admittedAt(a));
        return c != 0 ? c : a.id().compareTo(b.id());
    };

    private final boolean hierarchical;
    private final boolean admissionFairSharing;
    private final long halfLifeSeconds;
    private final long samplingSeconds;

    private ClusterState boundTo;
    private CycleWork work;
    private Cohorts cohorts;
    private AdmissionTournament tournament;
    private int unallocatedCq;
    private int cqCount;
    private long[] usageBuffer;
    private boolean[] eligible;

    /** Sub-queues of the pending queues (per allocation, class and shape), kept for what was set aside. */
    private final List<List<SubQueue>> subQueues = new ArrayList<>();
    private int parkGeneration;
    private long expectedRunning = -1;
    private long expectedFree = -1;
    private boolean preemptedLastPass;
    /**
     * Workloads evicted since quota was last released by something other than this policy's evictions: they may be
     * admitted where they fit, but do not preempt (see the class comment, preemption loops).
     */
    private final java.util.BitSet evictedThisEpoch = new java.util.BitSet();

    private LocalQueueUsage lqUsage;
    private final Map<String, Integer> users = new HashMap<>();
    private int[] lqOfJob = new int[0];
    private AfsIndex afsIndex;

    private final List<Job> started = new ArrayList<>();
    private final List<Job> evicted = new ArrayList<>();
    private long passNow;
    private List<List<Job>> passLists;
    private List<FairPreemption.Candidates<Job>> passCandidates;
    private boolean[] candidatesStale;
    private long[][] passRunningByPriority;
    private long[] passRunning;

    public KueuePolicy(boolean hierarchicalCohorts, boolean admissionFairSharing, Duration usageHalfLifeTime,
                       Duration usageSamplingInterval) {
        if (usageHalfLifeTime.isNegative() || usageSamplingInterval.isNegative()) {
            throw new IllegalArgumentException("usage-half-life-time and usage-sampling-interval must not be negative");
        }
        this.hierarchical = hierarchicalCohorts;
        this.admissionFairSharing = admissionFairSharing;
        this.halfLifeSeconds = usageHalfLifeTime.getSeconds();
        this.samplingSeconds = usageSamplingInterval.getSeconds();
    }

    public static KueuePolicy withDefaults() {
        return (KueuePolicy) FACTORY.create(Settings.defaults(SETTINGS));
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Kueue requeues every evicted workload; one that cannot resume starts over. */
    @Override
    public boolean restartsWorkThatCannotResume() {
        return true;
    }

    /** Kueue promises nothing: any admitted workload may be preempted at any moment. */
    @Override
    public boolean isProtected(Job job, long nowSeconds) {
        return false;
    }

    private void bind(ClusterState state) {
        if (boundTo == state) {
            return;
        }
        boundTo = state;
        work = new CycleWork(state);
        AllocationTree tree = state.tree();
        cohorts = Cohorts.forAllocations(tree, state.cluster().totalGpus(), hierarchical, UNALLOCATED_QUEUE);
        tournament = new AdmissionTournament(cohorts);
        unallocatedCq = tree.leafCount();
        cqCount = cohorts.cqCount();
        usageBuffer = new long[cqCount];
        eligible = new boolean[cqCount];
        subQueues.clear();
        for (int i = 0; i < tree.leafCount() * 2; i++) {
            subQueues.add(new ArrayList<>());
        }
        expectedRunning = -1;
        users.clear();
        lqOfJob = new int[0];
        if (admissionFairSharing) {
            lqUsage = new LocalQueueUsage(halfLifeSeconds, samplingSeconds);
            afsIndex = new AfsIndex(cqCount);
        }
    }

    /** The ClusterQueue of a workload: its allocation's, or the unallocated one. */
    int cqOf(Job j) {
        return j.allocated() ? j.leaf() : unallocatedCq;
    }

    private static int priority(Job j) {
        return j.spec().priority().ordinal();
    }

    private int localQueue(Job j) {
        if (j.index() >= lqOfJob.length) {
            int old = lqOfJob.length;
            lqOfJob = java.util.Arrays.copyOf(lqOfJob, Math.max(16, Math.max(j.index() + 1, old * 2)));
            java.util.Arrays.fill(lqOfJob, old, lqOfJob.length, -1);
        }
        int lq = lqOfJob[j.index()];
        if (lq < 0) {
            Integer user = users.get(j.spec().user());
            if (user == null) {
                user = users.size();
                users.put(j.spec().user(), user);
            }
            lq = lqUsage.localQueue(cqOf(j), user);
            lqOfJob[j.index()] = lq;
        }
        return lq;
    }

    @Override
    public Plan schedule(ClusterState state, long now) {
        if (state.now() != now) {
            throw new IllegalArgumentException("the state is at " + state.now() + ", not at " + now + "; advance it first");
        }
        bind(state);
        work.begin(now);
        passNow = now;
        started.clear();
        evicted.clear();
        passLists = null;
        passCandidates = null;
        passRunning = null;
        // Kueue requeues the workloads it set aside when quota is released: a workload ended or was evicted, or here
        // also when a node changed health (the free GPUs differ from what the last plan left).
        boolean released = expectedRunning < 0 || state.runningCount() != expectedRunning
                || state.freeIndex().totalFree() != expectedFree;
        if (released || preemptedLastPass) {
            parkGeneration++;
        }
        if (released) {
            evictedThisEpoch.clear();
        }
        if (admissionFairSharing) {
            lqUsage.advanceTo(now);
            lqUsage.clearAdmitted();
            forEachRunning(state, j -> lqUsage.addAdmitted(localQueue(j), j.gpus()));
            afsIndex.sync(state);
        }
        if (state.pending().total() > 0) {
            for (int l = 0; l < unallocatedCq; l++) {
                usageBuffer[l] = state.ledger().runningGpus(l);
            }
            usageBuffer[unallocatedCq] = state.unallocatedRunningGpus();
            cohorts.setUsage(usageBuffer);
            schedulePending(state);
        }
        expectedRunning = state.runningCount() + started.size() - evicted.size();
        expectedFree = work.free().totalFree();
        preemptedLastPass = !evicted.isEmpty();
        if (admissionFairSharing) {
            afsIndex.afterPass(started, evicted);
        }
        return new Plan(work.decisions(), Plan.NO_WAKE_UP);
    }

    private void forEachRunning(ClusterState state, java.util.function.Consumer<Job> f) {
        for (int l = 0; l < state.tree().leafCount(); l++) {
            state.runningAllocated(l).forEach(f);
        }
        state.runningUnallocated().forEach(f);
    }

    // ------------------------------------------------------------------ cycles

    private void schedulePending(ClusterState state) {
        CqQueue[] queues = buildQueues(state);
        boolean[] present = new boolean[cqCount];
        long[] gpus = new long[cqCount];
        int[] prio = new int[cqCount];
        long[] submit = new long[cqCount];
        String[] ids = new String[cqCount];
        Cursor[] heads = new Cursor[cqCount];
        while (true) {
            int count = 0;
            for (int cq = 0; cq < cqCount; cq++) {
                Cursor c = queues[cq] == null ? null : queues[cq].best();
                heads[cq] = c;
                present[cq] = c != null;
                if (c != null) {
                    Job h = c.head;
                    gpus[cq] = h.gpus();
                    prio[cq] = priority(h);
                    submit[cq] = h.spec().submitSeconds();
                    ids[cq] = h.id();
                    count++;
                }
            }
            if (count == 0) {
                return;
            }
            for (int k = 0; k < count; k++) {
                int cq = tournament.winner(present, gpus, prio, submit, ids);
                present[cq] = false;
                process(state, queues[cq], heads[cq], cq, tournament.shareOf(cq), count);
            }
        }
    }

    private void process(ClusterState state, CqQueue queue, Cursor cursor, int cq, Share share, int heads) {
        Job w = cursor.head;
        long before = cohorts.cqUsage(cq);
        Placement p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null);
        if (p != null && cohorts.available() >= w.gpus()) {
            admit(queue, cursor, w, p, cq, before, share, heads, 0);
            return;
        }
        if (evictedThisEpoch.get(w.index())) {
            // evicted since quota was last released: it waits without preempting, and without setting aside the
            // workloads behind it, which may preempt
            queue.advance(cursor, parkGeneration);
            return;
        }
        List<FairPreemption.Target<Job>> targets = preemptionTargets(state, w, cq);
        if (targets == null) {
            queue.setAside(w, parkGeneration);
            return;
        }
        for (FairPreemption.Target<Job> t : targets) {
            Job v = t.workload();
            work.preempt(v, cause(t, w, cq));
            cohorts.addUsage(t.cq(), -v.gpus());
            passRunningByPriority[t.cq()][priority(v)] -= v.gpus();
            passRunning[t.cq()] -= v.gpus();
            if (admissionFairSharing) {
                lqUsage.addAdmitted(localQueue(v), -v.gpus());
            }
            evicted.add(v);
            evictedThisEpoch.set(v.index());
        }
        p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null);
        if (p == null || cohorts.available() < w.gpus()) {
            throw new IllegalStateException("preemption search promised room for " + w.id() + " but none was found");
        }
        admit(queue, cursor, w, p, cq, before, share, heads, targets.size());
    }

    private void admit(CqQueue queue, Cursor cursor, Job w, Placement p, int cq, long before, Share share, int heads,
                       int victims) {
        String reason = "ClusterQueue " + cohorts.cqName(cq) + " (nominal " + cohorts.nominal(cq) + " GPUs, using "
                + before + " -> " + (cohorts.cqUsage(cq) + w.gpus()) + "), share " + share + " with it admitted,"
                + " next of " + heads + " head(s) in this cycle's fair sharing order"
                + (victims == 0 ? "; fits" : "; after preempting " + dev.allot.core.model.Words.count(victims, "workload"));
        work.start(w, p, reason);
        cohorts.addUsage(cq, w.gpus());
        if (admissionFairSharing) {
            lqUsage.admit(localQueue(w), w.gpus());
        }
        started.add(w);
        if (passRunning != null) {
            passRunning[cq] += w.gpus();
            passRunningByPriority[cq][priority(w)] += w.gpus();
        }
        if (passLists != null) {
            // admitted workloads are candidates in the next cycles (Kueue would evict them a cycle later)
            List<Job> l = passLists.get(cq);
            int at = java.util.Collections.binarySearch(l, w, candidateOrder());
            l.add(at < 0 ? -at - 1 : at, w);
            candidatesStale[cq] = true;
        }
        queue.advance(cursor, parkGeneration);
    }

    // ------------------------------------------------------------------ preemption

    private List<FairPreemption.Target<Job>> preemptionTargets(ClusterState state, Job w, int cq) {
        countRunning(state);
        long g = w.gpus();
        int pr = priority(w);
        if (!eligibleSources(w, cq, pr) || !enoughRoom(state, w, cq, pr)) {
            return null;
        }
        buildCandidates(state);
        for (int q = 0; q < cqCount; q++) {
            if (candidatesStale[q]) {
                passCandidates.set(q, FairPreemption.Candidates.of(passLists.get(q), sizes));
                candidatesStale[q] = false;
            }
        }
        List<FairPreemption.Candidates<Job>> lists = new ArrayList<>(passCandidates);
        lists.set(cq, ownCandidates(cq, pr));
        FreeIndex scratch = work.scratch();
        scratch.copyFrom(work.free());
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
        return FairPreemption.find(cohorts, cq, g, lists, sizes, room, v -> !work.isPreempted(v),
                FairPreemption.DEFAULT_STRATEGIES);
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
        long own = 0;
        for (int p = 0; p < pr; p++) {
            own += passRunningByPriority[cq][p];
        }
        boolean any = own > 0;
        eligible[cq] = any;
        int x = cohorts.cqNode(cq);
        cohorts.addUsage(cq, w.gpus());
        boolean withinNominal = !cohorts.borrowing(x);
        int lastSide = -1;
        Share lowest = null;
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
                    lowest = cohorts.shareWithUsage(side, cohorts.usage(side) - removable);
                }
                eligible[q] = Share.compare(lowest, cohorts.share(cohorts.almostLca(y, x))) <= 0;
            }
            any |= eligible[q];
        }
        cohorts.addUsage(cq, -w.gpus());
        return any;
    }

    /**
     * Whether evicting every workload of the {@linkplain #eligibleSources eligible} ClusterQueues (only the
     * lower-priority ones of the preemptor's) would make room on the nodes; if not, no search can succeed.
     */
    private boolean enoughRoom(ClusterState state, Job w, int cq, int pr) {
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
            int q = cqOf(j);
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
                for (Job j : state.jobsOn(n)) {
                    int q = cqOf(j);
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

    private final FairPreemption.Sizes<Job> sizes = new FairPreemption.Sizes<>() {
        @Override
        public int cq(Job j) {
            return cqOf(j);
        }

        @Override
        public long gpus(Job j) {
            return j.gpus();
        }
    };

    /** GPUs of the workloads running when the pass began, per ClusterQueue and priority (evictions deducted). */
    private void countRunning(ClusterState state) {
        if (passRunning != null) {
            return;
        }
        passRunning = new long[cqCount];
        passRunningByPriority = new long[cqCount][Priority.values().length];
        forEachAdmitted(state, j -> {
            if (!work.isPreempted(j)) {
                passRunning[cqOf(j)] += j.gpus();
                passRunningByPriority[cqOf(j)][priority(j)] += j.gpus();
            }
        });
    }

    /**
     * Each ClusterQueue's running workloads in Kueue's candidate order: with Admission Fair Sharing, LocalQueues with
     * more usage first; then lower priority, then admitted more recently, then id.
     */
    private void buildCandidates(ClusterState state) {
        if (passLists != null) {
            return;
        }
        passLists = new ArrayList<>(cqCount);
        for (int q = 0; q < cqCount; q++) {
            passLists.add(new ArrayList<>());
        }
        forEachAdmitted(state, j -> passLists.get(cqOf(j)).add(j));
        if (admissionFairSharing) {
            lqUsageSnapshot = new double[lqUsage.size()];
            for (int lq = 0; lq < lqUsageSnapshot.length; lq++) {
                lqUsageSnapshot[lq] = lqUsage.usage(lq);
            }
        }
        Comparator<Job> order = candidateOrder();
        passCandidates = new ArrayList<>(cqCount);
        candidatesStale = new boolean[cqCount];
        for (List<Job> l : passLists) {
            l.sort(order);
            passCandidates.add(FairPreemption.Candidates.of(l, sizes));
        }
    }

    /**
     * With Admission Fair Sharing, LocalQueues with more usage first (as they stood when the pass first needed
     * candidates, as Kueue reads them from its snapshot); then {@link #victimOrder}.
     */
    private Comparator<Job> candidateOrder() {
        if (admissionFairSharing) {
            return Comparator.<Job>comparingDouble(j -> -usageForCandidates(localQueue(j))).thenComparing(victimOrder);
        }
        return victimOrder;
    }

    private double[] lqUsageSnapshot = new double[0];

    private double usageForCandidates(int lq) {
        return lq < lqUsageSnapshot.length ? lqUsageSnapshot[lq] : lqUsage.usage(lq);
    }

    /** When a workload was admitted: now if this pass started it, else the start of its running attempt. */
    private long admittedAt(Job j) {
        return work.startedHere(j) ? passNow : j.attemptStartSeconds();
    }

    /** Every admitted workload: running ones and those this pass started. */
    private void forEachAdmitted(ClusterState state, java.util.function.Consumer<Job> f) {
        forEachRunning(state, f);
        started.forEach(f);
    }

    /** The preemptor's own ClusterQueue offers its workloads of lower priority ({@code withinClusterQueue: LowerPriority}). */
    private FairPreemption.Candidates<Job> ownCandidates(int cq, int pr) {
        FairPreemption.Candidates<Job> all = passCandidates.get(cq);
        if (!admissionFairSharing) {
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

    private PreemptionCause cause(FairPreemption.Target<Job> t, Job w, int cq) {
        Job v = t.workload();
        String x = cohorts.cqName(cq);
        String y = cohorts.cqName(t.cq());
        String text = switch (t.reason()) {
            case IN_CLUSTER_QUEUE -> "Kueue InClusterQueue: " + w.id() + " (" + w.spec().priority().label() + ") of "
                    + x + " needed the quota of lower-priority " + v.id() + " (" + v.spec().priority().label() + ")";
            case RECLAMATION -> "Kueue InCohortReclamation: " + x + " stays within its nominal quota ("
                    + cohorts.nominal(cq) + " GPUs) with " + w.id() + " admitted, and " + y + " borrows (using "
                    + cohorts.cqUsage(t.cq()) + " of " + cohorts.nominal(t.cq()) + ")";
            case FAIR_SHARING -> {
                int xn = cohorts.cqNode(cq);
                int yn = cohorts.cqNode(t.cq());
                String ps = cohorts.name(cohorts.almostLca(xn, yn));
                String ts = cohorts.name(cohorts.almostLca(yn, xn));
                yield t.strategy() == FairPreemption.Strategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE
                        ? "Kueue InCohortFairSharing, LessThanOrEqualToFinalShare: share of " + ps + " with " + w.id()
                                + " admitted (" + t.preemptorNew() + ") <= share of " + ts + " without " + v.id()
                                + " (" + t.targetNew() + ")"
                        : "Kueue InCohortFairSharing, LessThanInitialShare: share of " + ps + " with " + w.id()
                                + " admitted (" + t.preemptorNew() + ") < share of " + ts + " (" + t.targetOld() + ")";
            }
        };
        PreemptionCause.Kind kind = !v.allocated() ? PreemptionCause.Kind.UNALLOCATED
                : t.reason() == FairPreemption.Reason.IN_CLUSTER_QUEUE ? PreemptionCause.Kind.PRIORITY
                : PreemptionCause.Kind.FAIR_SHARE;
        return PreemptionCause.by(kind, w.id(), text);
    }

    // ------------------------------------------------------------------ queues

    /** The cursors of every ClusterQueue for this pass, over its pending sub-queues. */
    private CqQueue[] buildQueues(ClusterState state) {
        CqQueue[] queues = new CqQueue[cqCount];
        if (admissionFairSharing) {
            for (int cq = 0; cq < cqCount; cq++) {
                for (SubQueue sq : afsIndex.byCq.get(cq)) {
                    if (!sq.jobs.isEmpty()) {
                        queueFor(queues, cq).add(new Cursor(sq, parkGeneration));
                    }
                }
            }
        } else {
            for (int l = 0; l < unallocatedCq; l++) {
                for (boolean allocated : new boolean[] {true, false}) {
                    if (state.pending().count(l, allocated) == 0) {
                        continue;
                    }
                    int cq = allocated ? l : unallocatedCq;
                    List<NavigableSet<Job>> shapes = state.pending().shapeQueues(l, allocated);
                    List<SubQueue> known = subQueues.get(l * 2 + (allocated ? 0 : 1));
                    for (int s = 0; s < shapes.size(); s++) {
                        if (shapes.get(s).isEmpty()) {
                            continue;
                        }
                        while (known.size() <= s) {
                            known.add(null);
                        }
                        if (known.get(s) == null) {
                            known.set(s, new SubQueue(-1, s, shapes.get(s)));
                        }
                        queueFor(queues, cq).add(new Cursor(known.get(s), parkGeneration));
                    }
                }
            }
        }
        for (CqQueue q : queues) {
            if (q != null) {
                q.heapify();
            }
        }
        return queues;
    }

    private CqQueue queueFor(CqQueue[] queues, int cq) {
        if (queues[cq] == null) {
            queues[cq] = new CqQueue(admissionFairSharing ? afsOrder() : BY_HEAD, admissionFairSharing);
        }
        return queues[cq];
    }

    private static final Comparator<Cursor> BY_HEAD = (a, b) -> Job.QUEUE_ORDER.compare(a.head, b.head);

    private Comparator<Cursor> afsOrder() {
        return (a, b) -> {
            int c = Double.compare(lqUsage.usage(a.queue.localQueue), lqUsage.usage(b.queue.localQueue));
            return c != 0 ? c : Job.QUEUE_ORDER.compare(a.head, b.head);
        };
    }

    /**
     * One pending queue of one shape (per allocation and class, or with Admission Fair Sharing per LocalQueue), and
     * where it was set aside: from {@code setAsideFrom} on, in queue order, until quota is released.
     */
    static final class SubQueue {
        final int localQueue;
        final int shape;
        final NavigableSet<Job> jobs;
        Job setAsideFrom;
        int setAsideGeneration = -1;

        SubQueue(int localQueue, int shape, NavigableSet<Job> jobs) {
            this.localQueue = localQueue;
            this.shape = shape;
            this.jobs = jobs;
        }
    }

    /** A walk over one sub-queue during a pass: skips what is no longer waiting and stops where it was set aside. */
    static final class Cursor {
        final SubQueue queue;
        private final ShapeCursor walk;
        Job head;

        Cursor(SubQueue queue, int generation) {
            this.queue = queue;
            this.walk = new ShapeCursor(queue.jobs);
            refresh(generation);
        }

        private void refresh(int generation) {
            Job h = walk.head();
            while (h != null && h.state() != JobState.PENDING) {
                walk.advance();
                h = walk.head();
            }
            if (h != null && queue.setAsideGeneration == generation && queue.setAsideFrom != null
                    && Job.QUEUE_ORDER.compare(h, queue.setAsideFrom) >= 0) {
                walk.exhaust();
                h = null;
            }
            head = h;
        }

        void advance(int generation) {
            walk.advance();
            refresh(generation);
        }

        void setAside(int generation) {
            queue.setAsideFrom = head;
            queue.setAsideGeneration = generation;
            walk.exhaust();
            head = null;
        }
    }

    /** A ClusterQueue's cursors, the best head first. */
    static final class CqQueue {
        private final List<Cursor> cursors = new ArrayList<>();
        private final Comparator<Cursor> order;
        private PriorityQueue<Cursor> heap;

        private final boolean reorderOnAdmit;

        CqQueue(Comparator<Cursor> order, boolean reorderOnAdmit) {
            this.order = order;
            this.reorderOnAdmit = reorderOnAdmit;
        }

        void add(Cursor c) {
            cursors.add(c);
        }

        void heapify() {
            heap = new PriorityQueue<>(Math.max(1, cursors.size()), order);
            for (Cursor c : cursors) {
                if (c.head != null) {
                    heap.add(c);
                }
            }
        }

        Cursor best() {
            return heap.peek();
        }

        /** The best cursor's head was admitted: move on (and reorder: with Admission Fair Sharing its usage grew). */
        void advance(Cursor c, int generation) {
            heap.remove(c);
            c.advance(generation);
            if (reorderOnAdmit) {
                heapify();
            } else if (c.head != null) {
                heap.add(c);
            }
        }

        /**
         * The head could not be admitted: set it aside with everything behind it of the same shape and no higher
         * priority in this ClusterQueue, which would fail the same way.
         */
        void setAside(Job w, int generation) {
            for (Cursor c : cursors) {
                if (c.head != null && c.queue.shape == w.shape() && priority(c.head) <= priority(w)) {
                    c.setAside(generation);
                }
            }
            heapify();
        }
    }

    /** Admission Fair Sharing's pending sub-queues, per LocalQueue and shape, kept in step with the state. */
    final class AfsIndex {
        private final Map<Long, SubQueue> byKey = new HashMap<>();
        final List<List<SubQueue>> byCq = new ArrayList<>();
        private int scanFrom;
        private final List<Job> recheck = new ArrayList<>();

        AfsIndex(int cqs) {
            for (int q = 0; q < cqs; q++) {
                byCq.add(new ArrayList<>());
            }
        }

        void sync(ClusterState state) {
            List<Job> jobs = state.jobs();
            List<Job> again = new ArrayList<>(recheck);
            recheck.clear();
            for (; scanFrom < jobs.size(); scanFrom++) {
                again.add(jobs.get(scanFrom));
            }
            for (Job j : again) {
                if (j.state() == JobState.PENDING) {
                    add(j);
                } else if (j.state() == JobState.NEW) {
                    recheck.add(j);
                }
            }
        }

        private void add(Job j) {
            int lq = localQueue(j);
            long key = ((long) lq << 32) | j.shape();
            SubQueue sq = byKey.get(key);
            if (sq == null) {
                sq = new SubQueue(lq, j.shape(), new TreeSet<>(Job.QUEUE_ORDER));
                byKey.put(key, sq);
                byCq.get(cqOf(j)).add(sq);
            }
            sq.jobs.add(j);
        }

        void afterPass(List<Job> startedJobs, List<Job> evictedJobs) {
            for (Job j : startedJobs) {
                byKey.get(((long) localQueue(j) << 32) | j.shape()).jobs.remove(j);
            }
            recheck.addAll(evictedJobs); // resumable ones wait again once the plan is carried out
        }
    }

    @Override
    public String toString() {
        return NAME + "(hierarchical-cohorts=" + hierarchical + ", admission-fair-sharing=" + admissionFairSharing
                + (admissionFairSharing ? ", usage-half-life-time=" + Durations.formatSeconds(halfLifeSeconds)
                + ", usage-sampling-interval=" + Durations.formatSeconds(samplingSeconds) : "") + ")";
    }
}
