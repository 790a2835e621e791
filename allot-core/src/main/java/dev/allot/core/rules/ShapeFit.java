package dev.allot.core.rules;

import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.Words;
import java.util.Optional;

/**
 * The one rule for "can this shape ever fit": whether a workload of {@code gpus} GPUs, {@code gpusPerNode} on each
 * node (0 for any packing), could be placed on a cluster's nodes with every node healthy and idle. A shape that never
 * fits would wait forever, so the API refuses it at submission, the simulator's readers refuse the row and the core
 * refuses to register it. The violation is on {@code gpus} for any packing and on {@code gpusPerNode} for a gang.
 */
public final class ShapeFit {
    private ShapeFit() {
    }

    /** Whether the shape could ever be placed on these nodes. */
    public static boolean fits(ClusterSpec cluster, int gpus, int gpusPerNode) {
        if (gpusPerNode <= 0) {
            return gpus <= cluster.totalGpus();
        }
        return gpus / gpusPerNode <= cluster.nodesWithAtLeast(gpusPerNode);
    }

    /** Why the shape can never be placed on these nodes, or empty when it can. */
    public static Optional<Violation> check(ClusterSpec cluster, int gpus, int gpusPerNode) {
        if (fits(cluster, gpus, gpusPerNode)) {
            return Optional.empty();
        }
        String has = Words.count(cluster.totalGpus(), "GPU") + " on " + Words.count(cluster.nodes().size(), "node");
        if (gpusPerNode <= 0) {
            return Optional.of(new Violation(WorkloadRules.GPUS, "at most " + Words.count(cluster.totalGpus(), "GPU")
                    + " (the cluster has " + has + ")", Integer.toString(gpus)));
        }
        int nodes = cluster.nodesWithAtLeast(gpusPerNode);
        int asked = gpus / gpusPerNode;
        return Optional.of(new Violation(WorkloadRules.GPUS_PER_NODE, "a shape the cluster can hold: it has "
                + Words.count(nodes, "node") + " with at least " + Words.count(gpusPerNode, "GPU") + " (" + has
                + " in all, at most " + Words.count(cluster.maxGpusPerNode(), "GPU") + " per node)",
                Words.count(asked, "node") + " x " + Words.count(gpusPerNode, "GPU")));
    }

    /** How a shape is said in messages: "8 GPUs", or "16 GPUs as 2 whole nodes of 8", "8 GPUs as 1 whole node of 8". */
    public static String describe(int gpus, int gpusPerNode) {
        if (gpusPerNode <= 0) {
            return Words.count(gpus, "GPU");
        }
        return Words.count(gpus, "GPU") + " as " + Words.count(gpus / gpusPerNode, "whole node") + " of " + gpusPerNode;
    }
}
