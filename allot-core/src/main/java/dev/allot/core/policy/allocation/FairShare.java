package dev.allot.core.policy.allocation;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Decimals;
import dev.allot.core.state.ClusterState;

/**
 * Hierarchical fair share over the allocation tree, for one scheduling cycle.
 *
 * <p>The usage of a leaf is what it was charged inside the lookback window plus what it is already committed to
 * be charged: the rest of the minimum runtime of its running protected work. Counting the commitment is what
 * stops one under-served allocation from taking the whole cluster in a single cycle: every start raises its
 * usage at once, by the GPU-seconds the contract guarantees, so the next GPUs go to whoever is then lowest. The
 * usage of an inner node is the sum over its leaves.
 *
 * <p>The ratio of a node is its usage divided by what its entitlement would buy over the window
 * ({@code entitlement x cluster GPUs x window}); 1.0 means it used exactly its share. Siblings are ranked by
 * ratio, lowest first, then by name; the order of allocations is the depth-first walk of the tree with siblings
 * in rank order (as in Slurm's Fair Tree, but the weights are budgets). A node with entitlement zero ranks after
 * every sibling with a positive one.
 */
public final class FairShare {
    private final AllocationTree tree;
    private final double[] norm;
    private final long[] usage;
    private final int[] leafOrder;
    private boolean dirty = true;
    private long version;
    private final boolean[][] aboveRow;
    private final long[] aboveRowVersion;
    private final long windowSeconds;
    private final int[][] leavesUnder;

    public FairShare(AllocationTree tree, int clusterGpus, long windowSeconds) {
        this.tree = tree;
        this.windowSeconds = windowSeconds;
        int n = tree.nodeCount();
        this.norm = new double[n];
        this.usage = new long[n];
        for (int i = 0; i < n; i++) {
            norm[i] = tree.entitlement(i) * clusterGpus * (double) windowSeconds;
        }
        this.leafOrder = new int[tree.leafCount()];
        this.aboveRow = new boolean[tree.leafCount()][tree.leafCount()];
        this.aboveRowVersion = new long[tree.leafCount()];
        java.util.Arrays.fill(aboveRowVersion, -1);
        this.leavesUnder = leavesUnder(tree);
    }

    /** Recomputes usage from the state: window charges plus committed protected time, summed up the tree. */
    public void reset(ClusterState state) {
        java.util.Arrays.fill(usage, 0);
        for (int l = 0; l < tree.leafCount(); l++) {
            long u = state.windowUsageGpuSeconds(l) + state.committedGpuSeconds(l);
            for (int node = tree.leafNode(l); node >= 0; node = tree.parent(node)) {
                usage[node] += u;
            }
        }
        dirty = true;
        version++;
    }

    /** Adds GPU-seconds to a leaf and its ancestors (a start decided in this cycle commits its minimum runtime). */
    public void charge(int leaf, long gpuSeconds) {
        for (int node = tree.leafNode(leaf); node >= 0; node = tree.parent(node)) {
            usage[node] += gpuSeconds;
        }
        dirty = true;
        version++;
    }

    /** Charges what a start of {@code job} commits: its GPUs for its minimum runtime (nothing when unallocated). */
    public void chargeStart(dev.allot.core.state.Job job) {
        charge(job.leaf(), (long) job.gpus() * job.protectionSecondsIfStarted());
    }

    /** Changes whenever usage changes: after {@link #reset} and every {@link #charge}. */
    public long version() {
        return version;
    }

    public long usageGpuSeconds(int node) {
        return usage[node];
    }

    /** Usage over what the entitlement buys in the window; +infinity for a node with no entitlement. */
    public double ratio(int node) {
        return ratioOf(node, usage[node]);
    }

    private double ratioOf(int node, long u) {
        return norm[node] > 0 ? u / norm[node] : Double.POSITIVE_INFINITY;
    }

    /** What a node's entitlement buys over the window: entitlement x cluster GPUs x window, in GPU-seconds. */
    public double entitledGpuSeconds(int node) {
        return norm[node];
    }

