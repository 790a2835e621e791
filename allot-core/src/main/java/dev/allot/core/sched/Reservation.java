package dev.allot.core.sched;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
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
 * preempt ({@code ownerMayPreempt}: the policy's rule, which ranks allocations).
 */
public record Reservation(Job owner, BitSet nodes, long untilSeconds, Predicate<Job> ownerMayPreempt) {

    /** Whether {@code job} may start on the reserved nodes. */
    public boolean allows(Job job, long now) {
        if (!job.allocated()) {
            return true;
        }
        if (job == owner) {
            return true;
        }
        if (now + job.protectionSecondsIfStarted() > untilSeconds) {
            return false;
        }
        return ownerMayPreempt.test(job);
    }

    /**
     * Plans a reservation for {@code owner} on nodes outside {@code taken}, or returns null when it needs none or no
     * moment can be predicted.
     *
     * @param mayPreempt which running jobs the owner may preempt once they are past their protection
     * @param budget     asked for each node a whole-node reservation would take whether the owner may take all its
     *                   jobs on top of those of the nodes taken before (null: whatever {@code mayPreempt} admits job
     *                   by job), so a reservation the owner could never start on is not planned
     * @param taken      nodes other reservations of the cycle hold (null: none)
     */
    public static Reservation plan(CycleWork work, Job owner, Predicate<Job> mayPreempt, NodeBudget budget,
                                   BitSet taken) {
        if (!needsOne(work.state(), owner)) {
            return null;
        }
        return owner.gpusPerNode() == work.state().cluster().maxGpusPerNode()
                ? planWholeNodes(work, owner, mayPreempt, budget, taken)
                : planByTime(work, owner, mayPreempt, taken);
    }

    private static Reservation planByTime(CycleWork work, Job owner, Predicate<Job> mayPreempt, BitSet taken) {
        ClusterState state = work.state();
        FreeIndex free = work.free();
        long now = work.now();
        int perNode = owner.gpusPerNode();
        int nodes = free.nodeCount();
        // (time, gpus, node) of every moment some GPUs become usable for the owner, in three parallel arrays
        long[] time = new long[64];
        int[] gpus = new int[64];
        int[] node = new int[64];
        int count = 0;
        long[] nodeReady = perNode > 0 ? new long[nodes] : null;
        for (int n = 0; n < nodes; n++) {
            if (nodeReady != null) {
                nodeReady[n] = Long.MAX_VALUE;
            }
            if (!free.isSchedulable(n) || free.capacity(n) < Math.max(1, perNode) || (taken != null && taken.get(n))) {
                continue;
            }
            int first = count;
            List<Job> on = state.nodes().jobsOn(n);
            if (count + on.size() + 1 > time.length) {
                int size = Math.max(time.length * 2, count + on.size() + 1);
                time = java.util.Arrays.copyOf(time, size);
                gpus = java.util.Arrays.copyOf(gpus, size);
                node = java.util.Arrays.copyOf(node, size);
            }
            if (free.free(n) > 0) {
                time[count] = now;
                gpus[count] = free.free(n);
                node[count++] = n;
            }
            for (int i = 0; i < on.size(); i++) {
                Job j = on.get(i);
                if (work.isPreempted(j) || !mayPreempt.test(j)) {
                    continue;
                }
                time[count] = j.allocated() ? Math.max(now, j.protectedUntilSeconds()) : now;
                gpus[count] = j.placement().gpusOnNode(n);
                node[count++] = n;
            }
            if (nodeReady != null) {
                sortByTime(time, gpus, node, first, count);
                long have = 0;
                for (int k = first; k < count; k++) {
                    have += gpus[k];
                    if (have >= perNode) {
                        nodeReady[n] = time[k];
                        break;
                    }
                }
                count = first; // per-node slots are not needed any more
            }
        }
        BitSet reserved = new BitSet();
        long until;
        if (nodeReady != null) {
            int need = owner.gpus() / perNode;
            Integer[] order = new Integer[nodes];
            int ready = 0;
            for (int n = 0; n < nodes; n++) {
                if (nodeReady[n] != Long.MAX_VALUE) {
                    order[ready++] = n;
                }
            }
            if (ready < need) {
                return null;
            }
            final long[] r = nodeReady;
            java.util.Arrays.sort(order, 0, ready, (a, b) -> r[a] != r[b] ? Long.compare(r[a], r[b]) : Integer.compare(a, b));
            until = now;
            for (int i = 0; i < need; i++) {
                reserved.set(order[i]);
                until = Math.max(until, nodeReady[order[i]]);
            }
        } else {
            sortByTime(time, gpus, node, 0, count);
            long have = 0;
            until = Long.MAX_VALUE;
            for (int k = 0; k < count; k++) {
                have += gpus[k];
                reserved.set(node[k]);
                if (have >= owner.gpus()) {
                    until = time[k];
                    break;
                }
            }
            if (until == Long.MAX_VALUE) {
                return null;
            }
        }
        return new Reservation(owner, reserved, until, mayPreempt);
    }

    /**
     * Whether a blocked workload gets a reservation: only work that needs whole nodes, or more GPUs than the largest
     * node has. Smaller work is first in line for the next GPUs freed anywhere, so it does not starve the same way,
     * and reserving for it would only idle GPUs.
     */
    public static boolean needsOne(ClusterState state, Job owner) {
        return owner.gpusPerNode() > 0 || owner.gpus() > state.cluster().maxGpusPerNode();
    }

    /**
     * The common case, exactly and quickly: a gang of whole nodes (as many GPUs per node as the largest nodes have).
     * A node is wholly free once every job on it is gone, i.e. at its latest protection end if the owner may
     * preempt everything on it; the state keeps nodes sorted by that time, so the scan stops at the k-th usable node.
     */
    private static Reservation planWholeNodes(CycleWork work, Job owner, Predicate<Job> mayPreempt,
                                              NodeBudget budget, BitSet taken) {
        ClusterState state = work.state();
        FreeIndex free = work.free();
        long now = work.now();
        int perNode = owner.gpusPerNode();
        int need = owner.gpus() / perNode;
        BitSet reserved = new BitSet();
        long until = now;
        int found = 0;
        Predicate<Job> gone = work::isPreempted;
        for (int n : state.nodes().byLatestProtectionEnd()) {
            if (!free.isSchedulable(n) || free.capacity(n) < perNode || (taken != null && taken.get(n))) {
                continue;
            }
            boolean touched = work.touchedNodes().get(n);
            int held = free.free(n);
            boolean ok = true;
            List<Job> on = state.nodes().jobsOn(n);
            for (int i = 0; i < on.size() && ok; i++) {
                Job j = on.get(i);
                if (work.isPreempted(j)) {
                    continue;
                }
                ok = budget != null || mayPreempt.test(j); // the budget asks mayPreempt itself, below
                if (touched) {
                    held += j.placement().gpusOnNode(n);
                }
            }
            // on a node this cycle touched, GPUs neither free nor held by live jobs went to its (protected) starts
            if (!ok || (touched && held < free.capacity(n))) {
                continue;
            }
            if (budget != null && !budget.takeAll(on, gone)) {
                continue;
            }
            reserved.set(n);
            until = Math.max(until, state.nodes().latestProtectionEnd(n));
            if (++found == need) {
                return new Reservation(owner, reserved, until, mayPreempt);
            }
        }
        return null;
    }

    /** Insertion sort of the slots [from, to) by (time, node): the slots of one node are few. */
    /**
     * The positions {@code from..to-1} in the order of a stable sort by (time, node): one primitive sort of (time,
     * node, position) packed in a long when they fit, else a boxed stable sort.
     */
    private static int[] stableOrderByTimeAndNode(long[] time, int[] node, int from, int to) {
        int[] order = new int[to - from];
        if (packable(time, node, from, to)) {
            long base = Long.MAX_VALUE;
            for (int i = from; i < to; i++) {
                base = Math.min(base, time[i]);
            }
            long[] keys = new long[order.length];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = ((time[from + i] - base) << 32) | ((long) node[from + i] << 16) | i;
            }
            java.util.Arrays.sort(keys);
            for (int i = 0; i < keys.length; i++) {
                order[i] = from + (int) (keys[i] & 0xFFFF);
            }
            return order;
        }
        Integer[] idx = new Integer[order.length];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = from + i;
        }
        java.util.Arrays.sort(idx, (a, b) -> time[a] != time[b] ? Long.compare(time[a], time[b]) : Integer.compare(node[a], node[b]));
        for (int i = 0; i < idx.length; i++) {
            order[i] = idx[i];
        }
        return order;
    }

    /** Whether times span under 2^31 s, nodes are under 2^16 and there are at most 2^16 entries: then they pack. */
    private static boolean packable(long[] time, int[] node, int from, int to) {
        if (to - from > 0xFFFF) {
            return false;
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = from; i < to; i++) {
            min = Math.min(min, time[i]);
            max = Math.max(max, time[i]);
            if (node[i] < 0 || node[i] > 0xFFFF) {
                return false;
            }
        }
        return max - min < (1L << 31);
    }

    private static void sortByTime(long[] time, int[] gpus, int[] node, int from, int to) {
        if (to - from > 32) {
            int[] order = stableOrderByTimeAndNode(time, node, from, to);
            long[] t = new long[order.length];
            int[] g = new int[order.length];
            int[] n = new int[order.length];
            for (int i = 0; i < order.length; i++) {
                t[i] = time[order[i]];
                g[i] = gpus[order[i]];
                n[i] = node[order[i]];
            }
            System.arraycopy(t, 0, time, from, t.length);
            System.arraycopy(g, 0, gpus, from, g.length);
            System.arraycopy(n, 0, node, from, n.length);
            return;
        }
        for (int i = from + 1; i < to; i++) {
            long t = time[i];
            int g = gpus[i];
            int n = node[i];
            int j = i - 1;
            while (j >= from && (time[j] > t || (time[j] == t && node[j] > n))) {
                time[j + 1] = time[j];
                gpus[j + 1] = gpus[j];
                node[j + 1] = node[j];
                j--;
            }
            time[j + 1] = t;
            gpus[j + 1] = g;
            node[j + 1] = n;
        }
    }
}
