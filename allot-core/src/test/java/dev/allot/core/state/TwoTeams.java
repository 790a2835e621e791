package dev.allot.core.state;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import java.util.List;

/**
 * The small cluster the state's tests share: nodes {@code n1} and {@code n2} of 8 GPUs each, and under {@code lab}
 * two leaves {@code A} (index 0) and {@code B} (index 1) of equal share, with the default scheduler settings.
 */
final class TwoTeams {
    private TwoTeams() {
    }

    /** The state at {@code now}, nothing registered. */
    static ClusterState at(long now) {
        ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("n1", 8), NodeSpec.of("n2", 8)), List.of());
        AllocationTree tree = AllocationTree.builder("lab").leaf("A", 1).leaf("B", 1).build();
        return new ClusterState(cluster, tree, SchedulerConfig.defaults(), now);
    }

    /** The state at time 0. */
    static ClusterState state() {
        return at(0);
    }

    /** {@code gpus} GPUs on node index {@code node}. */
    static Placement on(int node, int gpus) {
        return new Placement(new int[] {node}, new int[] {gpus});
    }
}
