package dev.allot.core.policy.kueue;

/**
 * For a flat cohort tree (every ClusterQueue in the root cohort), the ClusterQueues that could give up work to another:
 * those running something in this pass that borrow. There a preemptor's side is its own ClusterQueue and a target's
 * side is the target's, so {@link PreemptionCandidates}'s eligibility bound finds no source, for a preemptor without
 * lower-priority work of its own, exactly when either the preemptor stays within its nominal quota and no other
 * ClusterQueue offers, or its share with the workload admitted is above the highest share of the others that offer.
 * Share order is a total preorder, so the highest share of the others is the highest or, when the preemptor's
 * ClusterQueue holds it, the second highest. Kept until usage ({@link Cohorts#usageVersion}) or the admitted work (the
 * pass, its admissions and evictions) changes.
 */
final class OfferingSources {
    private final Cohorts cohorts;
    private final int cqCount;
    private boolean stale = true;
    /** Per ClusterQueue, the GPUs it has admitted in the pass (the caller's, read at each refresh). */
    private long[] passRunning;
    private long version;
    private int count;
    private int highest = -1;
    private int secondHighest = -1;
    /**
     * Every ClusterQueue's usage when last refreshed: a search adds and takes back usage, which changes the
     * version but not the usage, and the offering depends on the usage only (every node's is the sum of its
     * ClusterQueues'), besides the admitted work ({@link #stale}).
     */
    private final long[] usageAt;
    private final boolean[] offers;

    OfferingSources(Cohorts cohorts) {
        this.cohorts = cohorts;
        this.cqCount = cohorts.cqCount();
        this.usageAt = new long[cqCount];
        this.offers = new boolean[cqCount];
    }

    /** The admitted work changed (a new pass, an admission or an eviction): refresh at the next question. */
    void markStale() {
        stale = true;
    }

    private boolean sameUsage() {
        for (int q = 0; q < cqCount; q++) {
            if (usageAt[q] != cohorts.cqUsage(q)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether no ClusterQueue could give up work to a workload of {@code gpus} GPUs of {@code cq}, given the GPUs each
     * ClusterQueue has admitted in the pass ({@code admitted}, the same array while nothing is stale).
     */
    boolean none(int cq, long gpus, long[] admitted) {
        if (admitted != passRunning) {
            passRunning = admitted;
            stale = true;
        }
        refresh();
        int x = cohorts.cqNode(cq);
        if (cohorts.usage(x) + gpus <= cohorts.quota(x)) {
            return count - (offers[cq] ? 1 : 0) == 0;
        }
        int other = highest != cq ? highest : secondHighest;
        return other < 0 || cohorts.compareIfAdded(x, gpus, cohorts.cqNode(other), 0) > 0;
    }

    private void refresh() {
        if (!stale && (version == cohorts.usageVersion() || sameUsage())) {
            version = cohorts.usageVersion();
            return;
        }
        for (int q = 0; q < cqCount; q++) {
            usageAt[q] = cohorts.cqUsage(q);
        }
        count = 0;
        highest = -1;
        secondHighest = -1;
        for (int q = 0; q < cqCount; q++) {
            int y = cohorts.cqNode(q);
            offers[q] = passRunning[q] > 0 && cohorts.borrowing(y);
            if (!offers[q]) {
                continue;
            }
            count++;
            if (highest < 0 || cohorts.compareIfAdded(y, 0, cohorts.cqNode(highest), 0) > 0) {
                secondHighest = highest;
                highest = q;
            } else if (secondHighest < 0 || cohorts.compareIfAdded(y, 0, cohorts.cqNode(secondHighest), 0) > 0) {
                secondHighest = q;
            }
        }
        stale = false;
        version = cohorts.usageVersion();
    }
}
