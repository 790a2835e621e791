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

/**
 * The reservation EASY backfill makes for the highest-priority job that cannot start: the earliest moment its GPUs
 * are free, computed from when each running job will release its GPUs (its time limit, or sooner for work the owner
 * may preempt), and the nodes it would then use. Later jobs may start now only if they keep off those nodes or end
 * (by their own time limit) before that moment, so they never delay it.
 *
 * <p>Node level, as Slurm's backfill map is: a node the owner needs is held whole, even if the owner needs only part
 * of it. For a gang (whole groups of GPUs per node) the owner gets the nodes that reach its per-node count first
 * (ties by node index); for any packing, the GPUs released anywhere, earliest first (ties by node index), until there
 * are enough.
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

    /** When running jobs free their GPUs, as the policy sees it. */
    public interface Releases {
        /**
         * When {@code j} frees its GPUs for an owner that may preempt it (if {@code ownerMayPreempt}) or not;
         * possibly before now (it is then free now); {@link Long#MAX_VALUE} for never.
         *
         * @param startedNow whether {@code j} is being started in this cycle (it is not on the state's nodes yet)
         */
        long at(Job j, boolean ownerMayPreempt, boolean startedNow);
    }

    /**
     * Plans the reservation, or returns null when the running work will never free enough usable GPUs (the owner
     * then gets none, and backfill is unconstrained).
     */
    public static Shadow plan(CycleWork work, Job owner, boolean ownerMayPreempt, Timeline timeline) {
        FreeIndex free = work.free();
        long now = work.now();
        int nodes = free.nodeCount();
        int perNode = owner.gpusPerNode();
        int variant = ownerMayPreempt ? 1 : 0;
        timeline.prepare(work, variant);
        BitSet held = new BitSet(nodes);
        if (perNode > 0) {
            int need = owner.gpus() / perNode;
            // the need earliest nodes by (ready time, index), packed as (wait << 20 | node) in a bounded max-heap
            long[] best = timeline.packed(need);
            int size = 0;
            for (int n = 0; n < nodes; n++) {
                if (!free.isSchedulable(n) || free.capacity(n) < perNode) {
                    continue;
                }
                long t = timeline.readyAt(n, perNode, now);
                if (t == Long.MAX_VALUE) {
                    continue;
                }
                long key = ((t - now) << 20) | n;
                if (size < need) {
                    best[size] = key;
                    siftUp(best, size++);
                } else if (key < best[0]) {
                    best[0] = key;
                    siftDown(best, size);
                }
            }
            if (size < need) {
                return null;
            }
            long start = now;
            for (int i = 0; i < need; i++) {
                held.set((int) (best[i] & ((1 << 20) - 1)));
                start = Math.max(start, now + (best[i] >>> 20));
            }
            return new Shadow(owner, held, start);
        }
        long start = timeline.anyPacking(owner.gpus(), now, held);
        return start == Long.MAX_VALUE ? null : new Shadow(owner, held, start);
    }

    private static void siftUp(long[] h, int i) {
        while (i > 0) {
            int parent = (i - 1) / 2;
            if (h[parent] >= h[i]) {
                return;
            }
            long x = h[parent];
            h[parent] = h[i];
            h[i] = x;
            i = parent;
        }
    }

    private static void siftDown(long[] h, int size) {
        int i = 0;
        while (true) {
            int l = 2 * i + 1;
            if (l >= size) {
                return;
            }
            int m = l + 1 < size && h[l + 1] > h[l] ? l + 1 : l;
            if (h[m] <= h[i]) {
                return;
            }
            long x = h[m];
            h[m] = h[i];
            h[i] = x;
            i = m;
        }
    }

    /**
     * When each node's GPUs free up, kept from plan to plan: per node, its free GPUs and its running jobs' release
     * times, sorted. A node's entry is rebuilt only when it changed: its free GPUs or health differ from what was
     * kept, or the policy said so ({@link #invalidate}, for its decisions and for victims it signals). Nodes that the
     * current cycle has already changed tentatively are computed afresh and not kept.
     */
    public static final class Timeline {
        private static final long FREE = Long.MIN_VALUE;
        private final ClusterState state;
        private final Releases releases;
        private final int nodes;
        private final long[][][] time = new long[2][][];
        private final int[][][] gpus = new int[2][][];
        private final int[][] count = new int[2][];
        private final boolean[][] valid = new boolean[2][];
        private final long[][] readyKept = new long[2][];
        private final int[][] readyKeptFor = new int[2][];
        private final int[] keptFree;
        private final boolean[] keptSchedulable;
        // the current plan
        private int variant;
        private long now;
        private FreeIndex free;
        private CycleWork work;
        private int[] freshStart;
        private int[] freshCount;
        private long[] packed = new long[64];
        private int[] heap = new int[64];
        private int[] cursor = new int[0];

        public Timeline(ClusterState state, Releases releases) {
            this.state = state;
            this.releases = releases;
            this.nodes = state.nodes().count();
            if (nodes > (1 << 20)) {
                throw new IllegalArgumentException("at most " + (1 << 20) + " nodes are supported, got " + nodes);
            }
            for (int v = 0; v < 2; v++) {
                time[v] = new long[nodes][];
                gpus[v] = new int[nodes][];
                count[v] = new int[nodes];
                valid[v] = new boolean[nodes];
                readyKept[v] = new long[nodes];
                readyKeptFor[v] = new int[nodes];
                for (int n = 0; n < nodes; n++) {
                    time[v][n] = new long[4];
                    gpus[v][n] = new int[4];
                }
            }
            this.keptFree = new int[nodes];
            this.keptSchedulable = new boolean[nodes];
            this.freshStart = new int[nodes];
            this.freshCount = new int[nodes];
        }

        /** Forgets what was kept for a node (both kinds of owner). */
        public void invalidate(int node) {
            valid[0][node] = false;
            valid[1][node] = false;
            readyKeptFor[0][node] = 0;
            readyKeptFor[1][node] = 0;
        }

        public void invalidate(Placement p) {
            for (int i = 0; i < p.nodeCount(); i++) {
                invalidate(p.node(i));
            }
        }

        long[] packed(int n) {
            if (packed.length < n) {
                packed = new long[Math.max(n, packed.length * 2)];
            }
            return packed;
        }

        /** Brings the kept entries up to the live state and builds the fresh ones of nodes this cycle touched. */
        void prepare(CycleWork w, int v) {
            this.work = w;
            this.variant = v;
            this.now = w.now();
            this.free = w.free();
            FreeIndex live = state.nodes().free();
            for (int n = 0; n < nodes; n++) {
                if (live.free(n) != keptFree[n] || live.isSchedulable(n) != keptSchedulable[n]) {
                    keptFree[n] = live.free(n);
                    keptSchedulable[n] = live.isSchedulable(n);
                    invalidate(n);
                }
            }
            buildFresh();
        }

        private boolean touched(int n) {
            return work.touchedNodes().get(n);
        }

        /** The events of node {@code n} for this plan: [from, to) in the returned arrays. */
        private long[] timesOf(int n) {
            if (touched(n)) {
                return freshTimes;
            }
            keep(n);
            return time[variant][n];
        }

        private int[] gpusOf(int n) {
            return touched(n) ? freshGpusArr : gpus[variant][n];
        }

        private int fromOf(int n) {
            return touched(n) ? freshStart[n] : 0;
        }

        private int toOf(int n) {
            return touched(n) ? freshStart[n] + freshCount[n] : count[variant][n];
        }

        /** Rebuilds the kept entry of an untouched node from the live state, if it is stale. */
        private void keep(int n) {
            if (valid[variant][n]) {
                return;
            }
            int c = 0;
            long[] t = time[variant][n];
            int[] g = gpus[variant][n];
            int f = state.nodes().free().free(n);
            List<Job> on = state.nodes().jobsOn(n);
            if (t.length < on.size() + 1) {
                t = time[variant][n] = new long[on.size() + 4];
                g = gpus[variant][n] = new int[on.size() + 4];
            }
            if (f > 0) {
                t[c] = FREE;
                g[c++] = f;
            }
            for (int i = 0; i < on.size(); i++) {
                Job j = on.get(i);
                long at = releases.at(j, variant == 1, false);
                if (at != Long.MAX_VALUE) {
                    t[c] = at;
                    g[c++] = j.placement().gpusOnNode(n);
                }
            }
            sortByTime(t, g, 0, c);
            count[variant][n] = c;
            valid[variant][n] = true;
            readyKeptFor[variant][n] = 0;
        }

        private long[] freshTimes = new long[16];
        private int[] freshGpusArr = new int[16];

        /** Events of the nodes this cycle touched: their tentative free GPUs, live jobs not preempted, new starts. */
        private void buildFresh() {
            BitSet touched = work.touchedNodes();
            int c = 0;
            List<Decision> decisions = work.decisions();
            for (int n = touched.nextSetBit(0); n >= 0; n = touched.nextSetBit(n + 1)) {
                freshStart[n] = c;
                List<Job> on = state.nodes().jobsOn(n);
                int room = c + on.size() + decisions.size() + 1;
                if (freshTimes.length < room) {
                    freshTimes = Arrays.copyOf(freshTimes, Math.max(room, freshTimes.length * 2));
                    freshGpusArr = Arrays.copyOf(freshGpusArr, freshTimes.length);
                }
                if (free.free(n) > 0) {
                    freshTimes[c] = FREE;
                    freshGpusArr[c++] = free.free(n);
                }
                for (int i = 0; i < on.size(); i++) {
                    Job j = on.get(i);
                    if (work.isPreempted(j)) {
                        continue;
                    }
                    long at = releases.at(j, variant == 1, false);
                    if (at != Long.MAX_VALUE) {
                        freshTimes[c] = at;
                        freshGpusArr[c++] = j.placement().gpusOnNode(n);
                    }
                }
                for (int d = 0; d < decisions.size(); d++) {
                    if (decisions.get(d) instanceof Decision.Start s) {
                        int g = s.placement().gpusOnNode(n);
                        long at = g == 0 ? Long.MAX_VALUE : releases.at(s.job(), variant == 1, true);
                        if (at != Long.MAX_VALUE) {
                            freshTimes[c] = at;
                            freshGpusArr[c++] = g;
                        }
                    }
                }
                freshCount[n] = c - freshStart[n];
                sortByTime(freshTimes, freshGpusArr, freshStart[n], c);
            }
        }

        /** When node {@code n} first has {@code perNode} GPUs free for the owner (not before {@code at}), or MAX_VALUE. */
        long readyAt(int n, int perNode, long at) {
            long t;
            if (touched(n)) {
                t = firstWith(freshTimes, freshGpusArr, freshStart[n], freshStart[n] + freshCount[n], perNode);
            } else {
                keep(n);
                if (readyKeptFor[variant][n] != perNode) {
                    readyKept[variant][n] = firstWith(time[variant][n], gpus[variant][n], 0, count[variant][n], perNode);
                    readyKeptFor[variant][n] = perNode;
                }
                t = readyKept[variant][n];
            }
            return t == Long.MAX_VALUE ? t : Math.max(at, t);
        }

        private static long firstWith(long[] t, int[] g, int from, int to, int perNode) {
            long have = 0;
            for (int k = from; k < to; k++) {
                have += g[k];
                if (have >= perNode) {
                    return t[k];
                }
            }
            return Long.MAX_VALUE;
        }

        /**
         * For an owner of any packing: walks the release events of all schedulable nodes in (time, node) order until
         * {@code gpus} are free, marks the nodes met in {@code held}; returns that time, or MAX_VALUE.
         */
        long anyPacking(int gpusNeeded, long at, BitSet held) {
            if (cursor.length < nodes) {
                cursor = new int[nodes];
            }
            if (heap.length < nodes) {
                heap = new int[nodes];
            }
            int size = 0;
            for (int n = 0; n < nodes; n++) {
                if (!free.isSchedulable(n) || free.capacity(n) < 1) {
                    continue;
                }
                timesOf(n); // brings the kept entry up to date
                cursor[n] = fromOf(n);
                if (cursor[n] < toOf(n)) {
                    heap[size++] = n;
                }
            }
            for (int i = size / 2 - 1; i >= 0; i--) {
                siftDown(i, size, at);
            }
            long have = 0;
            while (size > 0) {
                int n = heap[0];
                long t = Math.max(at, timesOf(n)[cursor[n]]);
                have += gpusOf(n)[cursor[n]];
                held.set(n);
                if (have >= gpusNeeded) {
                    return t;
                }
                cursor[n]++;
                if (cursor[n] == toOf(n)) {
                    heap[0] = heap[--size];
                }
                siftDown(0, size, at);
            }
            return Long.MAX_VALUE;
        }

        private boolean before(int a, int b, long at) {
            long ta = Math.max(at, timesOf(a)[cursor[a]]);
            long tb = Math.max(at, timesOf(b)[cursor[b]]);
            return ta != tb ? ta < tb : a < b;
        }

        private void siftDown(int i, int size, long at) {
            while (true) {
                int l = 2 * i + 1;
                if (l >= size) {
                    return;
                }
                int m = l + 1 < size && before(heap[l + 1], heap[l], at) ? l + 1 : l;
                if (!before(heap[m], heap[i], at)) {
                    return;
                }
                int x = heap[i];
                heap[i] = heap[m];
                heap[m] = x;
                i = m;
            }
        }

        /** Insertion sort of [from, to) by time: a node's events are few. Stable. */
        private static void sortByTime(long[] t, int[] g, int from, int to) {
            for (int i = from + 1; i < to; i++) {
                long ti = t[i];
                int gi = g[i];
                int j = i - 1;
                while (j >= from && t[j] > ti) {
                    t[j + 1] = t[j];
                    g[j + 1] = g[j];
                    j--;
                }
                t[j + 1] = ti;
                g[j + 1] = gi;
            }
        }
    }
}
