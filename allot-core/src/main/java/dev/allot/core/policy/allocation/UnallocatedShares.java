package dev.allot.core.policy.allocation;

/**
 * The order in which allocations get idle GPUs for their unallocated work (minimum runtime 0) in one cycle: fewest
 * running unallocated GPUs per GPU of quota first, then serving order (which ends in names). Unallocated work is free
 * and never charged, so fair share over the window does not order it; dividing what is idle in proportion to the
 * budgets does, as a water level: an allocation's sweep grows only while it holds no more of the free GPUs, per GPU
 * of its quota, than the others that also want them. The wait explainer's serving order uses it too. An allocation without a quota (share 0) comes after every
 * allocation with one, ordered among its kind by unallocated GPUs held.
 *
 * <p>A comparator chain: (1) has a quota before has none; (2) held / quota, lower first (without a quota: held,
 * lower first); (3) serving order.
 */
public final class UnallocatedShares {
    private final long[] heldGpus;
    private final double[] quotaGpus;
    private final int[] servingRank;

    /**
     * @param heldGpus    per leaf, the unallocated GPUs running and kept this cycle (updated by {@link #started})
     * @param quotas      the cycle's quotas
     * @param servingRank per leaf, its position in serving order
     */
    public UnallocatedShares(long[] heldGpus, Entitlements quotas, int[] servingRank) {
        this.heldGpus = heldGpus;
        this.servingRank = servingRank;
        this.quotaGpus = new double[heldGpus.length];
        for (int l = 0; l < heldGpus.length; l++) {
            quotaGpus[l] = quotas.quotaGpus(l);
        }
    }

    /** Whether leaf {@code a} gets the next idle GPUs before leaf {@code b}. */
    public boolean before(int a, int b) {
        boolean qa = quotaGpus[a] > 0;
        boolean qb = quotaGpus[b] > 0;
        if (qa != qb) {
            return qa;
        }
        double la = qa ? heldGpus[a] / quotaGpus[a] : heldGpus[a];
        double lb = qb ? heldGpus[b] / quotaGpus[b] : heldGpus[b];
        if (la != lb) {
            return la < lb;
        }
        return servingRank[a] < servingRank[b];
    }

    /** Counts a start of {@code gpus} unallocated GPUs for {@code leaf}. */
    public void started(int leaf, int gpus) {
        heldGpus[leaf] += gpus;
    }
}
