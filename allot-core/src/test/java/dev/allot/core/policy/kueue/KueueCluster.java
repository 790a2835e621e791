package dev.allot.core.policy.kueue;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.DecisionLoop;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.sched.Placer;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The production {@link KueuePolicy} on a {@link ClusterState}, for the golden tests: a given state (workloads
 * already admitted, one second apart so that Kueue's "admitted more recently" is defined, and workloads waiting), then
 * decision instants carried out as the simulator carries them out ({@link DecisionLoop}, evicted work requeued). It
 * decides nothing itself: which workloads are admitted, in what order, and which are evicted are the policy's.
 */
final class KueueCluster {
    private final ClusterState state;
    private final KueuePolicy policy;
    private final List<Decision> decided = new ArrayList<>();
    private long now;

    private KueueCluster(ClusterState state, KueuePolicy policy) {
        this.state = state;
        this.policy = policy;
    }

    /** {@code nodes} nodes of {@code gpusPerNode} GPUs under the default policy (Kueue's defaults). */
    static KueueCluster of(AllocationTree tree, int nodes, int gpusPerNode) {
        return of(tree, nodes, gpusPerNode, KueuePolicy.withDefaults());
    }

    static KueueCluster of(AllocationTree tree, int nodes, int gpusPerNode, KueuePolicy policy) {
        List<NodeSpec> specs = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            specs.add(NodeSpec.of("n" + (i + 1), gpusPerNode));
        }
        return new KueueCluster(new ClusterState(new ClusterSpec(specs, List.of()), tree, SchedulerConfig.defaults(), 0),
                policy);
    }

    /** A flat cohort: one allocation per ClusterQueue with this nominal quota, on one node holding them all. */
    static KueueCluster flat(String[] names, int[] nominalGpus) {
        AllocationTree.Builder b = AllocationTree.builder("cohort");
        int total = 0;
        for (int i = 0; i < names.length; i++) {
            b.leaf(names[i], nominalGpus[i]);
            total += nominalGpus[i];
        }
        return of(b.build(), 1, total);
    }

    /** An allocated workload admitted now (it starts wherever the nodes have room); the clock then moves a second. */
    KueueCluster admitted(String id, String allocation, int gpus, Priority priority) {
        return admitted(id, allocation, gpus, priority, true);
    }

    /** Unallocated work (minimum runtime 0: Kueue's best-effort ClusterQueue) admitted now. */
    KueueCluster admittedUnallocated(String id, String allocation, int gpus, Priority priority) {
        return admitted(id, allocation, gpus, priority, false);
    }

    private KueueCluster admitted(String id, String allocation, int gpus, Priority priority, boolean allocated) {
        Job j = register(id, allocation, gpus, priority, allocated);
        state.submit(j, now);
        Placement p = Placer.find(state.nodes().free(), gpus, 0, null);
        if (p == null) {
            throw new IllegalStateException("the given state does not fit: no room for " + id);
        }
        state.start(j, p, now);
        now++;
        return this;
    }

    /** An allocated workload that waits from now. */
    KueueCluster waiting(String id, String allocation, int gpus, Priority priority) {
        state.submit(register(id, allocation, gpus, priority, true), now);
        return this;
    }

    /** Unallocated work that waits from now. */
    KueueCluster waitingUnallocated(String id, String allocation, int gpus, Priority priority) {
        state.submit(register(id, allocation, gpus, priority, false), now);
        return this;
    }

    private Job register(String id, String allocation, int gpus, Priority priority, boolean allocated) {
        return state.register(WorkloadSpec.builder(id).allocation(allocation).gpus(gpus).priority(priority)
                .minRuntime(allocated ? Duration.ofHours(1) : Duration.ZERO).duration(Duration.ofDays(1))
                .notResumable().submitAt(now).build());
    }

    /**
     * One decision instant now, carried out in the plan's order (an evicted workload is requeued to start over, as
     * Kueue requeues it); returns the decisions of every round of the instant as "preempt ID" and "start ID".
     */
    List<String> decide() {
        long at = now;
        state.advanceTo(at);
        List<Decision> these = new ArrayList<>();
        DecisionLoop.decide(policy, state, at, d -> {
            these.add(d);
            if (d instanceof Decision.Preempt p) {
                return state.preempt(p.job(), at, policy.restartsWorkThatCannotResume()).requeued();
            }
            Decision.Start s = (Decision.Start) d;
            state.start(s.job(), s.placement(), at);
            return false;
        });
        decided.addAll(these);
        now++;
        return these.stream().map(d -> (d instanceof Decision.Preempt ? "preempt " : "start ") + d.job().id()).toList();
    }

    /** Why the policy evicted this workload (its last eviction). */
    PreemptionCause causeOf(String victimId) {
        PreemptionCause cause = null;
        for (Decision d : decided) {
            if (d instanceof Decision.Preempt p && p.job().id().equals(victimId)) {
                cause = p.cause();
            }
        }
        if (cause == null) {
            throw new AssertionError(victimId + " was not preempted");
        }
        return cause;
    }

    /** GPUs the running workloads of an allocation use (its ClusterQueue's usage, for allocated work). */
    long runningGpus(String allocation) {
        long sum = 0;
        for (Job j : state.jobs()) {
            if (j.state() == JobState.RUNNING && j.allocated() && j.spec().allocation().equals(allocation)) {
                sum += j.gpus();
            }
        }
        return sum;
    }

    JobState stateOf(String id) {
        return state.job(id).orElseThrow().state();
    }

    ClusterState state() {
        return state;
    }
}
