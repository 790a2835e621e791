package dev.allot.core.state;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which nodes could be wholly freed by preemption right now, grouped by who would have to be preempted.
 *
 * <p>Kept for healthy nodes of the largest size that run nothing protected: each is filed under the set of
 * allocations (leaves) whose running allocated jobs it holds (empty when it is free or runs only unallocated work).
 * A policy asking "how many nodes could a whole-node gang of allocation A get" sums the counts of the sets A may
 * preempt, which costs the number of distinct sets (a few dozen) instead of the number of nodes. Updated by
 * {@link ClusterState} on every start, stop, protection end and health change; the sum never depends on map order.
 */
public final class WholeNodeIndex {
    private final int wholeNodeGpus;
    private final BitSet[] keyOf;
    private final Map<BitSet, int[]> counts = new HashMap<>();

    WholeNodeIndex(int nodes, int wholeNodeGpus) {
        this.wholeNodeGpus = wholeNodeGpus;
        this.keyOf = new BitSet[nodes];
    }

    /** Re-files a node after a change; {@code eligible} false removes it. */
    void update(int node, boolean eligible, List<Job> jobs) {
        BitSet old = keyOf[node];
        if (old != null) {
            int[] c = counts.get(old);
            if (--c[0] == 0) {
                counts.remove(old);
            }
            keyOf[node] = null;
        }
        if (!eligible) {
            return;
        }
        BitSet key = new BitSet();
        for (int i = 0; i < jobs.size(); i++) {
            Job j = jobs.get(i);
            if (j.allocated()) {
                key.set(j.leaf());
            }
        }
        keyOf[node] = key;
        counts.computeIfAbsent(key, k -> new int[1])[0]++;
    }

    /** GPUs per node of the nodes this index tracks: gangs of exactly this many GPUs per node. */
    public int wholeNodeGpus() {
        return wholeNodeGpus;
    }

    /** Whether the node is filed here, i.e. healthy, of the largest size and running nothing protected. */
    public boolean contains(int node) {
        return keyOf[node] != null;
    }

    /** Whether the node is filed here and every allocation on it is allowed. */
    public boolean allows(int node, boolean[] allowedLeaves) {
        BitSet key = keyOf[node];
        return key != null && subset(key, allowedLeaves);
    }

    /** How many filed nodes hold only allocations in {@code allowedLeaves}. */
    public int countAllowed(boolean[] allowedLeaves) {
        int n = 0;
        for (Map.Entry<BitSet, int[]> e : counts.entrySet()) {
            if (subset(e.getKey(), allowedLeaves)) {
                n += e.getValue()[0];
            }
        }
        return n;
    }

    private static boolean subset(BitSet key, boolean[] allowed) {
        for (int b = key.nextSetBit(0); b >= 0; b = key.nextSetBit(b + 1)) {
            if (!allowed[b]) {
                return false;
            }
        }
        return true;
    }
}
