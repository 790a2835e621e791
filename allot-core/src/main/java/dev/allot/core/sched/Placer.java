package dev.allot.core.sched;

import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Placement;
import java.util.BitSet;
import java.util.function.IntToLongFunction;

/**
 * Chooses GPUs for a workload on a free-GPU index. Shared by every policy: placement is mechanism, not policy.
 *
 * <ul>
 *   <li><b>Gang</b> ({@code gpusPerNode > 0}): {@code gpus / gpusPerNode} distinct nodes with that many free GPUs
 *   each, all or nothing. Best fit: nodes with the fewest free GPUs that suffice, then the lowest index, so whole
 *   free nodes stay whole for the next gang.</li>
 *   <li><b>Any packing</b>: one node if any has room (best fit again); otherwise the fewest nodes, taking the
 *   emptiest nodes first and finishing on the best-fitting one.</li>
 * </ul>
 * Nodes in {@code excluded} (a reservation) are not used. Ties always break on the lowest node index.
 */
public final class Placer {
    private Placer() {
    }

    /** A placement, or null when the workload does not fit now. */
    public static Placement find(FreeIndex f, int gpus, int gpusPerNode, BitSet excluded) {
        return gpusPerNode > 0 ? findGang(f, gpus / gpusPerNode, gpusPerNode, excluded) : findAny(f, gpus, excluded);
    }

    /**
     * One node with {@code gpus} free outside {@code excluded}, the one of lowest {@code nodeCost} (the policy's
     * price of starting there, at least 0), then best fit, then the lowest index; null when no single node has room.
     */
    public static Placement findOnOneNode(FreeIndex f, int gpus, BitSet excluded, IntToLongFunction nodeCost) {
        if (gpus > f.maxGpusPerNode()) {
            return null;
        }
        int best = -1;
        long bestCost = 0;
        for (int k = gpus; k <= f.maxGpusPerNode(); k++) { // by free GPUs, fewest first: best fit breaks ties
            for (int n = f.nextNodeWithFree(k, 0); n >= 0; n = f.nextNodeWithFree(k, n + 1)) {
                if (excluded != null && excluded.get(n)) {
                    continue;
                }
                long cost = nodeCost.applyAsLong(n);
                if (best < 0 || cost < bestCost) {
                    best = n;
                    bestCost = cost;
                    if (cost <= 0) {
                        return new Placement(new int[] {best}, new int[] {gpus}); // nothing later beats it
                    }
                }
            }
        }
        return best < 0 ? null : new Placement(new int[] {best}, new int[] {gpus});
    }

    /** Free GPUs on schedulable nodes outside {@code excluded}. */
    public static int usableFree(FreeIndex f, BitSet excluded) {
        int avail = f.totalFree();
        if (excluded != null) {
            for (int n = excluded.nextSetBit(0); n >= 0; n = excluded.nextSetBit(n + 1)) {
                if (f.isSchedulable(n)) {
                    avail -= f.free(n);
                }
            }
        }
        return avail;
    }

    /** Schedulable nodes outside {@code excluded} with at least {@code perNode} free GPUs. */
    public static int usableNodesWithAtLeast(FreeIndex f, int perNode, BitSet excluded) {
        if (excluded == null) {
            return f.nodesWithAtLeast(perNode);
        }
        int count = f.nodesWithAtLeast(perNode);
        for (int n = excluded.nextSetBit(0); n >= 0; n = excluded.nextSetBit(n + 1)) {
            if (n < f.nodeCount() && f.isSchedulable(n) && f.free(n) >= perNode) {
                count--;
            }
        }
        return count;
    }

    /** Whether a workload of this shape fits now. */
    public static boolean fits(FreeIndex f, int gpus, int gpusPerNode, BitSet excluded) {
        if (gpusPerNode > 0) {
            return usableNodesWithAtLeast(f, gpusPerNode, excluded) >= gpus / gpusPerNode;
        }
        return usableFree(f, excluded) >= gpus;
    }

    private static int firstAllowed(FreeIndex f, int k, BitSet excluded, BitSet taken) {
        for (int n = f.nextNodeWithFree(k, 0); n >= 0; n = f.nextNodeWithFree(k, n + 1)) {
            if ((excluded == null || !excluded.get(n)) && (taken == null || !taken.get(n))) {
                return n;
            }
        }
        return -1;
    }

    private static Placement findGang(FreeIndex f, int count, int perNode, BitSet excluded) {
        if (perNode > f.maxGpusPerNode()) {
            return null;
        }
        if (excluded == null && f.nodesWithAtLeast(perNode) < count) {
            return null;
        }
        int[] nodes = new int[count];
        int found = 0;
        for (int k = perNode; k <= f.maxGpusPerNode() && found < count; k++) {
            for (int n = f.nextNodeWithFree(k, 0); n >= 0 && found < count; n = f.nextNodeWithFree(k, n + 1)) {
                if (excluded == null || !excluded.get(n)) {
                    nodes[found++] = n;
                }
            }
        }
        if (found < count) {
            return null;
        }
        int[] gpus = new int[count];
        java.util.Arrays.fill(gpus, perNode);
        return new Placement(nodes, gpus);
    }

    private static Placement findAny(FreeIndex f, int gpus, BitSet excluded) {
        if (usableFree(f, excluded) < gpus) {
            return null;
        }
        int max = f.maxGpusPerNode();
        for (int k = gpus; k <= max; k++) {
            int n = firstAllowed(f, k, excluded, null);
            if (n >= 0) {
                return new Placement(new int[] {n}, new int[] {gpus});
            }
        }
        // Spread: emptiest nodes first, finish on the best fit for the remainder.
        BitSet taken = new BitSet();
        int[] nodes = new int[16];
        int[] take = new int[16];
        int used = 0;
        int remaining = gpus;
        while (remaining > 0) {
            int chosen = -1;
            int amount = 0;
            for (int k = Math.max(remaining, 1); k <= max && chosen < 0; k++) {
                int n = firstAllowed(f, k, excluded, taken);
                if (n >= 0) {
                    chosen = n;
                    amount = remaining;
                }
            }
            for (int k = Math.min(max, remaining - 1); k >= 1 && chosen < 0; k--) {
                int n = firstAllowed(f, k, excluded, taken);
                if (n >= 0) {
                    chosen = n;
                    amount = k;
                }
            }
            if (chosen < 0) {
                return null;
            }
            if (used == nodes.length) {
                nodes = java.util.Arrays.copyOf(nodes, used * 2);
                take = java.util.Arrays.copyOf(take, used * 2);
            }
            nodes[used] = chosen;
            take[used] = amount;
            used++;
            taken.set(chosen);
            remaining -= amount;
        }
        return new Placement(java.util.Arrays.copyOf(nodes, used), java.util.Arrays.copyOf(take, used));
    }
}
