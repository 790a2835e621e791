package dev.allot.core.policy.slurm;

import dev.allot.core.model.AllocationTree;
import java.util.Arrays;

/**
 * Slurm's Fair Tree fair-share algorithm (<a href="https://slurm.schedmd.com/fair_tree.html">fair_tree.html</a>),
 * on the allocation tree read as Slurm's association tree: inner nodes are accounts, leaves are the user
 * associations jobs run under, and a node's share is its Slurm {@code Shares}.
 *
 * <p>For every node other than the root, the <em>Level Fairshare</em> is {@code LF = S / U}, where {@code S} is the
 * node's shares over the shares of itself and its siblings, and {@code U} its usage over the usage of its parent
 * (itself and its siblings). {@code S = 0} gives {@code LF = 0}; {@code U = 0} (including a parent with no usage)
 * gives {@code LF = +infinity}. Starting at the root, the children of a node are sorted by {@code LF}, highest first,
 * and visited depth-first; leaves (users) are ranked in the order they are met, from {@code rank = number of
 * leaves} down, and a leaf's fair-share factor is {@code rank / number of leaves} (the first one gets 1.0).
 *
 * <p>Ties, as the documentation specifies them:
 * <ul>
 *   <li>sibling users with the same Level Fairshare receive the same rank;</li>
 *   <li>a user with the same Level Fairshare as a sibling account receives the same rank as that account's
 *   highest-ranked user (users sort ahead of accounts on a tie, and the account's first user inherits the
 *   tie);</li>
 *   <li>sibling accounts with the same Level Fairshare have their children lists merged before descending (each
 *   child keeps the Level Fairshare computed among its own siblings).</li>
 * </ul>
 * A rank skipped by a tie is not reused: after two users tied at rank {@code n}, the next one gets {@code n - 2}
 * (Slurm keeps a "rank, no ties" counter that every user decrements).
 *
 * <p>One known difference from Slurm's source: in {@code fair_tree.c} the loop that counts tied sibling accounts
 * stops at the first account it meets, so released versions never merge tied accounts; they visit them one after
 * the other, the first user of the second account tied with the last user of the first. This class follows the
 * documented rule. Both agree whenever the tied accounts' children are themselves all tied, which is the case that
 * occurs in practice: accounts without any usage, all at {@code LF = +infinity}.
 *
 * <p>Arithmetic is in {@code double} (Slurm uses {@code long double}); order among exactly equal values that the
 * rules leave open is the tree's preorder, so the result is deterministic. Not thread-safe; one instance per tree.
 */
public final class FairTree {
    private final AllocationTree tree;
    private final double[] usage;
    private final double[] shareSum;
    private final double[] levelFs;
    private final int[] rank;
    private final Integer[] order;
    private int rankCounter;
    private int rankNoTies;

    public FairTree(AllocationTree tree) {
        this.tree = tree;
        int n = tree.nodeCount();
        this.usage = new double[n];
        this.shareSum = new double[n];
        this.levelFs = new double[n];
        this.rank = new int[tree.leafCount()];
        this.order = new Integer[tree.leafCount()];
        for (int node = 0; node < n; node++) {
            double s = 0;
            for (int i = 0; i < tree.childrenCount(node); i++) {
                s += tree.share(tree.child(node, i));
            }
            shareSum[node] = s;
        }
    }

    public AllocationTree tree() {
        return tree;
    }

