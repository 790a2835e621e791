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

    /**
     * Why a waiting workload of this shape cannot run on the cluster as it is now, and what would let it, as sentences
     * for its explanation (the cluster shrank under it: a node's GPUs were set lower or a node was removed); empty when
     * the shape fits. E.g. "It cannot fit the cluster as it is now: it asks for 8 GPUs, and the cluster has 4 GPUs on
     * 1 node (the largest node has 4)." and "It can run once the cluster has 8 GPUs (a node with 8 GPUs, or more
     * nodes), or if it is resubmitted asking for at most 4 GPUs."
     */
    public static Optional<String> whyNotNow(ClusterSpec cluster, int gpus, int gpusPerNode) {
        if (fits(cluster, gpus, gpusPerNode)) {
            return Optional.empty();
        }
        String has = Words.count(cluster.totalGpus(), "GPU") + " on " + Words.count(cluster.nodes().size(), "node")
                + " (the largest node has " + cluster.maxGpusPerNode() + ")";
        if (gpusPerNode <= 0) {
            return Optional.of("It cannot fit the cluster as it is now: it asks for " + Words.count(gpus, "GPU")
                    + ", and the cluster has " + has + ". It can run once the cluster has " + Words.count(gpus, "GPU")
                    + " (a node with " + Words.count(gpus, "GPU") + ", or more nodes), or if it is resubmitted asking"
                    + " for at most " + Words.count(cluster.totalGpus(), "GPU") + ".");
        }
        int asked = gpus / gpusPerNode;
        int nodes = cluster.nodesWithAtLeast(gpusPerNode);
        return Optional.of("It cannot fit the cluster as it is now: it asks for " + describe(gpus, gpusPerNode)
                + ", and the cluster has " + has + ", " + Words.count(nodes, "node") + " with at least "
                + Words.count(gpusPerNode, "GPU") + ". It can run once the cluster has " + Words.count(asked, "node")
                + " with " + Words.count(gpusPerNode, "GPU") + " or more, or if it is resubmitted asking for "
                + (nodes > 0 ? "at most " + Words.count(nodes, "whole node") + " of " + gpusPerNode
                : "at most " + Words.count(cluster.maxGpusPerNode(), "GPU") + " per node") + ".");
    }

    /** How a shape is said in messages: "8 GPUs", or "16 GPUs as 2 whole nodes of 8", "8 GPUs as 1 whole node of 8". */
    public static String describe(int gpus, int gpusPerNode) {
        if (gpusPerNode <= 0) {
            return Words.count(gpus, "GPU");
        }
        return Words.count(gpus, "GPU") + " as " + Words.count(gpus / gpusPerNode, "whole node") + " of " + gpusPerNode;
    }
}
