package dev.allot.core.policy.legacy;

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
import dev.allot.core.sched.VictimSearch;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.PriorityQueue;

/**
 * The baseline Allot replaces: a global priority scheduler with optional non-preemptibility, as labs commonly run.
 *
 * <ul>
 *   <li>The queue is ordered globally by declared priority, then submission, then id; no fair share.</li>
 *   <li>A workload is non-preemptible when its declared minimum runtime is at least
 *   {@code non-preemptible-min-runtime} (8h); every other workload, unallocated ones included, is preemptible.</li>
 *   <li>Each allocation may run at most {@code round(entitlement x cluster GPUs)} non-preemptible GPUs at once;
 *   non-preemptible work beyond that waits. Preemptible work may run anywhere there are idle GPUs.</li>
 *   <li>A waiting workload that does not fit preempts a minimal set of preemptible jobs of strictly lower
 *   priority (lowest priority first, then least work lost, then id). Non-preemptible work is never preempted.</li>
 *   <li>Greedy backfill: a workload that does not fit is skipped and later ones may start; no reservations.</li>
 *   <li>An unhealthy host evicts its preemptible work at once; non-preemptible work blocks the drain until it
 *   ends (the simulator reports those hours as "drain blocked").</li>
 * </ul>
 */
public final class LegacyPolicy implements Policy {
    public static final String NAME = "legacy";

    static final List<SettingSpec> SETTINGS = List.of(
            SettingSpec.duration("non-preemptible-min-runtime", Duration.ofHours(8),
                    "a workload whose declared minimum runtime is at least this is non-preemptible"));

    public static final PolicyFactory FACTORY = PolicyFactory.of(NAME,
            "the baseline: global priority queue, non-preemptible work under per-allocation GPU limits,"
            + " preemption by higher priority, greedy backfill",
            SETTINGS,
            settings -> new LegacyPolicy(settings.duration("non-preemptible-min-runtime")));

    private final long nonPreemptibleSeconds;
    private ClusterState boundTo;
    private CycleWork work;

    public LegacyPolicy(Duration nonPreemptibleMinRuntime) {
        this.nonPreemptibleSeconds = nonPreemptibleMinRuntime.getSeconds();
    }

