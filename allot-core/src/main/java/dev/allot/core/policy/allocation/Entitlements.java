package dev.allot.core.policy.allocation;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Decimals;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;

/**
 * What each allocation is owed right now and what it holds, for one scheduling cycle: the instant half of Allot's
 * decision rule (the lookback half is {@link FairShare}).
 *
 * <p>An allocation's <b>quota</b> is its entitlement times the healthy GPUs: the GPUs it is owed this hour while its
 * allocated work asks for at least that many (the seed's own measure of "paid": owed = entitlement capped by demand,
 * hour by hour). Its <b>standing</b> is the allocated GPUs it holds over its quota: below 1.0 it is <i>owed</i>, and its
 * waiting work goes ahead of every allocation that is not, and may reclaim GPUs from allocations standing well above
 * it (see {@code preemption.PreemptionRules}); at or above 1.0 it is <i>bursting</i>, and only the lookback window
 * orders it against other bursting allocations. Unallocated work holds nothing here: it is never owed and always
 * preemptible.
 *
 * <p>Starts and preemptions decided in the cycle update the holdings at once, so the next decision sees them; the
 * {@link #version()} changes with every update.
 */
public final class Entitlements {
    private final AllocationTree tree;
    private final double[] quotaGpus;
    private final long[] heldGpus;
    private long version;

    public Entitlements(AllocationTree tree) {
        this.tree = tree;
        this.quotaGpus = new double[tree.leafCount()];
        this.heldGpus = new long[tree.leafCount()];
    }

    /** Reads quotas (entitlement x healthy GPUs) and the allocated GPUs each allocation holds from the state. */
    public void reset(ClusterState state) {
        int healthy = state.nodes().healthyGpus();
        for (int l = 0; l < quotaGpus.length; l++) {
            quotaGpus[l] = tree.leafEntitlement(l) * healthy;
            heldGpus[l] = state.protections().heldGpus(l);
        }
        version++;
    }

    /** A start decided in this cycle: allocated work adds its GPUs to its allocation's holdings. */
    public void started(Job job) {
        if (job.allocated()) {
            heldGpus[job.leaf()] += job.gpus();
            version++;
        }
    }

    /** A preemption decided in this cycle: allocated work gives its GPUs back. */
    public void preempted(Job job) {
        if (job.allocated()) {
            heldGpus[job.leaf()] -= job.gpus();
            version++;
        }
    }

    /** Changes with every update of the holdings. */
    public long version() {
        return version;
    }

    /** GPUs the allocation is owed while its demand lasts: entitlement x healthy GPUs (fractional). */
    public double quotaGpus(int leaf) {
        return quotaGpus[leaf];
    }

    /** Allocated GPUs the allocation holds, counting this cycle's decisions. */
    public long heldGpus(int leaf) {
        return heldGpus[leaf];
    }

    /** Held over quota; +infinity for an allocation with no quota (no entitlement, or no healthy GPUs). */
    public double standing(int leaf) {
        return standingWith(leaf, 0);
    }

    /** The standing after adding {@code gpus} (negative: removing) to the holdings. */
    public double standingWith(int leaf, long gpus) {
        double q = quotaGpus[leaf];
        return q > 0 ? (heldGpus[leaf] + gpus) / q : Double.POSITIVE_INFINITY;
    }

    /** Whether the allocation holds less than its quota: its waiting work is owed GPUs now. */
    public boolean owed(int leaf) {
        return heldGpus[leaf] < quotaGpus[leaf];
    }

    /**
     * The most GPUs that may be taken from {@code leaf} by preemption for another allocation: none unless it holds at
     * least {@code (1 + margin)} x its quota (well above what it is owed), and then down to its quota, never below;
     * all it holds when it has no quota.
     */
    public long reclaimableGpus(int leaf, double margin) {
        double q = quotaGpus[leaf];
        if (q <= 0) {
            return heldGpus[leaf];
        }
        if (heldGpus[leaf] < q * (1 + margin) - 1e-9) {
            return 0;
        }
        return Math.max(0, (long) Math.floor(heldGpus[leaf] - q + 1e-9));
    }

    /** "holds 12 of its 7.68 GPUs (1.56)": the numbers that decide standing, in words. */
    public String describe(int leaf) {
        double q = quotaGpus[leaf];
        return "holds " + heldGpus[leaf] + " GPUs of its quota of " + Decimals.significant(q, 3)
                + (q > 0 ? " (standing " + Decimals.significant(standing(leaf), 3) + ")" : "");
    }
}
