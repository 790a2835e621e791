package dev.allot.core.sched;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Predicate;

/**
 * Holds nodes for the first allocated workload of a cycle that cannot start, so that a large job is not starved by
 * a stream of small ones (EASY backfill, with minimum runtimes in the role of time limits: the only future a
 * scheduler knows for certain is when each protection ends).
 *
 * <p>For the blocked workload it computes when each node would have room if every running job it may preempt were
 * preempted as soon as its protection ends, and reserves the nodes that get there first; {@code untilSeconds} is
 * the moment the whole workload would fit. Later work may still start on reserved nodes if it will be preemptible
 * by then: unallocated work, or allocated work whose protection ends by that moment and that the owner may
 * preempt (another allocation, or lower priority in the same one).
 */
public record Reservation(Job owner, BitSet nodes, long untilSeconds) {

    /** Whether {@code job} may start on the reserved nodes. */
    public boolean allows(Job job, long now) {
        if (!job.allocated()) {
            return true;
        }
        if (now + job.protectionSecondsIfStarted() > untilSeconds) {
            return false;
        }
        return job.leaf() != owner.leaf() || job.spec().priority().ordinal() < owner.spec().priority().ordinal();
    }

    /**
     * Plans a reservation for {@code owner}, or returns null when no moment can be predicted.
     *
     * @param mayPreempt which running jobs the owner may preempt once they are past their protection
     */
    public static Reservation plan(CycleWork work, Job owner, Predicate<Job> mayPreempt) {
        ClusterState state = work.state();
        FreeIndex free = work.free();
        long now = work.now();
        int perNode = owner.gpusPerNode();
        List<long[]> slots = new ArrayList<>(); // {time, gpus, node}
        long[] nodeReady = new long[free.nodeCount()];
        for (int n = 0; n < free.nodeCount(); n++) {
            nodeReady[n] = Long.MAX_VALUE;
            if (!free.isSchedulable(n) || free.capacity(n) < Math.max(1, perNode)) {
                continue;
            }
            List<long[]> here = new ArrayList<>();
            if (free.free(n) > 0) {
                here.add(new long[] {now, free.free(n), n});
            }
            for (Job j : state.jobsOn(n)) {
                if (work.isPreempted(j) || !mayPreempt.test(j)) {
                    continue;
                }
                long t = j.allocated() ? Math.max(now, j.protectedUntilSeconds()) : now;
                here.add(new long[] {t, j.placement().gpusOnNode(n), n});
            }
            here.sort((a, b) -> Long.compare(a[0], b[0]));
            if (perNode > 0) {
                long have = 0;
                for (long[] s : here) {
                    have += s[1];
                    if (have >= perNode) {
                        nodeReady[n] = s[0];
                        break;
                    }
                }
            } else {
                slots.addAll(here);
            }
        }
        BitSet nodes = new BitSet();
        long until;
        if (perNode > 0) {
            int count = owner.gpus() / perNode;
            List<Integer> order = new ArrayList<>();
            for (int n = 0; n < nodeReady.length; n++) {
                if (nodeReady[n] != Long.MAX_VALUE) {
                    order.add(n);
                }
            }
            if (order.size() < count) {
                return null;
            }
            order.sort((a, b) -> nodeReady[a] != nodeReady[b] ? Long.compare(nodeReady[a], nodeReady[b]) : Integer.compare(a, b));
            until = now;
            for (int i = 0; i < count; i++) {
                nodes.set(order.get(i));
                until = Math.max(until, nodeReady[order.get(i)]);
            }
        } else {
            slots.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[2], b[2]));
            long have = 0;
            until = Long.MAX_VALUE;
            for (long[] s : slots) {
                have += s[1];
                nodes.set((int) s[2]);
                if (have >= owner.gpus()) {
                    until = s[0];
                    break;
                }
            }
            if (until == Long.MAX_VALUE) {
                return null;
            }
        }
        return new Reservation(owner, nodes, until);
    }
}
