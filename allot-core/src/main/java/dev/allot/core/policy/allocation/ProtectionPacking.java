package dev.allot.core.policy.allocation;

import dev.allot.core.policy.allocation.preemption.VictimOrder;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.OneNodeVictims;
import dev.allot.core.sched.Placer;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.BitSet;
import java.util.List;

/**
 * Where small protected work lands (the {@code placement=protection} setting): on the node where it costs least, so
 * that protections gather on few nodes and the rest of the cluster can be had in whole nodes by gangs.
 *
 * <p>Why: a run inside its minimum runtime pins its node, since no gang can have that node before the protection
 * ends. Best fit alone scatters small protected runs (debug, evaluation, interactive work of one to a few GPUs)
 * over the cluster; on the generated lab 25 to 32 of 32 nodes held some protected run at any moment, and a waiting
 * 128-GPU gang found at most a few nodes it could free. Aligning protection ends is one of the directions of the
 * capacity-fragmentation problem the seed names.
 *
 * <p>What: allocated work of at most one node's GPUs that may go anywhere ({@code gpusPerNode} 0) starts on one
 * node, the one with the lowest cost in GPU-seconds:
 * <ul>
 *   <li><b>pin</b>: how far the start pushes the node's latest protection end out, times the node's GPUs: a node
 *   already protected past this run's own minimum runtime costs nothing more;</li>
 *   <li><b>lost</b>: when victims must go, the work they lose if preempted now.</li>
 * </ul>
 * Ties go to best fit (on idle GPUs) or the policy's victim preference (when preempting), then the lowest node.
 * Victims are taken on one node only from the preference groups the ordinary search would need anyway
 * ({@link VictimOrder#group}: allocated work is never taken where unallocated work would do), and when no single
 * node can be freed that way the ordinary search's victims stand. Gangs and work larger than a node are placed as
 * before ({@link Placer}).
 */
final class ProtectionPacking {
    private ProtectionPacking() {
    }

    /** Whether {@code w} is placed by this rule: allocated, any packing, at most one node's GPUs. */
    static boolean applies(CycleWork work, Job w) {
        return w.allocated() && w.gpusPerNode() == 0 && w.gpus() <= work.free().maxGpusPerNode();
    }

    /** Where {@code w} starts on idle GPUs outside {@code excluded}, or null when it does not fit now. */
    static Placement place(CycleWork work, Job w, BitSet excluded, long now) {
        if (!applies(work, w)) {
            return Placer.find(work.free(), w.gpus(), w.gpusPerNode(), excluded);
        }
        Placement one = Placer.findOnOneNode(work.free(), w.gpus(), excluded, n -> pinCost(work, w, n, now));
        return one != null ? one : Placer.find(work.free(), w.gpus(), w.gpusPerNode(), excluded);
    }

    /**
     * The victims {@code w} takes: on the one node of lowest cost that the candidates can free within the
     * preference groups of {@code spread} (the ordinary search's answer), else {@code spread} itself.
     */
    static List<Job> victims(CycleWork work, Job w, BitSet excluded, List<Job> candidates, List<Job> spread,
                             VictimOrder order, long now) {
        if (spread == null || spread.isEmpty() || !applies(work, w)) {
            return spread;
        }
        int worstGroup = 0;
        for (Job v : spread) {
            worstGroup = Math.max(worstGroup, order.group(v));
        }
        List<Job> one = OneNodeVictims.find(work, w.gpus(), excluded, candidates, order::group, worstGroup,
                n -> pinCost(work, w, n, now), v -> v.workLostIfPreemptedAtGpuSeconds(now));
        return one != null ? one : spread;
    }

    /** GPU-seconds by which starting {@code w} on {@code node} now keeps the whole node from a gang beyond today. */
    static long pinCost(CycleWork work, Job w, int node, long now) {
        long until = now + w.protectionSecondsIfStarted();
        long pinned = Math.max(now, work.latestProtectionEnd(node));
        return Math.max(0, until - pinned) * work.free().capacity(node);
    }
}
