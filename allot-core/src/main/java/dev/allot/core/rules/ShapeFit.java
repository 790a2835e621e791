package dev.allot.core.rules;

import dev.allot.core.model.ClusterSpec;
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
        String has = count(cluster.totalGpus(), "GPU") + " on " + count(cluster.nodes().size(), "node");
        if (gpusPerNode <= 0) {
            return Optional.of(new Violation(WorkloadRules.GPUS, "at most " + count(cluster.totalGpus(), "GPU")
                    + " (the cluster has " + has + ")", Integer.toString(gpus)));
        }
        int nodes = cluster.nodesWithAtLeast(gpusPerNode);
        int asked = gpus / gpusPerNode;
        return Optional.of(new Violation(WorkloadRules.GPUS_PER_NODE, "a shape the cluster can hold: it has "
                + count(nodes, "node") + " with at least " + count(gpusPerNode, "GPU") + " (" + has + " in all, at most "
                + count(cluster.maxGpusPerNode(), "GPU") + " per node)",
                count(asked, "node") + " x " + count(gpusPerNode, "GPU")));
    }

    /** {@code 1 node}, {@code 2 nodes}: a count with its noun, plural unless one. */
    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** How a shape is said in messages: "8 GPUs", or "16 GPUs as 2 whole node(s) of 8". */
    public static String describe(int gpus, int gpusPerNode) {
        if (gpusPerNode <= 0) {
            return gpus + " GPUs";
        }
        return gpus + " GPUs as " + (gpus / gpusPerNode) + " whole node(s) of " + gpusPerNode;
    }
}