    public static LegacyPolicy withDefaults() {
        return (LegacyPolicy) FACTORY.create(Settings.defaults(SETTINGS));
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Non-preemptible: the declared (uncapped) minimum runtime reaches the threshold. */
    public boolean nonPreemptible(Job job) {
        return job.spec().minRuntime().getSeconds() >= nonPreemptibleSeconds;
    }

    @Override
    public boolean isProtected(Job job, long now) {
        return nonPreemptible(job);
    }

    /** The most non-preemptible GPUs an allocation may run at once. */
    public static long limitGpus(AllocationTree tree, int leaf, int clusterGpus) {
        return Math.round(tree.leafEntitlement(leaf) * clusterGpus);
    }

    @Override
    public Plan schedule(ClusterState state, long now) {
        if (state.now() != now) {
            throw new IllegalArgumentException("the state is at " + state.now() + ", not at " + now + "; advance it first");
        }
        if (state.pending().total() == 0 && state.nodes().nextUnhealthyBusy(0) < 0) {
            return Plan.empty();
        }
        if (boundTo != state) {
            boundTo = state;
            work = new CycleWork(state);
        }
        work.begin(now);
        drain(state);
        if (state.pending().total() > 0) {
            scheduleQueue(state, now);
        }
        return new Plan(work.decisions(), Plan.NO_WAKE_UP);
    }

    private void drain(ClusterState state) {
        for (int n = state.nodes().nextUnhealthyBusy(0); n >= 0; n = state.nodes().nextUnhealthyBusy(n + 1)) {
            for (Job j : state.nodes().jobsOn(n)) {
                if (!work.isPreempted(j) && !nonPreemptible(j)) {
                    work.preempt(j, PreemptionCause.drain(state.nodes().name(n),
                            "host " + state.nodes().name(n) + " is unhealthy and " + j.id() + " is preemptible"));
                }
            }
        }
    }

    private void scheduleQueue(ClusterState state, long now) {
        AllocationTree tree = state.tree();
        int leaves = tree.leafCount();
        int clusterGpus = state.cluster().totalGpus();
        long[] nonPreemptibleGpus = new long[leaves];
        long[] preemptibleByPriority = new long[Priority.values().length];
        for (int l = 0; l < leaves; l++) {
            tally(state.running().allocated(l), nonPreemptibleGpus, preemptibleByPriority);
        }
        tally(state.running().unallocated(), nonPreemptibleGpus, preemptibleByPriority);
        List<Job> preemptible = null; // gathered and sorted only when a preemption is first attempted
        PriorityQueue<ShapeCursor> heads = new PriorityQueue<>((a, b) -> Job.QUEUE_ORDER.compare(a.head(), b.head()));
        for (int l = 0; l < leaves; l++) {
            for (boolean allocated : new boolean[] {true, false}) {
                if (state.pending().count(l, allocated) == 0) {
                    continue;
                }
                for (NavigableSet<Job> q : state.pending().shapeQueues(l, allocated)) {
                    if (!q.isEmpty()) {
                        heads.add(new ShapeCursor(q));
                    }
                }
            }
        }
        while (!heads.isEmpty()) {
            ShapeCursor c = heads.poll();
            // Non-preemptible work beyond its allocation's limit waits: skip it inside its queue, without the heap.
            if (overLimit(c.head(), nonPreemptibleGpus, tree, clusterGpus)) {
                do {
                    c.advance();
                } while (c.head() != null && overLimit(c.head(), nonPreemptibleGpus, tree, clusterGpus));
                if (c.head() != null) {
                    heads.add(c); // back in global order behind the other queues' heads
                }
                continue;
            }
            Job w = c.head();
            boolean np = nonPreemptible(w);
            Placement p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null);
            List<Job> victims = List.of();
            if (p == null) {
                long bound = work.free().totalFree();
                for (int pr = 0; pr < w.spec().priority().ordinal(); pr++) {
                    bound += preemptibleByPriority[pr];
                }
                if (bound >= w.gpus()) {
                    if (preemptible == null) {
                        List<Job> all = new ArrayList<>();
                        forEachRunning(state, j -> {
                            if (!nonPreemptible(j) && !work.isPreempted(j)) {
                                all.add(j);
                            }
                        });
                        all.sort(victimOrder(now));
                        preemptible = all;
                    }
                    List<Job> candidates = new ArrayList<>();
                    for (Job v : preemptible) {
                        if (!work.isPreempted(v) && v.spec().priority().ordinal() < w.spec().priority().ordinal()) {
                            candidates.add(v);
                        }
                    }
                    victims = VictimSearch.find(work, w.gpus(), w.gpusPerNode(), null, candidates);
                    if (victims != null && !victims.isEmpty()) {
                        for (Job v : victims) {
                            work.preempt(v, PreemptionCause.by(PreemptionCause.Kind.PRIORITY, w.id(),
                                    "higher-priority " + w.id() + " (" + w.spec().priority().label() + ") needed the GPUs of preemptible "
                                            + v.id() + " (" + v.spec().priority().label() + ")"));
                            preemptibleByPriority[v.spec().priority().ordinal()] -= v.gpus();
                        }
                        p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), null);
                    }
                }
                if (p == null) {
                    requeue(heads, c, true);
                    continue;
                }
            }
            work.start(w, p, (np ? "non-preemptible" : "preemptible") + ", priority " + w.spec().priority().label()
                    + (victims == null || victims.isEmpty() ? "; idle GPUs" : "; after preempting " + dev.allot.core.model.Words.count(victims.size(), "workload")));
            if (np) {
                nonPreemptibleGpus[w.leaf()] += w.gpus();
            }
            requeue(heads, c, false);
        }
    }

    private void tally(List<Job> running, long[] nonPreemptibleGpus, long[] preemptibleByPriority) {
        for (int i = 0; i < running.size(); i++) {
            Job j = running.get(i);
            if (nonPreemptible(j)) {
                nonPreemptibleGpus[j.leaf()] += j.gpus();
            } else if (!work.isPreempted(j)) {
                preemptibleByPriority[j.spec().priority().ordinal()] += j.gpus();
            }
        }
    }

    private boolean overLimit(Job w, long[] nonPreemptibleGpus, AllocationTree tree, int clusterGpus) {
        return nonPreemptible(w) && nonPreemptibleGpus[w.leaf()] + w.gpus() > limitGpus(tree, w.leaf(), clusterGpus);
    }

    private static void requeue(PriorityQueue<ShapeCursor> heads, ShapeCursor c, boolean exhaust) {
        if (exhaust) {
            c.exhaust();
        } else {
            c.advance();
        }
        if (c.head() != null) {
            heads.add(c);
        }
    }

    private static void forEachRunning(ClusterState state, java.util.function.Consumer<Job> f) {
        for (int l = 0; l < state.tree().leafCount(); l++) {
            state.running().allocated(l).forEach(f);
        }
        state.running().unallocated().forEach(f);
    }

    /** Lowest priority first, then the least work lost, then id. */
    private static Comparator<Job> victimOrder(long now) {
        return (a, b) -> {
            int c = Integer.compare(a.spec().priority().ordinal(), b.spec().priority().ordinal());
            if (c != 0) {
                return c;
            }
            c = Long.compare(a.workLostIfPreemptedAtGpuSeconds(now), b.workLostIfPreemptedAtGpuSeconds(now));
            return c != 0 ? c : a.id().compareTo(b.id());
        };
    }

    @Override
    public String toString() {
        return NAME + "(non-preemptible-min-runtime=" + Durations.formatSeconds(nonPreemptibleSeconds) + ")";
    }
}
