package dev.allot.core.policy.kueue;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Words;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * happen. Each cycle takes the head of every ClusterQueue ({@link ClusterQueueHeads}: BestEffortFIFO, priority, then
 * creation time, then id; with Admission Fair Sharing the LocalQueue's usage first) and processes them in
 * {@link AdmissionTournament} order.
 * A head is admitted when it fits the quota its tree has unused and the Placer finds GPUs for it; otherwise
 * {@link FairPreemption} looks among the workloads it may evict ({@link PreemptionCandidates}, offered in
 * {@link CandidateOrder}) for workloads to evict and, if it finds a set that makes room, they are evicted and
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
    private PreemptionCandidates candidates;

    private ClusterQueueHeads heads;
    private HopelessMemo hopeless;
    private PassWorld passWorld;
    /**
     * The number of the world heads are answered in: a new one at every admission and eviction, and at the start of
     * a pass unless it starts from the world the last pass left ({@link HopelessMemo}).
     */
    private long world;
    private int parkGeneration;
    /**
     * The victims the last trial ({@link #nothingToAdmit}) found for its head in world {@link #trialWorld}, at which
     * it gave up: the pass that follows asks the same search of the same head, and while the world is the same the
     * search gives the same answer (as in {@link HopelessMemo}), so it is taken from here instead of run again.
     */
    private Job trialHead;
    private long trialWorld;
    private int trialCq;
    private List<FairPreemption.Target<Job>> trialTargets;
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

    private final List<Job> started = new ArrayList<>();
    private final List<Job> evicted = new ArrayList<>();
    private CycleHeads cycle;

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
        cycle = new CycleHeads(cqCount);
        expectedRunning = -1;
        users.clear();
        lqOfJob = new int[0];
        if (admissionFairSharing) {
            lqUsage = new LocalQueueUsage(halfLifeSeconds, samplingSeconds);
        }
        LocalQueueUsage afs = admissionFairSharing ? lqUsage : null;
        candidates = new PreemptionCandidates(cohorts, this::cqOf, afs, this::localQueue);
        heads = new ClusterQueueHeads(tree.leafCount(), afs, this::cqOf, this::localQueue);
        hopeless = new HopelessMemo(cqCount);
        passWorld = new PassWorld(cqCount);
        world++;
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
        started.clear();
        evicted.clear();
        candidates.beginPass(state, work, started, now);
        // Kueue requeues the workloads it set aside when quota is released: a workload ended or was evicted, or here
        // also when a node changed health (the free GPUs differ from what the last plan left).
        boolean released = expectedRunning < 0 || state.running().count() != expectedRunning
                || state.nodes().free().totalFree() != expectedFree;
        if (released || preemptedLastPass) {
            parkGeneration++;
        }
        if (released) {
            evictedThisEpoch.clear();
        }
        if (admissionFairSharing) {
            lqUsage.advanceTo(now);
            lqUsage.clearAdmitted();
            PreemptionCandidates.forEachRunning(state, j -> lqUsage.addAdmitted(localQueue(j), j.gpus()));
            heads.sync(state);
        }
        if (state.pending().total() > 0) {
            // Kueue counts quota from admission: a start that waits for a stopping attempt's GPUs holds its quota
            // already, and is a preemption candidate like any admitted workload (the ledger charges it only from its
            // launch, so its running GPUs would leave it out, and evicting it would drive usage below zero)
            for (int l = 0; l < unallocatedCq; l++) {
                usageBuffer[l] = state.protections().heldGpus(l);
            }
            usageBuffer[unallocatedCq] = state.running().unallocatedGpus();
            // with Admission Fair Sharing the LocalQueues' usage decays between passes: never the same world
            boolean sameWorld = !admissionFairSharing && !released && passWorld.unchanged(state, usageBuffer);
            if (!sameWorld) {
                world++;
            }
            cohorts.setUsage(usageBuffer);
            schedulePending(state, sameWorld);
            passWorld.keep(state, work, started, evicted, now, cohorts);
        } else {
            passWorld.invalidate();
        }
        expectedRunning = state.running().count() + started.size() - evicted.size();
        expectedFree = work.free().totalFree();
        preemptedLastPass = !evicted.isEmpty();
        heads.afterPass(started, evicted);
        return new Plan(work.decisions(), Plan.NO_WAKE_UP);
    }

    // ------------------------------------------------------------------ cycles

    private void schedulePending(ClusterState state, boolean sameWorld) {
        ClusterQueueHeads.CqQueue[] queues = heads.build(state, parkGeneration);
        if (sameWorld && nothingToAdmit(queues)) {
            return;
        }
        boolean[] present = cycle.present;
        long[] gpus = cycle.gpus;
        int[] prio = cycle.prio;
        long[] submit = cycle.submit;
        String[] ids = cycle.ids;
        ClusterQueueHeads.Cursor[] cycleHeads = cycle.heads;
        while (true) {
            int count = 0;
            for (int cq = 0; cq < cqCount; cq++) {
                ClusterQueueHeads.Cursor c = queues[cq] == null ? null : queues[cq].best();
                cycleHeads[cq] = c;
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
            tournament.beginCycle(present, gpus, prio, submit, ids);
            for (int k = 0; k < count; k++) {
                int cq = tournament.next();
                present[cq] = false;
                process(state, queues[cq], cycleHeads[cq], cq, count);
            }
        }
    }

    /**
     * In a pass that starts from the world the last pass left, whether no head can be admitted: each ClusterQueue's
     * heads are answered in its own order, as a pass would (the world cannot change while nothing is admitted, so
     * the order across ClusterQueues does not matter), most of them from the {@link HopelessMemo}. If none can, they
     * are all set aside as the pass would have set them aside, and the pass is over; at the first that can, the trial
     * is undone and the pass runs in full (the answers it found stay in the memo for this world).
     */
    private boolean nothingToAdmit(ClusterQueueHeads.CqQueue[] queues) {
        heads.beginTrial();
        for (int cq = 0; cq < cqCount; cq++) {
            ClusterQueueHeads.CqQueue queue = queues[cq];
            if (queue == null) {
                continue;
            }
            for (ClusterQueueHeads.Cursor c = queue.best(); c != null; c = queue.best()) {
                Job w = c.head;
                boolean known = hopeless.hopeless(w, cq, world);
                if (!known && cohorts.available() >= w.gpus()
                        && Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null) != null) {
                    heads.endTrial(false, parkGeneration);
                    return false;
                }
                if (evictedThisEpoch.get(w.index())) {
                    queue.advance(c, parkGeneration);
                    continue;
                }
                if (!known) {
                    List<FairPreemption.Target<Job>> targets = candidates.targets(w, cq);
                    if (targets != null) {
                        trialTargets = targets;
                        trialHead = w;
                        trialWorld = world;
                        trialCq = cq;
                        heads.endTrial(false, parkGeneration);
                        return false;
                    }
                    hopeless.found(w, cq, world);
                }
                queue.setAside(w, parkGeneration);
            }
        }
        heads.endTrial(true, parkGeneration);
        return true;
    }

    /** Processes the tournament's winner {@code cq}; its share for the reason is taken before any usage changes. */
    private void process(ClusterState state, ClusterQueueHeads.CqQueue queue, ClusterQueueHeads.Cursor cursor, int cq,
                         int headCount) {
        Job w = cursor.head;
        long before = cohorts.cqUsage(cq);
        boolean known = hopeless.hopeless(w, cq, world);
        // the quota first: the Placer only reads the free GPUs, and most heads fit neither
        Placement p = known || cohorts.available() < w.gpus() ? null
                : Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null);
        if (p != null) {
            admit(queue, cursor, w, p, cq, before, tournament.shareOf(cq), headCount, 0);
            return;
        }
        if (evictedThisEpoch.get(w.index())) {
            // evicted since quota was last released: it waits without preempting, and without setting aside the
            // workloads behind it, which may preempt
            queue.advance(cursor, parkGeneration);
            return;
        }
        List<FairPreemption.Target<Job>> targets;
        if (known) {
            targets = null;
        } else if (w == trialHead && world == trialWorld && cq == trialCq) {
            targets = trialTargets;
            trialHead = null;
            trialTargets = null;
        } else {
            targets = candidates.targets(w, cq);
        }
        if (targets == null) {
            hopeless.found(w, cq, world);
            queue.setAside(w, parkGeneration);
            return;
        }
        world++;
        Share share = tournament.shareOf(cq);
        for (FairPreemption.Target<Job> t : targets) {
            Job v = t.workload();
            work.preempt(v, cause(t, w, cq));
            cohorts.addUsage(t.cq(), -v.gpus());
            candidates.evicted(v, t.cq());
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
        admit(queue, cursor, w, p, cq, before, share, headCount, targets.size());
    }

    private void admit(ClusterQueueHeads.CqQueue queue, ClusterQueueHeads.Cursor cursor, Job w, Placement p, int cq,
                       long before, Share share, int headCount, int victims) {
        String reason = "ClusterQueue " + cohorts.cqName(cq) + " (nominal " + cohorts.nominal(cq) + " GPUs, using "
                + before + " -> " + (cohorts.cqUsage(cq) + w.gpus()) + "), share " + share + " with it admitted,"
                + " next of " + headCount + " head(s) in this cycle's fair sharing order"
                + (victims == 0 ? "; fits" : "; after preempting " + Words.count(victims, "workload"));
        work.start(w, p, reason);
        world++;
        cohorts.addUsage(cq, w.gpus());
        if (admissionFairSharing) {
            lqUsage.admit(localQueue(w), w.gpus());
        }
        started.add(w);
        // admitted workloads are candidates in the next cycles (Kueue would evict them a cycle later)
        candidates.admitted(w, cq);
        queue.advance(cursor, parkGeneration);
    }

    // ------------------------------------------------------------------ preemption

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

    @Override
    public String toString() {
        return NAME + "(hierarchical-cohorts=" + hierarchical + ", admission-fair-sharing=" + admissionFairSharing
                + (admissionFairSharing ? ", usage-half-life-time=" + Durations.formatSeconds(halfLifeSeconds)
                + ", usage-sampling-interval=" + Durations.formatSeconds(samplingSeconds) : "") + ")";
    }
}
