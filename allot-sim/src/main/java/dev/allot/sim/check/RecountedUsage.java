package dev.allot.sim.check;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.state.SchedulerConfig;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Each allocation's usage over the lookback window, recounted by the checker from the starts and ends it heard,
 * without the state's usage ledger or the policy's fair share: what {@link PolicyRulesCheck} ranks allocations by.
 *
 * <p>The rule as the README and {@code docs/policy.md} state it: a leaf's usage is the GPU-seconds its allocated runs
 * were charged inside the window plus what its running protected work is committed to (GPUs x the rest of its
 * minimum runtime; a start that waits for a stopping attempt's GPUs has not run, and is committed to its whole minimum
 * runtime from whenever it is asked, as the state counts it while it waits). The window at time {@code t} is made of whole usage buckets: the one holding {@code t} and the
 * {@code ceil(lookback / bucket) - 1} before it, so it starts at {@code (floor(t / bucket) - K + 1) x bucket}. An
 * inner node's usage is the sum over its leaves, and its ratio that usage over what its entitlement buys in the
 * window ({@code entitlement x cluster GPUs x K x bucket}); a node with no entitlement has an infinite ratio.
 * Leaf {@code a} ranks above leaf {@code b} when, at the level where their paths part, {@code a}'s side has the
 * strictly lower ratio (a tie ranks nobody above).
 *
 * <p>Kept as intervals (GPUs, from, to) per leaf, the ended ones dropped once they lie wholly before the window:
 * exact whole GPU-seconds, and no shared code with the ledger's ring of buckets, so a bug in either shows as a
 * difference.
 */
final class RecountedUsage {
    /** GPUs of a leaf charged from {@code fromSeconds} to {@code toSeconds}. */
    private record Charge(int gpus, long fromSeconds, long toSeconds) {
    }

    /** An allocated run being charged now, and until when it is protected (its commitment). */
    private record OpenCharge(int leaf, int gpus, long fromSeconds, long protectedUntilSeconds) {
    }

    /** An allocated start that waits for a stop: committed to GPUs x its whole minimum runtime, charged nothing. */
    private record WaitingStart(int leaf, long committedGpuSeconds) {
    }

    private final AllocationTree tree;
    private final int clusterGpus;
    private final long bucketSeconds;
    private final long windowBuckets;
    private final List<ArrayDeque<Charge>> ended = new ArrayList<>();
    private final Map<String, OpenCharge> open = new HashMap<>();
    /** Allocated starts that wait for a stop, by workload. */
    private final Map<String, WaitingStart> waiting = new HashMap<>();

    RecountedUsage(AllocationTree tree, int clusterGpus, SchedulerConfig config) {
        this.tree = tree;
        this.clusterGpus = clusterGpus;
        this.bucketSeconds = config.usageBucket().getSeconds();
        long lookback = config.lookback().getSeconds();
        this.windowBuckets = Math.max(1, (lookback + bucketSeconds - 1) / bucketSeconds);
        for (int l = 0; l < tree.leafCount(); l++) {
            ended.add(new ArrayDeque<>());
        }
    }

    /** The window's length: whole buckets, {@code ceil(lookback / bucket) x bucket}. */
    long windowSeconds() {
        return windowBuckets * bucketSeconds;
    }

    long windowStartSeconds(long now) {
        return (Math.floorDiv(now, bucketSeconds) - windowBuckets + 1) * bucketSeconds;
    }

    /** Workload {@code id}'s run starts being charged: {@code gpus} of {@code leaf} from {@code from}. */
    void open(String id, int leaf, int gpus, long fromSeconds, long protectedUntilSeconds) {
        open.put(id, new OpenCharge(leaf, gpus, fromSeconds, protectedUntilSeconds));
    }

    /**
     * Workload {@code id}'s allocated start waits for a stop: not charged, committed to {@code gpus} x its whole
     * {@code protectionSeconds} until it launches or is withdrawn ({@link #stopWaiting}).
     */
    void waiting(String id, int leaf, int gpus, long protectionSeconds) {
        waiting.put(id, new WaitingStart(leaf, (long) gpus * protectionSeconds));
    }

    /** Workload {@code id} no longer waits (it launched, was withdrawn or preempted); nothing when it did not. */
    void stopWaiting(String id) {
        waiting.remove(id);
    }

    /** Workload {@code id}'s charged run ends at {@code to} (nothing when it was not charged). */
    void close(String id, long toSeconds) {
        OpenCharge c = open.remove(id);
        if (c != null && toSeconds > c.fromSeconds()) {
            ended.get(c.leaf()).addLast(new Charge(c.gpus(), c.fromSeconds(), toSeconds));
        }
    }

    /** Every leaf's usage at {@code now}: charged inside the window plus committed. */
    long[] leafUsage(long now) {
        long start = windowStartSeconds(now);
        long[] usage = new long[tree.leafCount()];
        for (int l = 0; l < usage.length; l++) {
            ArrayDeque<Charge> list = ended.get(l);
            while (!list.isEmpty() && list.peekFirst().toSeconds() <= start) {
                list.pollFirst(); // ends are added in time order, and the window only moves on
            }
            for (Charge c : list) {
                usage[l] += (long) c.gpus() * (c.toSeconds() - Math.max(c.fromSeconds(), start));
            }
        }
        for (OpenCharge c : open.values()) {
            usage[c.leaf()] += (long) c.gpus() * (now - Math.max(c.fromSeconds(), start));
            if (c.protectedUntilSeconds() > now) {
                usage[c.leaf()] += (long) c.gpus() * (c.protectedUntilSeconds() - now);
            }
        }
        for (WaitingStart w : waiting.values()) {
            usage[w.leaf()] += w.committedGpuSeconds();
        }
        return usage;
    }

    /** A tree node's usage: the sum over the leaves under it. */
    private long nodeUsage(long[] leafUsage, int node) {
        long u = 0;
        for (int l = 0; l < leafUsage.length; l++) {
            if (tree.isWithin(tree.leafNode(l), node)) {
                u += leafUsage[l];
            }
        }
        return u;
    }

    private double ratio(int node, long usage) {
        double entitled = tree.entitlement(node) * clusterGpus * (double) windowSeconds();
        return entitled > 0 ? usage / entitled : Double.POSITIVE_INFINITY;
    }

    /** The comparison of two leaves where their paths part, at {@code now}. */
    record Parting(String aSide, double aRatio, String bSide, double bRatio) {
        boolean aAbove() {
            return aRatio < bRatio;
        }

        @Override
        public String toString() {
            return "where their paths part, '" + aSide + "' has used " + aRatio + " of its entitlement over the window"
                    + " and '" + bSide + "' " + bRatio;
        }
    }

    /** Where the paths of two distinct leaves part, and both sides' ratios there. */
    Parting parting(int leafA, int leafB, long now) {
        int x = tree.leafNode(leafA);
        int y = tree.leafNode(leafB);
        while (tree.depth(x) > tree.depth(y)) {
            x = tree.parent(x);
        }
        while (tree.depth(y) > tree.depth(x)) {
            y = tree.parent(y);
        }
        while (tree.parent(x) != tree.parent(y)) {
            x = tree.parent(x);
            y = tree.parent(y);
        }
        long[] usage = leafUsage(now);
        return new Parting(tree.path(x), ratio(x, nodeUsage(usage, x)), tree.path(y), ratio(y, nodeUsage(usage, y)));
    }
}
