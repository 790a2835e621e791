package dev.allot.core.explain;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.sched.Placer;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fluent builder for explanation stories: a cluster of equal nodes, teams under a root "lab" (or a tree given
 * whole), then what ran, what runs and what waits, in time order.
 */
final class Story {
    private final List<NodeSpec> nodes = new ArrayList<>();
    private AllocationTree.Builder tree = AllocationTree.builder("lab");
    private AllocationTree built;
    private ClusterState state;
    private long now;

    private Story() {
    }

    /** {@code count} nodes of {@code gpus} GPUs each. */
    static Story given(int count, int gpus) {
        Story s = new Story();
        for (int i = 0; i < count; i++) {
            s.nodes.add(NodeSpec.of("n" + (i + 1), gpus));
        }
        return s;
    }

    /** Teams with equal shares, leaves of the root. */
    Story teams(String... names) {
        for (String n : names) {
            tree.leaf(n, 1);
        }
        return this;
    }

    /** Shapes the tree by hand (the builder is at the root). */
    Story tree(Consumer<AllocationTree.Builder> shape) {
        shape.accept(tree);
        return this;
    }

    ClusterState state() {
        if (state == null) {
            built = tree.build();
            state = new ClusterState(new ClusterSpec(nodes, List.of()), built, SchedulerConfig.defaults(), 0);
        }
        return state;
    }

    /** Moves time to {@code t} seconds. */
    Story at(long t) {
        state().advanceTo(t);
        now = t;
        return this;
    }

    long now() {
        return now;
    }

    /** A job that starts now wherever the placer puts it, protected for {@code minRuntimeSeconds}. */
    Story runs(String id, String team, int gpus, long minRuntimeSeconds) {
        Job j = register(id, team, gpus, 0, minRuntimeSeconds, Priority.NORMAL);
        state().submit(j, now);
        Placement p = Placer.find(state().nodes().free(), gpus, 0, null);
        if (p == null) {
            throw new IllegalStateException(id + " does not fit now");
        }
        state().start(j, p, now);
        return this;
    }

    /** A job that starts now on one named node (0-based). */
    Story runsOn(String id, String team, int node, int gpus, long minRuntimeSeconds) {
        Job j = register(id, team, gpus, 0, minRuntimeSeconds, Priority.NORMAL);
        state().submit(j, now);
        state().start(j, new Placement(new int[] {node}, new int[] {gpus}), now);
        return this;
    }

    /** Preempts a running job now; it goes back to the queue (to start over if it cannot resume). */
    Story preempted(String id) {
        state().preempt(state().job(id).orElseThrow(), now, true);
        return this;
    }

    /** Starts a waiting job again now on one named node (0-based). */
    Story restartsOn(String id, int node) {
        Job j = state().job(id).orElseThrow();
        state().start(j, new Placement(new int[] {node}, new int[] {j.gpus()}), now);
        return this;
    }

    /** Ends a running job now (it completed). */
    /** The node goes unhealthy now (it takes no new work; its work is drained by the policy). */
    Story unhealthy(int node) {
        state().setHealthy(node, false, now);
        return this;
    }

    Story ends(String id) {
        state().complete(state().job(id).orElseThrow(), now);
        return this;
    }

    /** A job that waits from now: allocated with a 1h minimum runtime. */
    Story submits(String id, String team, int gpus) {
        return submits(id, team, gpus, 0, 3600, Priority.NORMAL);
    }

    /** A gang of whole nodes that waits from now. */
    Story submitsGang(String id, String team, int gpus, int gpusPerNode) {
        return submits(id, team, gpus, gpusPerNode, 3600, Priority.NORMAL);
    }

    /** Unallocated work (minimum runtime 0) that waits from now. */
    Story submitsUnallocated(String id, String team, int gpus) {
        return submits(id, team, gpus, 0, 0, Priority.NORMAL);
    }

    Story submits(String id, String team, int gpus, int gpusPerNode, long minRuntimeSeconds, Priority priority) {
        Job j = register(id, team, gpus, gpusPerNode, minRuntimeSeconds, priority);
        state().submit(j, now);
        return this;
    }

    private Job register(String id, String team, int gpus, int gpusPerNode, long minRuntimeSeconds, Priority priority) {
        return state().register(WorkloadSpec.builder(id).allocation(team).gpus(gpus).gpusPerNode(gpusPerNode)
                .minRuntime(Duration.ofSeconds(minRuntimeSeconds)).duration(Duration.ofDays(3)).priority(priority)
                .submitAt(now).build());
    }

    WaitExplanation explain(String id) {
        return explain(id, new WaitExplainer());
    }

    /** Explains with the given explainer (e.g. one whose policy has other settings). */
    WaitExplanation explain(String id, WaitExplainer explainer) {
        return explainer.explain(state(), id, now).orElseThrow();
    }
}
