package dev.allot.sim.check;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.sim.SimulationListener;
import java.util.HashMap;
import java.util.Map;

/**
 * The scheduling rules checked from the checker's own books: it hears the run's events (submissions, starts,
 * preemptions, completions, promotions, health changes) and keeps who runs where, since when, under which contract,
 * and what each allocation was charged, without asking the state or the policy anything. A policy (or a state) that
 * breaks a rule stops the run with an {@link InvariantViolation} naming the workloads, the time and the numbers.
 *
 * <p>For every policy:
 * <ul>
 *   <li><b>No GPU given twice</b>: a start never makes the GPUs its running jobs hold on a node exceed the node's
 *   capacity, and never starts work that runs already.</li>
 *   <li>A preemption or completion is of work that runs.</li>
 * </ul>
 * For the {@code allocation} policy ({@link #forAllocationPolicy}), its contract and rights as {@code docs/policy.md}
 * states them:
 * <ul>
 *   <li><b>Protection honoured</b>: allocated work is never preempted, nor drained, before its attempt start (or its
 *   promotion) plus its minimum runtime as declared in its spec and capped at {@code max-min-runtime} (for work a
 *   campaign promoted, the contract the promotion gave it, as the job holds it: a promotion event carries none).</li>
 *   <li><b>Unallocated work never preempts</b>: the preemptor of every preemption but a drain is waiting work whose
 *   minimum runtime is above zero. (A workload restarted by its own campaign names itself: that is no preemptor.)</li>
 *   <li>A drain is of work on an unhealthy node.</li>
 *   <li>Inside one allocation only strictly higher-priority work preempts.</li>
 *   <li><b>Between allocations</b>, allocated work of {@code P} preempts allocated work of {@code V} only when
 *   {@code P} ranks above {@code V} where their paths part on usage over the lookback window, recounted by
 *   {@link RecountedUsage}; with {@code ranking=entitlement} also when {@code P} is owed (holds fewer allocated GPUs
 *   than its quota, entitlement x healthy GPUs) and {@code V} still holds at least its quota after losing the victim
 *   (a reclaim goes down to the quota and no further).</li>
 * </ul>
 * The between-allocations rule is the necessary condition common to the policy's three rights (reclaim, taking turns,
 * starving work), not each right in full: the reclaim margin, the "no further above its share" of taking turns and
 * the starvation limit each only narrow a right this check already grants, and recounting them would copy the
 * policy's budget arithmetic (victim by victim within a search) rather than check a rule. What is checked is exact:
 * the usage, the holdings and the quotas are recounted from the events, with the policy's tie rule (equal ratios rank
 * nobody above).
 */
public final class PolicyRulesCheck implements SimulationListener {
    /** A running attempt as the books keep it. */
    private record Run(Job job, Placement placement, long startSeconds, boolean allocated, long protectedUntilSeconds) {
    }

    private final AllocationTree tree;
    private final ClusterSpec cluster;
    private final SchedulerConfig config;
    private final Ranking ranking;
    private final RecountedUsage usage;
    private final Map<String, Job> submitted = new HashMap<>();
    private final Map<String, Long> contractSeconds = new HashMap<>();
    private final Map<String, Run> running = new HashMap<>();
    private final Map<String, Integer> nodeIndex = new HashMap<>();
    private final int[] heldOnNode;
    private final boolean[] unhealthy;
    private final long[] heldAllocatedGpus;
    /** Allocated GPUs of starts that wait for a stop: the policy counts them as its allocations' holdings. */
    private final long[] waitingAllocatedGpus;
    private final Map<String, Job> waiting = new HashMap<>();

    private PolicyRulesCheck(ClusterSpec cluster, AllocationTree tree, SchedulerConfig config, Ranking ranking) {
        this.cluster = cluster;
        this.tree = tree;
        this.config = config;
        this.ranking = ranking;
        this.usage = new RecountedUsage(tree, cluster.totalGpus(), config);
        this.heldOnNode = new int[cluster.nodes().size()];
        this.unhealthy = new boolean[cluster.nodes().size()];
        this.heldAllocatedGpus = new long[tree.leafCount()];
        this.waitingAllocatedGpus = new long[tree.leafCount()];
        for (int n = 0; n < cluster.nodes().size(); n++) {
            nodeIndex.put(cluster.nodes().get(n).name(), n);
        }
    }

    /** The rules every policy keeps: no GPU given twice, only running work preempted or completed. */
    public static PolicyRulesCheck forAnyPolicy(ClusterSpec cluster, AllocationTree tree, SchedulerConfig config) {
        return new PolicyRulesCheck(cluster, tree, config, null);
    }