    /**
     * The rank of a node among its siblings in the order the walk serves them (1 = served first): by ratio, lowest
     * first, then by name. The root ranks 1st of 1.
     */
    public int rankAmongSiblings(int node) {
        int parent = tree.parent(node);
        if (parent < 0) {
            return 1;
        }
        int rank = 1;
        for (int i = 0; i < tree.childrenCount(parent); i++) {
            int s = tree.child(parent, i);
            if (s != node && compareSiblings(s, node) < 0) {
                rank++;
            }
        }
        return rank;
    }

    public double leafRatio(int leaf) {
        return ratio(tree.leafNode(leaf));
    }

    /** Leaves in fair-share order, most under-served first. The array is shared; do not keep it across calls. */
    public int[] leafOrder() {
        if (dirty) {
            int[] pos = {0};
            walk(0, pos);
            dirty = false;
        }
        return leafOrder;
    }

    private void walk(int node, int[] pos) {
        int k = tree.childrenCount(node);
        if (k == 0) {
            leafOrder[pos[0]++] = tree.leafOf(node);
            return;
        }
        int[] kids = new int[k];
        for (int i = 0; i < k; i++) {
            kids[i] = tree.child(node, i);
        }
        // insertion sort: sibling lists are short, and this keeps the order stable and allocation-free-ish
        for (int i = 1; i < k; i++) {
            int c = kids[i];
            int j = i - 1;
            while (j >= 0 && compareSiblings(kids[j], c) > 0) {
                kids[j + 1] = kids[j];
                j--;
            }
            kids[j + 1] = c;
        }
        for (int c : kids) {
            walk(c, pos);
        }
    }

    private int compareSiblings(int a, int b) {
        int c = Double.compare(ratio(a), ratio(b));
        return c != 0 ? c : tree.name(a).compareTo(tree.name(b));
    }

    /**
     * Whether leaf {@code a} ranks strictly above leaf {@code b}: compared at the level where their paths part, on
     * the ratios of the two siblings there (which already count the protected time of everything running, and of
     * what this cycle has started). Equal ratios do not rank above, so a tie never preempts.
     *
     * <p>Kueue's stricter rule (the preemptor must still rank above after adding its new workload) was tried and
     * rejected: with budgets measured over a week, a large gang's minimum runtime is a big commitment early in a
     * window or for a small allocation, and the rule then never lets the gang preempt anyone. Thrashing is held
     * back instead by the protection every new start gets.
     */
    public boolean ranksAbove(int a, int b) {
        // the divergence walk of divergence(), without allocating: this runs for every pair of leaves each version
        int x = tree.leafNode(a);
        int y = tree.leafNode(b);
        if (x == y) {
            return false;
        }
        while (tree.depth(x) > tree.depth(y)) {
            x = tree.parent(x);
        }
        while (tree.depth(y) > tree.depth(x)) {
            y = tree.parent(y);
        }
        if (x == y) {
            return false;
        }
        while (tree.parent(x) != tree.parent(y)) {
            x = tree.parent(x);
            y = tree.parent(y);
        }
        return ratio(x) < ratio(y);
    }

    /**
     * For leaf {@code a}, which leaves it ranks strictly above ({@link #ranksAbove}), computed once per
     * {@link #version()}. The array is shared; do not change it or keep it across a change of version.
     */
    public boolean[] ranksAboveRow(int a) {
        if (aboveRowVersion[a] != version) {
            // the leaves whose paths part from a's at x's level are those under x's siblings: walking a's path up
            // visits every other leaf once, with the same two sibling ratios ranksAbove compares
            boolean[] row = aboveRow[a];
            row[a] = false;
            for (int x = tree.leafNode(a); tree.parent(x) >= 0; x = tree.parent(x)) {
                int p = tree.parent(x);
                double rx = ratio(x);
                for (int i = 0; i < tree.childrenCount(p); i++) {
                    int sib = tree.child(p, i);
                    if (sib != x) {
                        boolean above = rx < ratio(sib);
                        for (int b : leavesUnder[sib]) {
                            row[b] = above;
                        }
                    }
                }
            }
            aboveRowVersion[a] = version;
        }
        return aboveRow[a];
    }

