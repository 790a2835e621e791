package dev.allot.core.policy.kueue;

import dev.allot.core.model.Decimals;

/**
 * A dominant resource share (DRS) as Kueue computes it for a ClusterQueue or a cohort with a parent: the quota it
 * uses above its own (subtree) quota, in thousandths of what its parent's tree could lend it, divided by its fair
 * sharing weight. With one resource (GPUs) the dominant resource is always that one.
 *
 * <p>Zero means the node is not borrowing. A node with weight 0 that borrows has an infinite share; two such nodes
 * compare on their unweighted ratios. Values are the precise ones (doubles, as Kueue compares them since it stopped
 * truncating shares to whole thousandths, which made small borrowings look like none).
 *
 * @param borrowing  whether the node uses more than its quota
 * @param unweighted borrowed x 1000 / lendable
 * @param weight     the node's fair sharing weight
 */
public record Share(boolean borrowing, double unweighted, double weight) {
    /** The share of a node that borrows nothing. */
    public static final Share NONE = new Share(false, 0, 1);

    /** Whether the node borrows while having weight zero: an infinite share. */
    public boolean infinite() {
        return infinite(borrowing, weight);
    }

    /** {@link #infinite()} of a share with these parts. */
    static boolean infinite(boolean borrowing, double weight) {
        return borrowing && weight == 0;
    }

    /** The share divided by the weight; +infinity for a zero-weight borrower. */
    public double weighted() {
        if (infinite()) {
            return Double.POSITIVE_INFINITY;
        }
        return finiteWeighted(unweighted, weight);
    }

    private static double finiteWeighted(double unweighted, double weight) {
        if (unweighted == 0) {
            return 0;
        }
        return unweighted / weight;
    }

    /**
     * What {@link #compare} orders a share of these parts by among shares of its kind (infinite or not): the
     * unweighted ratio of an infinite share, else the weighted share. With {@link #infinite(boolean, double)} it lets
     * a caller compare shares without making them.
     */
    static double orderKey(boolean borrowing, double unweighted, double weight) {
        return infinite(borrowing, weight) ? unweighted : finiteWeighted(unweighted, weight);
    }

    /** Kueue's {@code IsZero}: the unweighted ratio is zero (the node borrows nothing). */
    public boolean isZero() {
        return unweighted == 0;
    }

    /**
     * Kueue's order of shares: lower is preferred for admission, higher for preemption. Zero-weight borrowers rank
     * above everyone else and among themselves by unweighted ratio.
     */
    public static int compare(Share a, Share b) {
        return compare(a.infinite(), orderKey(a.borrowing, a.unweighted, a.weight),
                b.infinite(), orderKey(b.borrowing, b.unweighted, b.weight));
    }

    /** {@link #compare(Share, Share)} on each share's {@link #infinite(boolean, double)} and {@link #orderKey}. */
    static int compare(boolean aInfinite, double aKey, boolean bInfinite, double bKey) {
        if (aInfinite && bInfinite) {
            return Double.compare(aKey, bKey);
        }
        if (aInfinite) {
            return 1;
        }
        if (bInfinite) {
            return -1;
        }
        return Double.compare(aKey, bKey);
    }

    @Override
    public String toString() {
        if (infinite()) {
            return "inf";
        }
        return Decimals.fixed(weighted(), 1);
    }
}
