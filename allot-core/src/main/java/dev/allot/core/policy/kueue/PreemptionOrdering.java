package dev.allot.core.policy.kueue;

/**
 * {@link FairPreemption}'s order of ClusterQueues to take candidates from, Kueue's: from the root down, the child
 * with the highest share, dropping ClusterQueues without candidates or (except the preemptor's) not borrowing, and
 * cohorts not borrowing off the preemptor's path. The same ClusterQueue may come back while its share stays highest.
 *
 * <p>Each pick compares the shares of every child again; a node's share depends on its usage alone, so each is
 * kept by the {@link Cohorts} (from search to search), as the parts {@link Share#compare} orders by, with the
 * usage it was computed from and computed again only when that usage changed (a search takes one candidate per
 * pick, which changes the usage of one path up the tree). One ordering serves search after search
 * ({@link #begin}), so that a search allocates nothing for it.
 */
final class PreemptionOrdering {
    private final Cohorts cohorts;
    private int preemptorCq;
    private final java.util.function.IntPredicate hasCandidates;
    private final boolean[] prunedCq;
    private final boolean[] prunedCohort;
    private final boolean[] onPreemptorPath;

    /** An ordering to {@link #begin} for one preemptor after another. */
    PreemptionOrdering(Cohorts cohorts, java.util.function.IntPredicate hasCandidates) {
        this.cohorts = cohorts;
        this.hasCandidates = hasCandidates;
        this.prunedCq = new boolean[cohorts.cqCount()];
        this.prunedCohort = new boolean[cohorts.nodeCount()];
        this.onPreemptorPath = new boolean[cohorts.nodeCount()];
    }

    /** Starts the order anew for a preemptor of ClusterQueue {@code cq}; returns this ordering. */
    PreemptionOrdering begin(int cq) {
        this.preemptorCq = cq;
        java.util.Arrays.fill(prunedCq, false);
        java.util.Arrays.fill(prunedCohort, false);
        java.util.Arrays.fill(onPreemptorPath, false);
        for (int n = cohorts.parent(cohorts.cqNode(cq)); n >= 0; n = cohorts.parent(n)) {
            onPreemptorPath[n] = true;
        }
        return this;
    }

    /** Brings the kept parts of a node's share ({@link Cohorts#share}) up to its usage now. */
    private void refresh(int node) {
        cohorts.refreshShareParts(node);
    }

    /** Whether node a's share is at least node b's ({@link Share#compare}); both refreshed. */
    private boolean atLeast(int a, int b) {
        return cohorts.shareAtLeast(a, b);
    }

    /** The next ClusterQueue to take a candidate from, or -1 when none is left. */
    int next() {
        while (!prunedCohort[0]) {
            int t = nextTarget(0);
            if (t >= 0) {
                return t;
            }
        }
        return -1;
    }

    private int nextTarget(int cohort) {
        int bestCq = -1;
        for (int node : cohorts.childClusterQueues(cohort)) {
            int q = cohorts.cqOf(node);
            if (prunedCq[q]) {
                continue;
            }
            refresh(node);
            if ((cohorts.shareZero(node) && q != preemptorCq) || !hasCandidates.test(q)) {
                prunedCq[q] = true;
            } else if (bestCq < 0 || atLeast(node, cohorts.cqNode(bestCq))) {
                bestCq = q;
            }
        }
        int bestCohort = -1;
        for (int c : cohorts.childCohorts(cohort)) {
            if (prunedCohort[c]) {
                continue;
            }
            refresh(c);
            if (cohorts.shareZero(c) && !onPreemptorPath[c]) {
                prunedCohort[c] = true;
            } else if (bestCohort < 0 || atLeast(c, bestCohort)) {
                bestCohort = c;
            }
        }
        if (bestCq < 0 && bestCohort < 0) {
            prunedCohort[cohort] = true;
            return -1;
        }
        if (bestCohort >= 0 && (bestCq < 0 || atLeast(bestCohort, cohorts.cqNode(bestCq)))) {
            return nextTarget(bestCohort);
        }
        return bestCq;
    }
}
