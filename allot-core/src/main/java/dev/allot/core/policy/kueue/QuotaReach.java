package dev.allot.core.policy.kueue;

/**
 * An upper bound on the GPUs a {@link FairPreemption} search can take from the other ClusterQueues of a flat cohort
 * tree for a preemptor that borrows, so that a search that cannot make room in quota is not run (on the Philly trace
 * every search that failed also fell short of quota, most of them by far).
 *
 * <p>Why it is a bound: with the preemptor borrowing, a candidate of another ClusterQueue y is taken by the first
 * strategy only if the preemptor's share with the workload admitted is at most y's share without it, and by the
 * second only if it is below y's share as it stands, one candidate per ClusterQueue. The preemptor's share is at
 * least its lowest reachable one (every own lower-priority candidate evicted) and y's share falls as candidates
 * leave, so the first strategy takes at most the largest {@code d} for which y's share with {@code d} GPUs less is
 * still at least that lowest share (found by bisection over the same comparison, which is monotone in {@code d}),
 * and the second strategy one candidate more, no larger than y's largest. A search fits only when the tree's quota
 * has room for the preemptor, so if the own candidates and these bounds together cannot free what it lacks, no search
 * can.
 */
final class QuotaReach {
    private QuotaReach() {
    }

    /**
     * Whether a search for a workload of {@code gpus} GPUs of ClusterQueue {@code cq} could free enough quota.
     *
     * @param own        the GPUs of the preemptor's own lower-priority admitted workloads
     * @param eligible   per ClusterQueue, whether it may give up anything ({@link PreemptionCandidates})
     * @param admitted   per ClusterQueue, the GPUs it has admitted in the pass
     * @param candidates per ClusterQueue, its candidates
     */
    static boolean reachable(Cohorts cohorts, int cq, long gpus, long own, boolean[] eligible, long[] admitted,
                             java.util.List<? extends FairPreemption.Candidates<?>> candidates) {
        int x = cohorts.cqNode(cq);
        if (!cohorts.borrowsWith(x, cohorts.usage(x) + gpus)) {
            return true; // within nominal quota every borrowing ClusterQueue's candidates may go
        }
        long need = gpus - cohorts.available();
        long bound = own;
        long lowestDelta = gpus - own;
        for (int q = 0; q < eligible.length && bound < need; q++) {
            if (q == cq || !eligible[q]) {
                continue;
            }
            int y = cohorts.cqNode(q);
            long hi = admitted[q];
            if (cohorts.compareIfAdded(x, lowestDelta, y, 0) > 0) {
                continue; // not even the second strategy's one candidate
            }
            // the largest d in [0, hi] with y's share, d GPUs less, at least the preemptor's lowest
            long lo = 0;
            while (lo < hi) {
                long mid = lo + (hi - lo + 1) / 2;
                if (cohorts.compareIfAdded(x, lowestDelta, y, -mid) <= 0) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            bound += Math.min(admitted[q], lo + candidates.get(q).maxGpus());
        }
        return bound >= need;
    }
}