    /** Those and the {@code allocation} policy's contract and rights, under its {@code ranking} setting. */
    public static PolicyRulesCheck forAllocationPolicy(ClusterSpec cluster, AllocationTree tree, SchedulerConfig config,
                                                       Ranking ranking) {
        return new PolicyRulesCheck(cluster, tree, config, java.util.Objects.requireNonNull(ranking, "ranking"));
    }

    @Override
    public void onSubmit(long time, Job job) {
        submitted.put(job.id(), job);
        long declared = job.spec().minRuntime().getSeconds();
        contractSeconds.put(job.id(), Math.min(declared, config.maxMinRuntime().getSeconds()));
    }

    @Override
    public void onWaitingStart(long time, Job job, Placement placement) {
        waiting.put(job.id(), job);
        long contract = contractSeconds.getOrDefault(job.id(), 0L);
        if (contract > 0) {
            waitingAllocatedGpus[job.leaf()] += job.gpus();
            usage.waiting(job.id(), job.leaf(), job.gpus(), contract);
        }
    }

    @Override
    public void onWithdrawnStart(long time, Job job) {
        stopWaiting(job);
    }

    private void stopWaiting(Job job) {
        if (waiting.remove(job.id()) != null && contractSeconds.getOrDefault(job.id(), 0L) > 0) {
            waitingAllocatedGpus[job.leaf()] -= job.gpus();
        }
        usage.stopWaiting(job.id());
    }

    /** The allocated GPUs a leaf holds, as the policy counts them: launched, and started but waiting for a stop. */
    private long holds(int leaf) {
        return heldAllocatedGpus[leaf] + waitingAllocatedGpus[leaf];
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        stopWaiting(job);
        if (running.containsKey(job.id())) {
            throw new InvariantViolation(time, "starts " + job.id() + " which runs already (since "
                    + running.get(job.id()).startSeconds() + ")");
        }
        for (int i = 0; i < placement.nodeCount(); i++) {
            int n = placement.node(i);
            int capacity = cluster.nodes().get(n).gpus();
            if (heldOnNode[n] + placement.gpusOn(i) > capacity) {
                throw new InvariantViolation(time, "a GPU given twice: " + job.id() + " starts with "
                        + placement.gpusOn(i) + " GPUs on " + cluster.nodes().get(n).name() + ", where running work holds "
                        + heldOnNode[n] + " of its " + capacity + " (" + holdersOf(n) + ")");
            }
        }
        for (int i = 0; i < placement.nodeCount(); i++) {
            heldOnNode[placement.node(i)] += placement.gpusOn(i);
        }
        long contract = contractSeconds.getOrDefault(job.id(), 0L);
        Run run = new Run(job, placement, time, contract > 0, time + contract);
        running.put(job.id(), run);
        if (run.allocated()) {
            charge(run, time);
        }
    }

