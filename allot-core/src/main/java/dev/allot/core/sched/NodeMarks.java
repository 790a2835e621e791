package dev.allot.core.sched;

/**
 * A reusable map from node index to a small int, cleared in O(1) by bumping a stamp. Lets per-search bookkeeping
 * touch only the nodes a search visits, without allocating or boxing.
 */
public final class NodeMarks {
    private final int[] stamp;
    private final int[] value;
    private int current = 1;

    public NodeMarks(int nodes) {
        this.stamp = new int[nodes];
        this.value = new int[nodes];
    }

    /** Forgets every mark. */
    public void clear() {
        current++;
        if (current == Integer.MAX_VALUE) {
            java.util.Arrays.fill(stamp, 0);
            current = 1;
        }
    }

    /** The value marked for a node since the last {@link #clear}, or -1. */
    public int get(int node) {
        return stamp[node] == current ? value[node] : -1;
    }

    public void put(int node, int v) {
        stamp[node] = current;
        value[node] = v;
    }
}