    /**
     * Ranks every leaf from the usage of each leaf (any unit: only ratios matter; an inner node's usage is the sum
     * over the leaves below it).
     */
    public void compute(double[] leafUsage) {
        if (leafUsage.length != tree.leafCount()) {
            throw new IllegalArgumentException("expected usage for " + tree.leafCount() + " leaves, got " + leafUsage.length);
        }
        Arrays.fill(usage, 0);
        for (int l = 0; l < leafUsage.length; l++) {
            double u = leafUsage[l];
            if (!(u >= 0) || Double.isInfinite(u)) {
                throw new IllegalArgumentException("usage of " + tree.leafName(l) + " must be finite and >= 0, got " + u);
            }
            for (int node = tree.leafNode(l); node >= 0; node = tree.parent(node)) {
                usage[node] += u;
            }
        }
        levelFs[0] = Double.NaN; // the root has none
        for (int node = 1; node < tree.nodeCount(); node++) {
            int parent = tree.parent(node);
            double s = shareSum[parent] > 0 ? tree.share(node) / shareSum[parent] : 0;
            double u = usage[parent] > 0 ? usage[node] / usage[parent] : 0;
            levelFs[node] = s == 0 ? 0 : s / u; // u == 0 gives +infinity, a valid value
        }
        rankCounter = tree.leafCount();
        rankNoTies = tree.leafCount();
        if (tree.isLeaf(0)) {
            rank[0] = rankCounter; // a tree that is a single association
            return;
        }
        visit(tree.children(0), false);
    }

    /** Sorts one list of siblings (or merged cousins) and ranks the users below them, depth-first. */
    private void visit(int[] siblings, boolean accountTied) {
        Integer[] sorted = new Integer[siblings.length];
        for (int i = 0; i < siblings.length; i++) {
            sorted[i] = siblings[i];
        }
        Arrays.sort(sorted, this::compareSiblings);
        double previous = Double.NaN;
        for (int i = 0; i < sorted.length; i++) {
            int node = sorted[i];
            boolean tied = i == 0 ? accountTied : levelFs[node] == previous;
            if (tree.isLeaf(node)) {
                if (!tied) {
                    rankCounter = rankNoTies;
                }
                rank[tree.leafOf(node)] = rankCounter;
                rankNoTies--;
            } else {
                int last = i;
                while (last + 1 < sorted.length && !tree.isLeaf(sorted[last + 1]) && levelFs[sorted[last + 1]] == levelFs[node]) {
                    last++;
                }
                int count = 0;
                for (int k = i; k <= last; k++) {
                    count += tree.childrenCount(sorted[k]);
                }
                int[] merged = new int[count];
                int pos = 0;
                for (int k = i; k <= last; k++) {
                    for (int c = 0; c < tree.childrenCount(sorted[k]); c++) {
                        merged[pos++] = tree.child(sorted[k], c);
                    }
                }
                visit(merged, tied);
                i = last;
            }
            previous = levelFs[node];
        }
    }

    /** Higher Level Fairshare first; on a tie users before accounts; then preorder. */
    private int compareSiblings(int a, int b) {
        int c = Double.compare(levelFs[b], levelFs[a]);
        if (c != 0) {
            return c;
        }
        boolean la = tree.isLeaf(a);
        boolean lb = tree.isLeaf(b);
        if (la != lb) {
            return la ? -1 : 1;
        }
        return Integer.compare(a, b);
    }

    /** The Level Fairshare of a node as of the last {@link #compute} (NaN for the root). */
    public double levelFs(int node) {
        return levelFs[node];
    }

    /** The usage of a node as of the last {@link #compute}: its own, or the sum over its leaves. */
    public double usage(int node) {
        return usage[node];
    }

    /** The rank of a leaf: the number of leaves for the first, counting down; tied leaves share one. */
    public int rank(int leaf) {
        return rank[leaf];
    }

    /** The fair-share factor of a leaf, {@code rank / number of leaves}, in (0, 1]. */
    public double factor(int leaf) {
        return rank[leaf] / (double) tree.leafCount();
    }

    /** The leaves from the highest factor to the lowest (ties in preorder). A fresh array. */
    public int[] leafOrder() {
        for (int l = 0; l < order.length; l++) {
            order[l] = l;
        }
        Arrays.sort(order, (a, b) -> rank[a] != rank[b] ? Integer.compare(rank[b], rank[a]) : Integer.compare(a, b));
        int[] out = new int[order.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = order[i];
        }
        return out;
    }
}
