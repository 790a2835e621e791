package dev.allot.core.policy.allocation;

import dev.allot.core.sched.CycleWork;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import java.util.BitSet;
import java.util.List;

/**
 * A quick, safe "no" for whole-node gangs (as many GPUs per node as the node has): how many nodes could at best be
 * wholly freed for a job of the allocation at a given position in the fair-share order.
 *
 * <p>A node can be wholly freed only if nothing on it is protected, nothing was started on it in this cycle, and
 * every allocated job on it belongs to an allocation the preemptor may preempt. Ranking above another allocation
 * implies coming earlier in the order, so it is necessary that every allocation on the node sits at or after the
 * preemptor's position. One pass over the nodes (per change of order or of the cycle's tentative decisions) builds a
 * histogram by that position; each question is then a lookup. The real victim search runs only when this bound
 * allows it.
 */
final class WholeNodeBound {
    private final int[] leafPosition;
    private final int[] atOrAfter;
    private final boolean[] counted;
    private long forOrderVersion = -1;
    private long forWorkVersion = -1;
    private int perNode;

    WholeNodeBound(int leaves, int nodes) {
        this.leafPosition = new int[leaves];
        this.atOrAfter = new int[leaves + 2];
        this.counted = new boolean[nodes];
    }

    void reset() {
        forOrderVersion = -1;
        forWorkVersion = -1;
    }

    /** At most how many usable nodes, outside {@code excluded}, a whole-node gang at {@code position} could get. */
    int nodesFor(ClusterState state, CycleWork work, FairShare fairShare, int position, int gpusPerNode, BitSet excluded) {
        if (forOrderVersion != fairShare.version() || forWorkVersion != work.version() || perNode != gpusPerNode) {
            build(state, work, fairShare, gpusPerNode);
        }
        int n = atOrAfter[Math.max(0, position)];
        if (excluded != null) {
            for (int node = excluded.nextSetBit(0); node >= 0 && node < counted.length; node = excluded.nextSetBit(node + 1)) {
                if (counted[node] && minPosition(state, work, node) >= position) {
                    n--;
                }
            }
        }
        return n;
    }

    private void build(ClusterState state, CycleWork work, FairShare fairShare, int gpusPerNode) {
        int[] order = fairShare.leafOrder();
        for (int i = 0; i < order.length; i++) {
            leafPosition[order[i]] = i;
        }
        java.util.Arrays.fill(atOrAfter, 0);
        FreeIndex free = work.free();
        long now = work.now();
        int leaves = order.length;
        for (int node = 0; node < counted.length; node++) {
            counted[node] = false;
            if (!free.isSchedulable(node) || free.capacity(node) != gpusPerNode) {
                continue;
            }
            int min = minPosition(state, work, node, now, free);
            if (min >= 0) {
                counted[node] = true;
                atOrAfter[Math.min(min, leaves)]++;
            }
        }
        for (int i = leaves - 1; i >= 0; i--) {
            atOrAfter[i] += atOrAfter[i + 1];
        }
        forOrderVersion = fairShare.version();
        forWorkVersion = work.version();
        perNode = gpusPerNode;
    }

    private int minPosition(ClusterState state, CycleWork work, int node) {
        return minPosition(state, work, node, work.now(), work.free());
    }

    /**
     * The earliest fair-share position among the allocated jobs on a node (the number of allocations when none), or
     * -1 when the node can never be wholly freed in this cycle.
     */
    private int minPosition(ClusterState state, CycleWork work, int node, long now, FreeIndex free) {
        int held = free.free(node);
        int min = leafPosition.length;
        List<Job> on = state.jobsOn(node);
        for (int i = 0; i < on.size(); i++) {
            Job j = on.get(i);
            if (work.isPreempted(j)) {
                continue;
            }
            if (j.isProtected(now)) {
                return -1;
            }
            held += j.placement().gpusOnNode(node);
            if (j.allocated()) {
                min = Math.min(min, leafPosition[j.leaf()]);
            }
        }
        return held < free.capacity(node) ? -1 : min; // GPUs taken by this cycle's starts are protected
    }
}
