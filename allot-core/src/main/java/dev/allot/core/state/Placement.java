package dev.allot.core.state;

import java.util.Arrays;

/**
 * Where a workload runs: the nodes (ascending node index) and how many GPUs it holds on each.
 * Immutable; the arrays are never exposed.
 */
public final class Placement {
    private final int[] nodes;
    private final int[] gpus;
    private final int totalGpus;

    public Placement(int[] nodes, int[] gpus) {
        if (nodes.length != gpus.length || nodes.length == 0) {
            throw new IllegalArgumentException("a placement needs one GPU count per node and at least one node");
        }
        this.nodes = nodes.clone();
        this.gpus = gpus.clone();
        sortByNode(this.nodes, this.gpus);
        int total = 0;
        for (int i = 0; i < this.nodes.length; i++) {
            if (this.gpus[i] < 1) {
                throw new IllegalArgumentException("a placement holds at least one GPU on each of its nodes");
            }
            if (i > 0 && this.nodes[i] == this.nodes[i - 1]) {
                throw new IllegalArgumentException("a placement names node " + this.nodes[i] + " twice");
            }
            total += this.gpus[i];
        }
        this.totalGpus = total;
    }

    /** Insertion sort by node, carrying the GPU counts along: placements are short and usually already in order. */
    private static void sortByNode(int[] nodes, int[] gpus) {
        for (int i = 1; i < nodes.length; i++) {
            int n = nodes[i];
            int g = gpus[i];
            int j = i - 1;
            while (j >= 0 && nodes[j] > n) {
                nodes[j + 1] = nodes[j];
                gpus[j + 1] = gpus[j];
                j--;
            }
            nodes[j + 1] = n;
            gpus[j + 1] = g;
        }
    }

    public int nodeCount() {
        return nodes.length;
    }

    public int node(int i) {
        return nodes[i];
    }

    public int gpusOn(int i) {
        return gpus[i];
    }

    /** GPUs held on the given node index, 0 if none. */
    public int gpusOnNode(int node) {
        int i = Arrays.binarySearch(nodes, node);
        return i < 0 ? 0 : gpus[i];
    }

    public int totalGpus() {
        return totalGpus;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Placement p && Arrays.equals(nodes, p.nodes) && Arrays.equals(gpus, p.gpus);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(nodes) + Arrays.hashCode(gpus);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < nodes.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(nodes[i]).append(':').append(gpus[i]);
        }
        return sb.toString();
    }
}
