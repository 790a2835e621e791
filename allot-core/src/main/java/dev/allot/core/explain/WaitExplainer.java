package dev.allot.core.explain;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.core.policy.allocation.Entitlements;
import dev.allot.core.policy.allocation.FairShare;
import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.core.sched.Placer;
import dev.allot.core.sched.VictimPool;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Explains the {@link AllocationPolicy}'s view of one workload: where it stands in the queue, the fair-share numbers
 * that place it there and what it waits for (or, running, whether it is protected and who may preempt it).
 *
 * <p>Nothing here ranks work by rules of its own: the order is {@link FairShare}'s (reset from the state, charged per
 * start as the policy charges), inside an allocation {@link Job#QUEUE_ORDER}; who may preempt whom is
 * {@link PreemptionRules#mayPreempt}; and whether the workload starts now is decided by running a fresh policy on
 * the state (a cycle plays its decisions on a private copy, so the state is not changed).
 *
 * <p>What it waits for, decided in this order (see {@link WaitsFor}): a fresh cycle starts it: {@code StartsNow};
 * unallocated: {@code Unallocated}; idle plus now-preemptible GPUs suffice: {@code Gang} for a gang too few nodes
 * have room for, else {@code HigherRankedWork}; otherwise {@code Gang} for a gang too few nodes have room for (with
 * when enough nodes have room, node by node, as protection ends); otherwise the earliest end of protection of work it
 * may preempt that makes enough GPUs: {@code ProtectedUntil}; otherwise {@code Gpus}. GPU counts ignore where the
 * GPUs are, and the future assumes the ranks stay as now (the words say so).
 *
 * <p>Under the default {@code ranking=entitlement} it also gives the instant standing of the workload's allocation
 * (what it holds against its quota, {@link Entitlements}) and of the other allocations whose protected work it waits
 * for, so the words can say the rule in force with its numbers; under {@code ranking=lookback} the fair-share numbers
 * are the whole rule.
 *
 * <p>Read-only, and not thread-safe against changes of the state: the caller holds the state still (the service
 * calls it inside {@code SchedulerLoop.inspect}).
 */
public final class WaitExplainer {
    /** How many workloads a list in an explanation names at most. */
    public static final int MAX_NAMED = 10;

    private final Supplier<AllocationPolicy> policies;

    /** An explainer that checks "starts now" with a policy of default settings. */
    public WaitExplainer() {
        this(AllocationPolicy::withDefaults);
    }

    /** An explainer that checks "starts now" with a fresh policy from {@code policies} (the settings in force). */
    public WaitExplainer(Supplier<AllocationPolicy> policies) {
        this.policies = policies;
    }

    /**
     * Explains job {@code jobId} at {@code now}, which must be the state's time; empty when the state does not know
     * the job.
     */
    public Optional<WaitExplanation> explain(ClusterState state, String jobId, long now) {
        if (state.now() != now) {
            throw new IllegalArgumentException("the state is at " + state.now() + ", not at " + now);
        }
        Optional<Job> found = state.job(jobId);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Job job = found.get();
        FairShare fs = fairShare(state);
        PreemptionRules rules = policies.get().freshRules(state);
        List<WaitExplanation.FairShareLevel> levels = levels(state, fs, job);
        WaitExplanation.QueuePosition position = null;
        WaitsFor waitsFor = null;
        WaitExplanation.Protection protection = null;
        if (job.state() == JobState.PENDING) {
            List<Job> order = ServingOrder.of(state, policies.get().freshRules(state));
            position = position(state, order, job);
            waitsFor = waitsFor(state, rules, order, job, now);
        } else if (job.state() == JobState.RUNNING) {
            protection = protection(state, rules, job, now);
        }
        WaitExplanation.Standing standing = null;
        List<WaitExplanation.Standing> others = new ArrayList<>();
        if (rules.ranking() == Ranking.ENTITLEMENT && job.allocated()) {
            standing = standing(state, rules, job.leaf());
            for (WaitsFor.ProtectedWork pw : protectedWork(waitsFor)) {
                int leaf = state.tree().leaf(pw.allocation()).orElseThrow();
                if (leaf != job.leaf() && others.stream().noneMatch(o -> o.allocation().equals(pw.allocation()))) {
                    others.add(standing(state, rules, leaf));
                }
            }
        }
        WaitExplanation.Starvation starvation = null;
        long limit = rules.starvationLimitSeconds();
        if (standing != null && job.state() == JobState.PENDING && standing.owed()
                && job.gpus() > standing.quotaGpus() && limit <= Long.MAX_VALUE - job.spec().submitSeconds()) {
            starvation = new WaitExplanation.Starvation(job.spec().submitSeconds() + limit, limit);
        }
        return Optional.of(new WaitExplanation(job.id(), state.tree().leafName(job.leaf()), job.allocated(), job.state(),
                now, state.ledger().windowSeconds(), job.gpus(), job.gpusPerNode(), position, levels, waitsFor, protection,
                state.config().minRuntimeCapNote(job.spec().minRuntime().getSeconds()), rules.ranking(), rules.margin(),
                standing, others, starvation, hosts(state)));
    }

    /** The hosts that take no new work, the first {@link #MAX_NAMED} by name, and the healthy GPUs. */
    private static WaitExplanation.Hosts hosts(ClusterState state) {
        List<String> unhealthy = new ArrayList<>();
        for (int n = 0; n < state.nodes().count(); n++) {
            if (state.nodes().status(n) != dev.allot.core.state.NodeBooks.Status.HEALTHY) {
                unhealthy.add(state.nodes().name(n));
            }
        }
        java.util.Collections.sort(unhealthy);
        return new WaitExplanation.Hosts(unhealthy.size(), unhealthy.subList(0, Math.min(MAX_NAMED, unhealthy.size())),
                state.nodes().healthyGpus(), state.cluster().totalGpus());
    }

    /** An allocation's instant standing as the rules read it from the state (before this cycle's decisions). */
    private static WaitExplanation.Standing standing(ClusterState state, PreemptionRules rules, int leaf) {
        Entitlements e = rules.entitlements();
        return new WaitExplanation.Standing(state.tree().leafName(leaf), state.tree().leafEntitlement(leaf),
                state.nodes().healthyGpus(), e.quotaGpus(leaf), e.heldGpus(leaf), e.standing(leaf), e.owed(leaf));
    }

    private static List<WaitsFor.ProtectedWork> protectedWork(WaitsFor w) {
        if (w instanceof WaitsFor.ProtectedUntil p) {
            return p.protectedWork();
        }
        if (w instanceof WaitsFor.Gang g) {
            return g.protectedWork();
        }
        return List.of();
    }

    private static FairShare fairShare(ClusterState state) {
        FairShare fs = new FairShare(state.tree(), state.cluster().totalGpus(), state.ledger().windowSeconds());
        fs.reset(state);
        return fs;
    }

    /** The committed protected time of the leaves under {@code node} (as {@link FairShare#reset} sums it). */
    private static long committedGpuSeconds(ClusterState state, int node) {
        AllocationTree tree = state.tree();
        long sum = 0;
        for (int l = 0; l < tree.leafCount(); l++) {
            for (int n = tree.leafNode(l); n >= 0; n = tree.parent(n)) {
                if (n == node) {
                    sum += state.committedGpuSeconds(l);
                    break;
                }
            }
        }
        return sum;
    }

    private static List<WaitExplanation.FairShareLevel> levels(ClusterState state, FairShare fs, Job job) {
        return levels(state, fs, job.leaf());
    }

    private static List<WaitExplanation.FairShareLevel> levels(ClusterState state, FairShare fs, int leaf) {
        AllocationTree tree = state.tree();
        List<WaitExplanation.FairShareLevel> out = new ArrayList<>();
        for (int node = tree.leafNode(leaf); tree.parent(node) >= 0; node = tree.parent(node)) {
            int parent = tree.parent(node);
            out.add(0, new WaitExplanation.FairShareLevel(tree.name(node), tree.name(parent), fs.usageGpuSeconds(node),
                    committedGpuSeconds(state, node), tree.entitlement(node), fs.entitledGpuSeconds(node), fs.ratio(node),
                    fs.rankAmongSiblings(node), tree.childrenCount(parent)));
        }
        return out;
    }

    /**
     * The whole queue at {@code now} (the state's time): every waiting job in {@link ServingOrder} with its place,
     * and the fair-share levels of each allocation with waiting work, computed once per allocation, so the whole
     * queue costs one serving order rather than one explanation per job.
     */
    public QueueSnapshot queue(ClusterState state, long now) {
        if (state.now() != now) {
            throw new IllegalArgumentException("the state is at " + state.now() + ", not at " + now);
        }
        FairShare fs = fairShare(state);
        List<Job> order = ServingOrder.of(state, policies.get().freshRules(state));
        int[] inAllocation = new int[state.tree().leafCount()];
        List<QueueSnapshot.Entry> entries = new ArrayList<>(order.size());
        java.util.Map<String, List<WaitExplanation.FairShareLevel>> levels = new java.util.LinkedHashMap<>();
        for (Job j : order) {
            String leaf = state.tree().leafName(j.leaf());
            entries.add(new QueueSnapshot.Entry(j.id(), leaf, j.allocated(), j.gpus(), entries.size() + 1,
                    ++inAllocation[j.leaf()]));
            if (!levels.containsKey(leaf)) {
                levels.put(leaf, levels(state, fs, j.leaf()));
            }
        }
        return new QueueSnapshot(now, entries, levels);
    }

    private static WaitExplanation.QueuePosition position(ClusterState state, List<Job> order, Job job) {
        int pos = order.indexOf(job) + 1;
        int inAlloc = 0;
        for (Job j : order) {
            if (j.leaf() == job.leaf()) {
                inAlloc++;
                if (j == job) {
                    break;
                }
            }
        }
        int waitingThere = state.pending().count(job.leaf(), true) + state.pending().count(job.leaf(), false);
        return new WaitExplanation.QueuePosition(pos, order.size(), inAlloc, waitingThere);
    }

    private WaitsFor waitsFor(ClusterState state, PreemptionRules rules, List<Job> order, Job w, long now) {
        AllocationPolicy policy = policies.get();
        Plan plan = policy.schedule(state, now);
        boolean starts = false;
        List<String> preempts = new ArrayList<>();
        for (Decision d : plan.decisions()) {
            if (d instanceof Decision.Start s && s.job() == w) {
                starts = true;
            } else if (d instanceof Decision.Preempt p && w.id().equals(p.cause().preemptorId())) {
                preempts.add(p.job().id());
            }
        }
        if (starts) {
            preempts.sort(null);
            return new WaitsFor.StartsNow(preempts);
        }
        java.util.Optional<dev.allot.core.policy.allocation.BurstReserve.Hold> held = policy.burstHold(w);
        if (held.isPresent()) {
            var h = held.get();
            return new WaitsFor.BurstReserve(w.gpus(), h.quickGpus(), h.roomGpus(), h.reserve());
        }
        int idle = Placer.usableFree(state.nodes().free(), null);
        if (!w.allocated()) {
            int allocatedWaiting = 0;
            for (int l = 0; l < state.tree().leafCount(); l++) {
                allocatedWaiting += state.pending().count(l, true);
            }
            return new WaitsFor.Unallocated(w.gpus(), idle, allocatedWaiting);
        }
        WaitsFor.Gang gang = gangBlocked(state, rules, w, now);
        long preemptible = takableNow(state, rules, w, now);
        if (idle + preemptible >= w.gpus()) {
            if (gang != null) {
                return gang;
            }
            int ahead = 0;
            long gpusAhead = 0;
            for (Job j : order) {
                if (j == w) {
                    break;
                }
                ahead++;
                gpusAhead += j.gpus();
            }
            return new WaitsFor.HigherRankedWork(w.gpus(), idle, preemptible, ahead, gpusAhead);
        }
        if (gang != null) {
            return gang; // its time counts places, which GPU counts (below) do not
        }
        // work it may take later: once its protection ends and, for a turn, once its run has lasted the shortest turn
        PreemptionRules.Rights rights = rules.rightsOf(w);
        Map<Job, Long> takeableAt = new HashMap<>();
        List<Job> protectedVictims = new ArrayList<>();
        for (int l = 0; l < state.tree().leafCount(); l++) {
            for (Job v : state.running().allocated(l)) {
                long at = PreemptionRules.takeableAtSeconds(rights, v);
                if (at > now) {
                    takeableAt.put(v, at);
                    protectedVictims.add(v);
                }
            }
        }
        protectedVictims.sort(byTime(takeableAt));
        long have = idle + preemptible;
        long later = 0;
        int upTo = -1;
        for (int i = 0; i < protectedVictims.size(); i++) {
            later += protectedVictims.get(i).gpus();
            if (upTo < 0 && have + later >= w.gpus()) {
                upTo = i;
            }
        }
        if (upTo >= 0) {
            long until = takeableAt.get(protectedVictims.get(upTo));
            List<WaitsFor.ProtectedWork> named = new ArrayList<>();
            for (Job v : protectedVictims) {
                long at = takeableAt.get(v);
                if (at > until || named.size() == MAX_NAMED) {
                    break;
                }
                named.add(new WaitsFor.ProtectedWork(v.id(), state.tree().leafName(v.leaf()), v.gpus(), at,
                        at > v.protectedUntilSeconds()));
            }
            return new WaitsFor.ProtectedUntil(until, w.gpus(), idle, preemptible, named);
        }
        return new WaitsFor.Gpus(w.gpus(), idle, preemptible, later);
    }

    /** Jobs by the time each may be taken ({@code takeableAt}), then id. */
    private static Comparator<Job> byTime(Map<Job, Long> takeableAt) {
        return Comparator.comparingLong((Job v) -> takeableAt.get(v)).thenComparing(Job::id);
    }

    /**
     * GPUs of the running jobs {@code w} may preempt now, job by job as the policy's search takes them: within each
     * allocation's budget in victim order, so a job larger than what is left of its allocation's budget does not count
     * (a sum of budgets would count GPUs no single job can be taken for).
     */
    private static long takableNow(ClusterState state, PreemptionRules rules, Job w, long now) {
        List<Job> pool = rules.victimPool(new VictimPool(state.nodes().count()), state, now);
        long gpus = 0;
        for (Job v : rules.candidates(pool, rules.rightsOf(w), v -> false)) {
            gpus += v.gpus();
        }
        return gpus;
    }

    /**
     * For a gang that too few nodes have idle room for now, what it needs, what there is and when enough nodes have
     * room (see {@link WaitsFor.Gang}); otherwise null.
     */
    private static WaitsFor.Gang gangBlocked(ClusterState state, PreemptionRules rules, Job w, long now) {
        if (w.gpusPerNode() == 0) {
            return null;
        }
        int nodes = w.gpus() / w.gpusPerNode();
        int withRoom = Placer.usableNodesWithAtLeast(state.nodes().free(), w.gpusPerNode(), null);
        if (withRoom >= nodes) {
            return null;
        }
        // per node, the earliest time its idle GPUs plus those of the work w may preempt (from its protection end,
        // now if unprotected) make room; the gang has room when the nodes-th earliest node has
        List<long[]> ready = new ArrayList<>(); // {time, node}
        List<List<Job>> freedBy = new ArrayList<>();
        PreemptionRules.Rights rights = rules.rightsOf(w);
        Map<Job, Long> takeableAt = new HashMap<>();
        for (int n = 0; n < state.nodes().count(); n++) {
            if (!state.nodes().free().isSchedulable(n)) {
                continue;
            }
            int have = state.nodes().free().free(n);
            List<Job> victims = new ArrayList<>();
            for (Job v : state.nodes().jobsOn(n)) {
                long at = v.state() == JobState.RUNNING ? PreemptionRules.takeableAtSeconds(rights, v) : -1;
                if (at >= 0) {
                    takeableAt.put(v, at);
                    victims.add(v);
                }
            }
            victims.sort(byTime(takeableAt));
            long at = have >= w.gpusPerNode() ? now : -1;
            List<Job> used = new ArrayList<>();
            for (int i = 0; at < 0 && i < victims.size(); i++) {
                Job v = victims.get(i);
                have += v.placement().gpusOnNode(n);
                used.add(v);
                if (have >= w.gpusPerNode()) {
                    at = takeableAt.get(v);
                }
            }
            if (at >= 0) {
                ready.add(new long[] {at, n});
                freedBy.add(used);
            }
        }
        long roomAt = -1;
        List<WaitsFor.ProtectedWork> named = new ArrayList<>();
        if (ready.size() >= nodes) {
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < ready.size(); i++) {
                order.add(i);
            }
            order.sort(Comparator.comparingLong((Integer i) -> ready.get(i)[0]).thenComparingLong(i -> ready.get(i)[1]));
            roomAt = ready.get(order.get(nodes - 1))[0];
            List<Job> waitedFor = new ArrayList<>();
            for (int k = 0; k < nodes; k++) {
                for (Job v : freedBy.get(order.get(k))) {
                    if (takeableAt.get(v) > now && !waitedFor.contains(v)) {
                        waitedFor.add(v);
                    }
                }
            }
            waitedFor.sort(byTime(takeableAt));
            for (Job v : waitedFor.subList(0, Math.min(MAX_NAMED, waitedFor.size()))) {
                long at = takeableAt.get(v);
                named.add(new WaitsFor.ProtectedWork(v.id(), state.tree().leafName(v.leaf()), v.gpus(), at,
                        at > v.protectedUntilSeconds()));
            }
        }
        return new WaitsFor.Gang(nodes, w.gpusPerNode(), w.gpusPerNode() == state.cluster().maxGpusPerNode(), withRoom,
                roomAt, named);
    }

    private WaitExplanation.Protection protection(ClusterState state, PreemptionRules rules, Job v, long now) {
        List<String> by = new ArrayList<>();
        int count = 0;
        for (Job w : ServingOrder.of(state, policies.get().freshRules(state))) {
            if (w.allocated() && rules.mayPreempt(w, v)) {
                count++;
                if (by.size() < MAX_NAMED) {
                    by.add(w.id());
                }
            }
        }
        List<String> unhealthy = new ArrayList<>();
        dev.allot.core.state.Placement p = v.placement();
        for (int i = 0; p != null && i < p.nodeCount(); i++) {
            if (state.nodes().status(p.node(i)) != dev.allot.core.state.NodeBooks.Status.HEALTHY) {
                unhealthy.add(state.nodes().name(p.node(i)));
            }
        }
        return new WaitExplanation.Protection(v.isProtected(now), v.protectedUntilSeconds(), v.minRuntimeSeconds(),
                count, by, unhealthy, v.spec().resumable());
    }
}
