package dev.allot.core.policy.allocation;

import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.WholeNodeIndex;
import java.util.BitSet;
import java.util.List;

/**
 * A quick, safe "no" for whole-node gangs (as many GPUs per node as the largest nodes have): at most how many nodes
 * could be wholly freed for a job of a given allocation and priority.
 *
 * <p>A node can be wholly freed only if it is healthy, nothing on it is protected, nothing was started on it in this
 * cycle, and every allocation on it is one the preemptor may preempt. The live {@link WholeNodeIndex} answers this
 * for the nodes the cycle has not touched, in time proportional to the number of distinct sets of allocations on
 * nodes; the few nodes this cycle's tentative decisions touched are re-checked one by one. The real victim search
 * runs only when this bound allows it.
 */
final class WholeNodeBound {
    private final boolean[] allowed;

    WholeNodeBound(int leaves) {
        this.allowed = new boolean[leaves];
    }

    /** At most how many usable nodes outside {@code excluded} a whole-node gang of {@code w} could get. */
    int nodesFor(ClusterState state, CycleWork work, PreemptionRules.Rights rights, BitSet excluded) {
        for (int b = 0; b < allowed.length; b++) {
            allowed[b] = rights.any(b); // a budget may allow only part of b: allowing all keeps this an upper bound
        }
        // its own lower-priority work is preemptible too: allowing the whole leaf keeps this an upper bound
        allowed[rights.leaf()] = rights.priority() > 0;
        WholeNodeIndex index = state.nodes().wholeNodes();
        int n = index.countAllowed(allowed);
        BitSet touched = work.touchedNodes();
        for (int node = touched.nextSetBit(0); node >= 0; node = touched.nextSetBit(node + 1)) {
            n += (tentativelyFreeable(state, work, node) ? 1 : 0) - (index.allows(node, allowed) ? 1 : 0);
        }
        if (excluded != null) {
            for (int node = excluded.nextSetBit(0); node >= 0 && node < state.nodes().count(); node = excluded.nextSetBit(node + 1)) {
                boolean counted = touched.get(node) ? tentativelyFreeable(state, work, node) : index.allows(node, allowed);
                if (counted) {
                    n--;
                }
            }
        }
        return n;
    }

    /** The index's test for one node, on the cycle's tentative state (its victims gone, its starts present). */
    private boolean tentativelyFreeable(ClusterState state, CycleWork work, int node) {
        FreeIndex free = work.free();
        if (!free.isSchedulable(node) || free.capacity(node) != state.nodes().wholeNodes().wholeNodeGpus()) {
            return false;
        }
        long now = work.now();
        int held = free.free(node);
        List<Job> on = state.nodes().jobsOn(node);
        for (int i = 0; i < on.size(); i++) {
            Job j = on.get(i);
            if (work.isPreempted(j)) {
                continue;
            }
            if (j.isProtected(now) || (j.allocated() && !allowed[j.leaf()])) {
                return false;
            }
            held += j.placement().gpusOnNode(node);
        }
        return held == free.capacity(node); // anything else was taken by this cycle's (protected) starts
    }
}
