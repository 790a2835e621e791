package dev.allot.core.policy.slurm;

import dev.allot.core.policy.Decision;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The reservation EASY backfill makes for the highest-priority job that cannot start: the earliest moment its GPUs
 * are free, computed from when each running job will release its GPUs (its time limit, or sooner for work the owner
 * may preempt), and the nodes it would then use. Later jobs may start now only if they keep off those nodes or end
 * (by their own time limit) before that moment, so they never delay it.
 *
 * <p>Node level, as Slurm's backfill map is: a node the owner needs is held whole, even if the owner needs only part
 * of it. For a gang (whole groups of GPUs per node) the owner gets the nodes that reach its per-node count first;
 * for any packing, the GPUs released anywhere, earliest first, until there are enough.
 *
 * @param owner        the job the nodes are held for
 * @param nodes        the nodes held
 * @param startSeconds when the owner is expected to start
 */
public record Shadow(Job owner, BitSet nodes, long startSeconds) {

    /** Whether a job placed on {@code p} that ends at {@code endSeconds} would delay the owner. */
    public boolean delayedBy(Placement p, long endSeconds) {
        if (endSeconds <= startSeconds) {
            return false;
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            if (nodes.get(p.node(i))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Plans the reservation, or returns null when the running work will never free enough usable GPUs (the owner
     * then gets none, and backfill is unconstrained).
     *
     * @param releaseAt when a running job (or one started in this cycle) frees its GPUs for the owner;
     *                  {@link Long#MAX_VALUE} for never
     */
    public static Shadow plan(CycleWork work, Job owner, ToLongFunction<Job> releaseAt, Buffers buf) {
        ClusterState state = work.state();
        FreeIndex free = work.free();
        long now = work.now();
        int nodes = free.nodeCount();
        int perNode = owner.gpusPerNode();
        // this cycle's starts are not on the state's nodes yet
        List<Decision> decisions = work.decisions();
        buf.resetStarts(nodes);
        for (int d = 0; d < decisions.size(); d++) {
            if (decisions.get(d) instanceof Decision.Start s) {
                Placement p = s.placement();
                for (int i = 0; i < p.nodeCount(); i++) {
                    buf.addStart(p.node(i), s.job(), p.gpusOn(i));
                }
            }
        }
        buf.count = 0;
        long[] nodeReady = buf.nodeReady(nodes);
        for (int n = 0; n < nodes; n++) {
            nodeReady[n] = Long.MAX_VALUE;
            if (!free.isSchedulable(n) || free.capacity(n) < Math.max(1, perNode)) {
                continue;
            }
            int first = buf.count;
            if (free.free(n) > 0) {
                buf.add(now, free.free(n), n);
            }
            List<Job> on = state.jobsOn(n);
            for (int i = 0; i < on.size(); i++) {
                Job j = on.get(i);
                if (!work.isPreempted(j)) {
                    long t = releaseAt.applyAsLong(j);
                    if (t != Long.MAX_VALUE) {
                        buf.add(Math.max(now, t), j.placement().gpusOnNode(n), n);
                    }
                }
            }
            for (int k = buf.startHead[n]; k >= 0; k = buf.startNext[k]) {
                Job j = buf.startJob[k];
                long t = releaseAt.applyAsLong(j);
                if (t != Long.MAX_VALUE) {
                    buf.add(Math.max(now, t), buf.startGpus[k], n);
                }
            }
            if (perNode > 0) {
                buf.sort(first, buf.count);
                long have = 0;
                for (int k = first; k < buf.count; k++) {
                    have += buf.gpus[k];
                    if (have >= perNode) {
                        nodeReady[n] = buf.time[k];
                        break;
                    }
                }
                buf.count = first; // only the node's ready time is kept
            }
        }
        BitSet held = new BitSet(nodes);
        if (perNode > 0) {
            int need = owner.gpus() / perNode;
            // nodes by (ready time, index): as (ready - now) << 20 | index in one long when that fits, else boxed
            long[] ready = buf.packed(nodes);
            int r = 0;
            boolean packable = nodes <= (1 << 20);
            for (int n = 0; n < nodes; n++) {
                if (nodeReady[n] != Long.MAX_VALUE) {
                    long wait = nodeReady[n] - now;
                    packable &= wait < (1L << 42);
                    ready[r++] = n;
                }
            }
            if (r < need) {
                return null;
            }
            if (packable) {
                for (int i = 0; i < r; i++) {
                    int n = (int) ready[i];
                    ready[i] = ((nodeReady[n] - now) << 20) | n;
                }
                Arrays.sort(ready, 0, r);
                for (int i = 0; i < r; i++) {
                    ready[i] &= (1 << 20) - 1;
                }
            } else {
                Integer[] boxed = new Integer[r];
                for (int i = 0; i < r; i++) {
                    boxed[i] = (int) ready[i];
                }
                Arrays.sort(boxed, (a, b) -> nodeReady[a] != nodeReady[b] ? Long.compare(nodeReady[a], nodeReady[b]) : Integer.compare(a, b));
                for (int i = 0; i < r; i++) {
                    ready[i] = boxed[i];
                }
            }
            long start = now;
            for (int i = 0; i < need; i++) {
                int n = (int) ready[i];
                held.set(n);
                start = Math.max(start, nodeReady[n]);
            }
            return new Shadow(owner, held, start);
        }
        buf.sort(0, buf.count);
        long have = 0;
        for (int k = 0; k < buf.count; k++) {
            have += buf.gpus[k];
            held.set(buf.node[k]);
            if (have >= owner.gpus()) {
                return new Shadow(owner, held, buf.time[k]);
            }
        }
        return null;
    }

    /** Reusable arrays for planning, kept by the policy from cycle to cycle. */
    public static final class Buffers {
        long[] time = new long[64];
        int[] gpus = new int[64];
        int[] node = new int[64];
        int count;
        private long[] nodeReady = new long[0];
        private int[] startHead = new int[0];
        private int[] startNext = new int[8];
        private Job[] startJob = new Job[8];
        private int[] startGpus = new int[8];
        private int starts;

        long[] nodeReady(int nodes) {
            if (nodeReady.length < nodes) {
                nodeReady = new long[nodes];
            }
            return nodeReady;
        }

        void resetStarts(int nodes) {
            if (startHead.length < nodes) {
                startHead = new int[nodes];
            }
            Arrays.fill(startHead, 0, nodes, -1);
            starts = 0;
        }

        void addStart(int n, Job j, int g) {
            if (starts == startJob.length) {
                startJob = Arrays.copyOf(startJob, starts * 2);
                startNext = Arrays.copyOf(startNext, starts * 2);
                startGpus = Arrays.copyOf(startGpus, starts * 2);
            }
            startJob[starts] = j;
            startGpus[starts] = g;
            startNext[starts] = startHead[n];
            startHead[n] = starts++;
        }

        void add(long t, int g, int n) {
            if (count == time.length) {
                time = Arrays.copyOf(time, count * 2);
                gpus = Arrays.copyOf(gpus, count * 2);
                node = Arrays.copyOf(node, count * 2);
            }
            time[count] = t;
            gpus[count] = g;
            node[count++] = n;
        }

        private long[] packed = new long[64];

        long[] packed(int n) {
            if (packed.length < n) {
                packed = new long[Math.max(n, packed.length * 2)];
            }
            return packed;
        }

        /** Sorts by packing (time, node, gpus) into one long, when they fit: no boxing. */
        private boolean sortPacked(int from, int to) {
            int n = to - from;
            if (packed.length < n) {
                packed = new long[Math.max(n, packed.length * 2)];
            }
            for (int i = 0; i < n; i++) {
                long t = time[from + i];
                int nd = node[from + i];
                int g = gpus[from + i];
                if (t < 0 || t >= (1L << 35) || nd >= (1 << 20) || g < 0 || g >= (1 << 8)) {
                    return false;
                }
                packed[i] = (t << 28) | ((long) nd << 8) | g;
            }
            Arrays.sort(packed, 0, n);
            for (int i = 0; i < n; i++) {
                long k = packed[i];
                time[from + i] = k >>> 28;
                node[from + i] = (int) ((k >>> 8) & ((1 << 20) - 1));
                gpus[from + i] = (int) (k & 0xff);
            }
            return true;
        }

        /** Sorts the slots [from, to) by (time, node). */
        void sort(int from, int to) {
            if (to - from <= 32) {
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
                return;
            }
            if (sortPacked(from, to)) {
                return;
            }
            Integer[] idx = new Integer[to - from];
            for (int i = 0; i < idx.length; i++) {
                idx[i] = from + i;
            }
            Arrays.sort(idx, (a, b) -> time[a] != time[b] ? Long.compare(time[a], time[b]) : Integer.compare(node[a], node[b]));
            long[] t = new long[idx.length];
            int[] g = new int[idx.length];
            int[] n = new int[idx.length];
            for (int i = 0; i < idx.length; i++) {
                t[i] = time[idx[i]];
                g[i] = gpus[idx[i]];
                n[i] = node[idx[i]];
            }
            System.arraycopy(t, 0, time, from, t.length);
            System.arraycopy(g, 0, gpus, from, g.length);
            System.arraycopy(n, 0, node, from, n.length);
        }
    }
}