    @Override
    public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause,
                          ClusterState.PreemptionResult result) {
        Run victim = running.get(job.id());
        if (victim == null) {
            throw new InvariantViolation(time, "preempts " + job.id() + " which is not running (" + describe(cause) + ")");
        }
        if (ranking != null) {
            checkAllocationRules(time, victim, cause);
        }
        end(victim, time);
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        Run run = running.get(job.id());
        if (run == null) {
            throw new InvariantViolation(time, job.id() + " completes but is not running");
        }
        end(run, time);
    }

    @Override
    public void onPromote(long time, Job job) {
        contractSeconds.put(job.id(), job.minRuntimeSeconds());
        Run run = running.get(job.id());
        if (run != null && !run.allocated()) {
            Run promoted = new Run(job, run.placement(), time, true, time + job.minRuntimeSeconds());
            running.put(job.id(), promoted);
            charge(promoted, time);
        }
    }

    @Override
    public void onDemote(long time, Job job) {
        contractSeconds.put(job.id(), 0L);
    }

    @Override
    public void onHealth(long time, String node, boolean healthy) {
        Integer n = nodeIndex.get(node);
        if (n == null) {
            throw new InvariantViolation(time, "health of unknown node " + node);
        }
        unhealthy[n] = !healthy;
    }

    /** Allocated GPUs a leaf runs by the books. */
    public long heldAllocatedGpus(int leaf) {
        return heldAllocatedGpus[leaf];
    }

    /** Each leaf's usage at {@code now} by the books: charged inside the lookback window plus committed. */
    public long[] usageGpuSeconds(long now) {
        return usage.leafUsage(now);
    }

    private void checkAllocationRules(long now, Run victim, PreemptionCause cause) {
        Job v = victim.job();
        if (victim.allocated() && now < victim.protectedUntilSeconds()) {
            throw new InvariantViolation(now, "preempts protected workload " + v.id() + ": its attempt began at "
                    + victim.startSeconds() + " with a minimum runtime of " + (victim.protectedUntilSeconds()
                    - victim.startSeconds()) + " s, protected until " + victim.protectedUntilSeconds() + " ("
                    + describe(cause) + ")");
        }
        if (cause.kind() == PreemptionCause.Kind.HOST_DRAIN) {
            for (int i = 0; i < victim.placement().nodeCount(); i++) {
                if (unhealthy[victim.placement().node(i)]) {
                    return;
                }
            }
            throw new InvariantViolation(now, "drain of " + v.id() + " whose nodes are all healthy");
        }
        String pid = cause.preemptorId();
        if (v.id().equals(pid)) {
            return; // restarted by its own campaign, past any protection: no preemptor's rights involved
        }
        Job p = pid == null ? null : submitted.get(pid);
        if (p == null) {
            throw new InvariantViolation(now, v.id() + " is preempted for " + pid + ", which was never submitted ("
                    + describe(cause) + ")");
        }
        if (running.containsKey(pid)) {
            throw new InvariantViolation(now, v.id() + " is preempted for " + pid + ", which runs already");
        }
        if (contractSeconds.getOrDefault(pid, 0L) == 0) {
            throw new InvariantViolation(now, "unallocated work " + pid + " preempts " + v.id()
                    + ": unallocated work (minimum runtime 0) never preempts (" + describe(cause) + ")");
        }
        if (!victim.allocated()) {
            return; // unallocated work is preemptible by any allocated work
        }
        if (p.leaf() == v.leaf()) {
            if (p.spec().priority().ordinal() <= v.spec().priority().ordinal()) {
                throw new InvariantViolation(now, pid + " (" + p.spec().priority().label() + ") preempts " + v.id() + " ("
                        + v.spec().priority().label() + ") of the same allocation " + tree.leafName(v.leaf())
                        + ": only strictly higher-priority work may");
            }
            return;
        }
        RecountedUsage.Parting parting = usage.parting(p.leaf(), v.leaf(), now);
        if (parting.aAbove()) {
            return;
        }
        String who = pid + " of " + tree.leafName(p.leaf()) + " preempts " + v.id() + " of " + tree.leafName(v.leaf());
        if (ranking == Ranking.LOOKBACK) {
            throw new InvariantViolation(now, who + " without ranking above it on the lookback window: " + parting);
        }
        double healthyGpus = healthyGpus();
        double pQuota = tree.leafEntitlement(p.leaf()) * healthyGpus;
        if (holds(p.leaf()) >= pQuota) {
            throw new InvariantViolation(now, who + " although " + tree.leafName(p.leaf()) + " is not owed (holds "
                    + holds(p.leaf()) + " allocated GPUs of its quota of " + pQuota
                    + ") and does not rank above: " + parting);
        }
        double vQuota = tree.leafEntitlement(v.leaf()) * healthyGpus;
        long vAfter = holds(v.leaf()) - victim.job().gpus();
        if (vAfter < vQuota - 1e-9) {
            throw new InvariantViolation(now, who + ", leaving " + tree.leafName(v.leaf()) + " " + vAfter
                    + " allocated GPUs, below its quota of " + vQuota + ": " + tree.leafName(p.leaf())
                    + " is owed but does not rank above it, so it may reclaim down to the quota and no further ("
                    + parting + ")");
        }
    }

    private long healthyGpus() {
        long g = 0;
        for (int n = 0; n < heldOnNode.length; n++) {
            if (!unhealthy[n]) {
                g += cluster.nodes().get(n).gpus();
            }
        }
        return g;
    }

    private void charge(Run run, long time) {
        heldAllocatedGpus[run.job().leaf()] += run.job().gpus();
        usage.open(run.job().id(), run.job().leaf(), run.job().gpus(), time, run.protectedUntilSeconds());
    }

    private void end(Run run, long time) {
        running.remove(run.job().id());
        for (int i = 0; i < run.placement().nodeCount(); i++) {
            heldOnNode[run.placement().node(i)] -= run.placement().gpusOn(i);
        }
        if (run.allocated()) {
            heldAllocatedGpus[run.job().leaf()] -= run.job().gpus();
            usage.close(run.job().id(), time);
        }
    }

    private String holdersOf(int node) {
        StringBuilder sb = new StringBuilder();
        running.values().stream().filter(r -> r.placement().gpusOnNode(node) > 0)
                .map(r -> r.job().id() + " " + r.placement().gpusOnNode(node)).sorted()
                .forEach(s -> sb.append(sb.length() == 0 ? "" : ", ").append(s));
        return sb.length() == 0 ? "none" : sb.toString();
    }

    private static String describe(PreemptionCause cause) {
        return cause.kind() + (cause.preemptorId() == null ? "" : " for " + cause.preemptorId()) + ": "
                + cause.explanation();
    }
}
