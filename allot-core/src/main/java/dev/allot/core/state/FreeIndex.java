package dev.allot.core.state;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Free GPUs per node, indexed by how many are free, for the nodes that take new work (healthy ones).
 *
 * <p>{@code byFree[k]} holds the schedulable nodes with exactly {@code k} free GPUs, so "is there a node with at
 * least p free" and "give me the lowest-numbered such node" cost O(max GPUs per node) rather than O(nodes).
 * Copying an index is a few array copies; a scheduling cycle works on its own copy and throws it away.
 */
public final class FreeIndex {
    private final int maxGpus;
    private final int[] capacity;
    private final int[] free;
    private final boolean[] schedulable;
    private final BitSet[] byFree;
    private int totalFree;

    public FreeIndex(int[] capacity) {
        this.capacity = capacity.clone();
        int max = 0;
        for (int c : capacity) {
            max = Math.max(max, c);
        }
        this.maxGpus = max;
        this.free = capacity.clone();
        this.schedulable = new boolean[capacity.length];
        this.byFree = new BitSet[max + 1];
        for (int k = 0; k <= max; k++) {
            byFree[k] = new BitSet(capacity.length);
        }
        for (int n = 0; n < capacity.length; n++) {
            schedulable[n] = true;
            byFree[free[n]].set(n);
            totalFree += free[n];
        }
    }

    /** A copy that can be changed freely. */
    public FreeIndex copy() {
        FreeIndex c = new FreeIndex(capacity);
        c.copyFrom(this);
        return c;
    }

    /** Makes this index equal to {@code other} (same cluster), reusing this index's arrays. */
    public void copyFrom(FreeIndex other) {
        System.arraycopy(other.free, 0, free, 0, free.length);
        System.arraycopy(other.schedulable, 0, schedulable, 0, schedulable.length);
        for (int k = 0; k <= maxGpus; k++) {
            byFree[k].clear();
            byFree[k].or(other.byFree[k]);
        }
        totalFree = other.totalFree;
    }

    /**
     * Whether this index holds what {@code other} holds (same capacities, free GPUs and schedulable nodes), so that
     * every question asked of one gets the same answer from the other.
     */
    public boolean sameAs(FreeIndex other) {
        return totalFree == other.totalFree && Arrays.equals(free, other.free)
                && Arrays.equals(schedulable, other.schedulable) && Arrays.equals(capacity, other.capacity);
    }

    public int nodeCount() {
        return capacity.length;
    }

    public int maxGpusPerNode() {
        return maxGpus;
    }

    public int capacity(int node) {
        return capacity[node];
    }

    public int free(int node) {
        return free[node];
    }

    public boolean isSchedulable(int node) {
        return schedulable[node];
    }

    /** Free GPUs on schedulable nodes. */
    public int totalFree() {
        return totalFree;
    }

    /** The lowest schedulable node at or after {@code from} with exactly {@code k} free GPUs, or -1. */
    public int nextNodeWithFree(int k, int from) {
        return byFree[k].nextSetBit(from);
    }

    /** How many schedulable nodes have at least {@code gpus} free. */
    public int nodesWithAtLeast(int gpus) {
        int n = 0;
        for (int k = Math.max(gpus, 0); k <= maxGpus; k++) {
            n += byFree[k].cardinality();
        }
        return n;
    }

    /** Takes GPUs on a node (schedulable or not). */
    public void take(int node, int gpus) {
        set(node, free[node] - gpus);
    }

    /** Gives GPUs back on a node. */
    public void give(int node, int gpus) {
        set(node, free[node] + gpus);
    }

    private void set(int node, int newFree) {
        if (newFree < 0 || newFree > capacity[node]) {
            throw new IllegalStateException("node " + node + " would have " + newFree + " free GPUs of " + capacity[node]);
        }
        if (schedulable[node]) {
            byFree[free[node]].clear(node);
            byFree[newFree].set(node);
            totalFree += newFree - free[node];
        }
        free[node] = newFree;
    }

    /** Takes a node out of service (its free GPUs no longer count) or puts it back. */
    public void setSchedulable(int node, boolean value) {
        if (schedulable[node] == value) {
            return;
        }
        if (value) {
            byFree[free[node]].set(node);
            totalFree += free[node];
        } else {
            byFree[free[node]].clear(node);
            totalFree -= free[node];
        }
        schedulable[node] = value;
    }

    /** Applies a placement (takes its GPUs). */
    public void take(Placement p) {
        for (int i = 0; i < p.nodeCount(); i++) {
            take(p.node(i), p.gpusOn(i));
        }
    }

    /** Undoes a placement (gives its GPUs back). */
    public void give(Placement p) {
        for (int i = 0; i < p.nodeCount(); i++) {
            give(p.node(i), p.gpusOn(i));
        }
    }
}
