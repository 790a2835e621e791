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
        int[] order = new int[nodes.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Integer[] boxed = Arrays.stream(order).boxed().toArray(Integer[]::new);
        Arrays.sort(boxed, (a, b) -> Integer.compare(nodes[a], nodes[b]));
        this.nodes = new int[nodes.length];
        this.gpus = new int[nodes.length];
        int total = 0;
        for (int i = 0; i < boxed.length; i++) {
            this.nodes[i] = nodes[boxed[i]];
            this.gpus[i] = gpus[boxed[i]];
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
