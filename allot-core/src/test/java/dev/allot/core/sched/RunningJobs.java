package dev.allot.core.sched;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * A shared test fixture for the searches in this package: a state of 8-GPU nodes {@code n1..nK} at time 0, jobs
 * started on one node each (in the order given, which tests use as the policy's preference order), and a fresh
 * cycle over it.
 */
final class RunningJobs {
    final ClusterState state;
    /** The jobs started so far, in the order started. */
    final List<Job> running = new ArrayList<>();

    RunningJobs(int nodes, AllocationTree tree) {
        List<NodeSpec> specs = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            specs.add(NodeSpec.of("n" + i, 8));
        }
        state = new ClusterState(new ClusterSpec(specs, List.of()), tree, SchedulerConfig.defaults(), 0);
    }

    /** Three 8-GPU nodes and one allocation A. */
    static RunningJobs threeNodes() {
        return new RunningJobs(3, AllocationTree.builder("lab").leaf("A", 1).build());
    }

    /** Starts {@code id} of {@code allocation} with {@code gpus} on node index {@code node} at time 0. */
    Job run(String id, String allocation, int node, int gpus) {
        Job j = state.register(WorkloadSpec.builder(id).allocation(allocation).gpus(gpus).build());
        state.submit(j, 0);
        state.start(j, new Placement(new int[] {node}, new int[] {gpus}), 0);
        running.add(j);
        return j;
    }

    Job run(String id, int node, int gpus) {
        return run(id, "A", node, gpus);
    }

    /** A new cycle at time 0. */
    CycleWork work() {
        CycleWork w = new CycleWork(state);
        w.begin(0);
        return w;
    }

    static List<String> ids(List<Job> jobs) {
        return jobs == null ? null : jobs.stream().map(Job::id).toList();
    }
}
