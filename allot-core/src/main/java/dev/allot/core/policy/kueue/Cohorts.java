package dev.allot.core.policy.kueue;

import dev.allot.core.model.AllocationTree;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A Kueue cohort tree with one resource (GPUs): cohorts as inner nodes, ClusterQueues as leaves, each with a fair
 * sharing weight, and the live quota usage of every node. Node 0 is the root cohort.
 *
 * <p>Quotas follow Kueue's resource nodes without borrowing or lending limits: a ClusterQueue's subtree quota is its
 * nominal quota, a cohort's is the sum of its children's (cohorts here have no quota of their own), and a node's
 * usage is the sum of its subtree's. So a ClusterQueue may use whatever its whole tree has unused
 * ({@link #available()}), and what every node could borrow, its lendable quota, is the root's quota.
 *
 * <p>Usage changes as a cycle admits and preempts; callers that simulate ("what if this workload were admitted")
 * add and then remove the usage themselves.
 */
public final class Cohorts {
    private final String[] name;
    private final int[] parent;
    private final int[] depth;
    private final double[] weight;
    private final long[] quota;
    private final long[] usage;
    private final int[] cqOfNode;
    private final int[] nodeOfCq;
    private final int[][] childCohorts;
    private final int[][] childCqs;
    /** Counts the changes of usage, so that callers may keep what they derived from it until the next change. */
    private long usageVersion;
    /**
     * Per node, the parts of its share {@link Share#compare} orders by, and the usage they were computed from
     * ({@link Long#MIN_VALUE}: none yet). A node's share depends on its usage alone (quotas, weights and the lendable
     * quota are fixed), so the parts stay right while the usage does; the preemption search asks them at every pick.
     */
    private final long[] partsUsage;
    private final boolean[] partsZero;
    private final boolean[] partsInfinite;
    private final double[] partsKey;

    private Cohorts(Builder b) {
        int n = b.names.size();
        name = b.names.toArray(new String[0]);
        parent = b.parents.stream().mapToInt(Integer::intValue).toArray();
        weight = b.weights.stream().mapToDouble(Double::doubleValue).toArray();
        depth = new int[n];
        quota = new long[n];
        usage = new long[n];
        partsUsage = new long[n];
        Arrays.fill(partsUsage, Long.MIN_VALUE);
        partsZero = new boolean[n];
        partsInfinite = new boolean[n];
        partsKey = new double[n];
        cqOfNode = new int[n];
        Arrays.fill(cqOfNode, -1);
        nodeOfCq = b.cqNodes.stream().mapToInt(Integer::intValue).toArray();
        List<List<Integer>> cohortKids = new ArrayList<>();
        List<List<Integer>> cqKids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cohortKids.add(new ArrayList<>());
            cqKids.add(new ArrayList<>());
        }
        for (int q = 0; q < nodeOfCq.length; q++) {
            cqOfNode[nodeOfCq[q]] = q;
        }
        for (int i = 1; i < n; i++) {
            depth[i] = depth[parent[i]] + 1;
            (cqOfNode[i] >= 0 ? cqKids : cohortKids).get(parent[i]).add(i);
        }
        childCohorts = new int[n][];
        childCqs = new int[n][];
        for (int i = 0; i < n; i++) {
            childCohorts[i] = cohortKids.get(i).stream().mapToInt(Integer::intValue).toArray();
            childCqs[i] = cqKids.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
        for (int q = 0; q < nodeOfCq.length; q++) {
            for (int node = nodeOfCq[q]; node >= 0; node = parent[node]) {
                quota[node] += b.nominal.get(q);
            }
        }
    }

    /** Starts a tree whose root cohort has this name. */
    public static Builder builder(String rootName) {
        return new Builder(rootName);
    }

    /**
     * The ClusterQueues of an allocation tree: one per leaf (ClusterQueue i is leaf i) with nominal quota
     * {@link #nominalQuotas}, plus one ClusterQueue for unallocated work (number {@code leafCount}) with nominal quota
     * 0 and weight 0 under the root cohort. Flat: every ClusterQueue in the root cohort, weighted by its leaf's
     * entitlement. Hierarchical: every inner node of the tree is a cohort, every node weighted by its share.
     */
    public static Cohorts forAllocations(AllocationTree tree, int clusterGpus, boolean hierarchical, String unallocatedName) {
        long[] nominal = nominalQuotas(tree, clusterGpus);
        Builder b = builder(tree.name(0));
        if (!hierarchical) {
            for (int l = 0; l < tree.leafCount(); l++) {
                b.clusterQueue(tree.leafName(l), 0, nominal[l], tree.leafEntitlement(l));
            }
        } else {
            int[] nodeFor = new int[tree.nodeCount()];
            // cohorts first (preorder keeps parents before children), then leaves in leaf order
            for (int node = 1; node < tree.nodeCount(); node++) {
                if (!tree.isLeaf(node)) {
                    nodeFor[node] = b.cohort(tree.name(node), nodeFor[tree.parent(node)], tree.share(node));
                }
            }
            for (int l = 0; l < tree.leafCount(); l++) {
                int node = tree.leafNode(l);
                b.clusterQueue(tree.name(node), nodeFor[tree.parent(node)], nominal[l], tree.share(node));
            }
        }
        b.clusterQueue(unallocatedName, 0, 0, 0);
        return b.build();
    }

    /**
     * Nominal quotas of the leaves: {@code entitlement x cluster GPUs} rounded by largest remainder, so that they
     * add up to the cluster exactly: every leaf gets the whole part, and the GPUs left over go one each to the leaves
     * with the largest fractional parts (ties to the earlier leaf).
     */
    public static long[] nominalQuotas(AllocationTree tree, int clusterGpus) {
        int leaves = tree.leafCount();
        long[] q = new long[leaves];
        double[] frac = new double[leaves];
        long sum = 0;
        for (int l = 0; l < leaves; l++) {
            double exact = tree.leafEntitlement(l) * clusterGpus;
            q[l] = (long) Math.floor(exact);
            frac[l] = exact - q[l];
            sum += q[l];
        }
        Integer[] byFrac = new Integer[leaves];
        for (int l = 0; l < leaves; l++) {
            byFrac[l] = l;
        }
        Arrays.sort(byFrac, (a, b) -> frac[a] != frac[b] ? Double.compare(frac[b], frac[a]) : Integer.compare(a, b));
        for (int i = 0; sum < clusterGpus && i < leaves; i++) {
            if (tree.leafEntitlement(byFrac[i]) > 0) {
                q[byFrac[i]]++;
                sum++;
            }
        }
        return q;
    }

    public int nodeCount() {
        return name.length;
    }

    public int cqCount() {
        return nodeOfCq.length;
    }

    public int cqNode(int cq) {
        return nodeOfCq[cq];
    }

    /** The ClusterQueue number of a node, or -1 for a cohort. */
    public int cqOf(int node) {
        return cqOfNode[node];
    }

    public boolean isClusterQueue(int node) {
        return cqOfNode[node] >= 0;
    }

    public String name(int node) {
        return name[node];
    }

    public String cqName(int cq) {
        return name[nodeOfCq[cq]];
    }

    public int parent(int node) {
        return parent[node];
    }

    public int depth(int node) {
        return depth[node];
    }

    public double weight(int node) {
        return weight[node];
    }

    /** Subtree quota: the nominal quota of a ClusterQueue, the sum of its children's for a cohort. */
    public long quota(int node) {
        return quota[node];
    }

    public long usage(int node) {
        return usage[node];
    }

    public long nominal(int cq) {
        return quota[nodeOfCq[cq]];
    }

    public long cqUsage(int cq) {
        return usage[nodeOfCq[cq]];
    }

    /** Child cohorts of a cohort, in declaration order. Shared; do not change. */
    public int[] childCohorts(int node) {
        return childCohorts[node];
    }

    /** Child ClusterQueues (as nodes) of a cohort, in declaration order. Shared; do not change. */
    public int[] childClusterQueues(int node) {
        return childCqs[node];
    }

    /** What a node could borrow at most: the root's quota (no borrowing or lending limits). */
    public long lendable() {
        return quota[0];
    }

    /** Unused quota in the whole tree: what any ClusterQueue may still admit. */
    public long available() {
        return quota[0] - usage[0];
    }

    /**
     * A number that changes whenever any usage changes ({@link #addUsage}, {@link #setUsage}), including changes
     * undone since: equal numbers mean the usage was not touched in between.
     */
    public long usageVersion() {
        return usageVersion;
    }

    /** Whether every ClusterQueue lies directly in the root cohort (no cohorts below the root). */
    public boolean flat() {
        for (int node : nodeOfCq) {
            if (parent[node] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether a node uses more than its subtree quota. */
    public boolean borrowing(int node) {
        return usage[node] > quota[node];
    }

    /** Adds (or with a negative delta removes) usage of a ClusterQueue, up to the root. */
    public void addUsage(int cq, long delta) {
        usageVersion++;
        for (int node = nodeOfCq[cq]; node >= 0; node = parent[node]) {
            usage[node] += delta;
        }
        if (usage[0] < 0) {
            throw new IllegalStateException("negative usage after " + delta + " on " + cqName(cq));
        }
    }

    /** Replaces every node's usage with the given ClusterQueue usages. */
    public void setUsage(long[] cqUsage) {
        usageVersion++;
        Arrays.fill(usage, 0);
        for (int q = 0; q < cqUsage.length; q++) {
            addUsage(q, cqUsage[q]);
        }
    }

    /** The node's dominant resource share now; the root's is always zero (it has no parent to borrow from). */
    public Share share(int node) {
        return shareOf(node, usage[node]);
    }

    /**
     * The share the node would have with {@code delta} more usage, as {@link #share} would compute it after
     * {@link #addUsage} of {@code delta} on a ClusterQueue below it (the lendable quota does not depend on usage),
     * without changing anything.
     */
    public Share shareIfAdded(int node, long delta) {
        return shareOf(node, usage[node] + delta);
    }

    private Share shareOf(int node, long nodeUsage) {
        if (parent[node] < 0) {
            return Share.NONE;
        }
        return new Share(borrowsWith(node, nodeUsage), unweightedShare(node, nodeUsage), weight[node]);
    }

    /** Whether the node would borrow with this usage ({@link Share#borrowing} of its share). */
    public boolean borrowsWith(int node, long nodeUsage) {
        return nodeUsage > quota[node];
    }

    /**
     * The unweighted ratio of the share the node would have with this usage ({@link Share#unweighted}): what it uses
     * above its quota, in thousandths of the lendable quota; 0 when it borrows nothing. For a node below the root.
     */
    public double unweightedShare(int node, long nodeUsage) {
        long borrowed = nodeUsage - quota[node];
        if (borrowed <= 0) {
            return 0;
        }
        long lr = lendable();
        return lr > 0 ? borrowed * 1000.0 / lr : 0;
    }

    /**
     * {@link Share#compare} of node a's share with {@code aDelta} more usage and node b's with {@code bDelta} more
     * ({@link #shareIfAdded}), without making either share.
     */
    public int compareIfAdded(int a, long aDelta, int b, long bDelta) {
        long ua = usage[a] + aDelta;
        long ub = usage[b] + bDelta;
        return Share.compare(infiniteWith(a, ua), keyWith(a, ua), infiniteWith(b, ub), keyWith(b, ub));
    }

    private boolean infiniteWith(int node, long nodeUsage) {
        return parent[node] >= 0 && Share.infinite(borrowsWith(node, nodeUsage), weight[node]);
    }

    private double keyWith(int node, long nodeUsage) {
        if (parent[node] < 0) {
            return Share.orderKey(Share.NONE.borrowing(), Share.NONE.unweighted(), Share.NONE.weight());
        }
        boolean borrowing = borrowsWith(node, nodeUsage);
        return Share.orderKey(borrowing, unweightedShare(node, nodeUsage), weight[node]);
    }

    /** Brings the kept parts of a node's share (below the root) up to its usage now. */
    void refreshShareParts(int node) {
        long used = usage[node];
        if (partsUsage[node] != used) {
            boolean borrowing = borrowsWith(node, used);
            double unweighted = unweightedShare(node, used);
            partsZero[node] = unweighted == 0;
            partsInfinite[node] = Share.infinite(borrowing, weight[node]);
            partsKey[node] = Share.orderKey(borrowing, unweighted, weight[node]);
            partsUsage[node] = used;
        }
    }

    /** After {@link #refreshShareParts}: whether the node's share is zero ({@link Share#isZero}). */
    boolean shareZero(int node) {
        return partsZero[node];
    }

    /** After {@link #refreshShareParts}: whether node a's share is at least node b's ({@link Share#compare}). */
    boolean shareAtLeast(int a, int b) {
        return Share.compare(partsInfinite[a], partsKey[a], partsInfinite[b], partsKey[b]) >= 0;
    }

    /** Whether {@code ancestor} is {@code node} or lies above it. */
    public boolean isAncestorOrSelf(int ancestor, int node) {
        for (int x = node; x >= 0; x = parent[x]) {
            if (x == ancestor) {
                return true;
            }
        }
        return false;
    }

    /**
     * Kueue's AlmostLCA(a, b): the last node before the lowest common ancestor of a and b on the path from a up;
     * {@code a} itself when a and b share their parent. For a == b, a.
     */
    public int almostLca(int a, int b) {
        if (a == b) {
            return a;
        }
        int x = a;
        int y = b;
        while (depth[y] > depth[x]) {
            y = parent[y];
        }
        int belowX = -1;
        while (depth[x] > depth[y]) {
            belowX = x;
            x = parent[x];
        }
        if (x == y) {
            return belowX; // b lies on a's path up (cannot happen for two ClusterQueues)
        }
        while (parent[x] != parent[y]) {
            x = parent[x];
            y = parent[y];
        }
        return x;
    }

    /** Builds a cohort tree node by node; parents before children. */
    public static final class Builder {
        private final List<String> names = new ArrayList<>();
        private final List<Integer> parents = new ArrayList<>();
        private final List<Double> weights = new ArrayList<>();
        private final List<Integer> cqNodes = new ArrayList<>();
        private final List<Long> nominal = new ArrayList<>();

        private Builder(String rootName) {
            add(rootName, -1, 1);
        }

        private int add(String n, int p, double w) {
            if (p >= names.size() || (p >= 0 && cqNodes.contains(p))) {
                throw new IllegalArgumentException("parent of " + n + " must be a cohort added before it");
            }
            if (!(w >= 0) || Double.isInfinite(w)) {
                throw new IllegalArgumentException("weight of " + n + " must be finite and >= 0, got " + w);
            }
            names.add(n);
            parents.add(p);
            weights.add(w);
            return names.size() - 1;
        }

        /** Adds a cohort under {@code parent} (a node number); returns its node number. */
        public int cohort(String n, int parent, double weight) {
            return add(n, parent, weight);
        }

        /** Adds a ClusterQueue under cohort {@code parent}; returns its node number (ClusterQueues are numbered in order). */
        public int clusterQueue(String n, int parent, long nominalQuota, double weight) {
            if (nominalQuota < 0) {
                throw new IllegalArgumentException("nominal quota of " + n + " must be >= 0");
            }
            int node = add(n, parent, weight);
            cqNodes.add(node);
            nominal.add(nominalQuota);
            return node;
        }

        public Cohorts build() {
            return new Cohorts(this);
        }
    }
}