    /** The leaves in each node's subtree (a leaf node: itself). */
    private static int[][] leavesUnder(AllocationTree tree) {
        int n = tree.nodeCount();
        int[][] under = new int[n][];
        for (int node = n - 1; node >= 0; node--) { // preorder: children come after their parent
            if (tree.childrenCount(node) == 0) {
                under[node] = new int[] {tree.leafOf(node)};
                continue;
            }
            int count = 0;
            for (int i = 0; i < tree.childrenCount(node); i++) {
                count += under[tree.child(node, i)].length;
            }
            int[] all = new int[count];
            int at = 0;
            for (int i = 0; i < tree.childrenCount(node); i++) {
                int[] c = under[tree.child(node, i)];
                System.arraycopy(c, 0, all, at, c.length);
                at += c.length;
            }
            under[node] = all;
        }
        return under;
    }

    /** The two sibling nodes where the paths of leaves a and b part, or null for the same leaf. */
    private int[] divergence(int leafA, int leafB) {
        int x = tree.leafNode(leafA);
        int y = tree.leafNode(leafB);
        if (x == y) {
            return null;
        }
        while (tree.depth(x) > tree.depth(y)) {
            x = tree.parent(x);
        }
        while (tree.depth(y) > tree.depth(x)) {
            y = tree.parent(y);
        }
        if (x == y) {
            return null; // cannot happen for two distinct leaves
        }
        while (tree.parent(x) != tree.parent(y)) {
            x = tree.parent(x);
            y = tree.parent(y);
        }
        return new int[] {x, y};
    }

    /**
     * A sentence comparing the two allocations where they part, for preemption reasons: both ratios with the GPU-hours
     * that make them ({@link #usedOfEntitlement}) and which is lower, so the deciding difference shows even when both
     * ratios are tiny (a long window).
     */
    public String explainAbove(int a, int b) {
        int[] pair = divergence(a, b);
        if (pair == null) {
            return "same allocation";
        }
        int parent = tree.parent(pair[0]);
        double ra = ratio(pair[0]);
        double rb = ratio(pair[1]);
        String lower = ra < rb ? "'" + tree.name(pair[0]) + "' is lower"
                : rb < ra ? "'" + tree.name(pair[1]) + "' is lower" : "they are equal";
        return "under '" + tree.name(parent) + "', '" + tree.name(pair[0]) + "' has been charged "
                + usedOfEntitlement(ra, usage[pair[0]], norm[pair[0]]) + " over the window and '"
                + tree.name(pair[1]) + "' " + usedOfEntitlement(rb, usage[pair[1]], norm[pair[1]]) + ": " + lower;
    }

    /**
     * How much of its entitlement a node has been charged (GPU-seconds run in the window plus the unrun part of its
     * running work's protected minimum runtimes), in the numbers that decide a ranking: the ratio with three
     * significant digits and the GPU-hours used and owed over the window, e.g. {@code "0.00149 of its entitlement
     * (2.00 of 1344 GPU-hours)"}; a node with no entitlement {@code "no entitlement (2.00 GPU-hours used)"}. The one
     * wording of fair-share numbers in reasons and explanations.
     */
    public static String usedOfEntitlement(double ratio, long usageGpuSeconds, double entitledGpuSeconds) {
        String used = Decimals.significant(usageGpuSeconds / 3600.0, 3);
        if (Double.isInfinite(ratio)) {
            return "no entitlement (" + used + " GPU-hours used)";
        }
        return Decimals.significant(ratio, 3) + " of its entitlement (" + used + " of "
                + Decimals.significant(entitledGpuSeconds / 3600.0, 3) + " GPU-hours)";
    }

    public int leafCount() {
        return leafOrder.length;
    }

    public long windowSeconds() {
        return windowSeconds;
    }
}
