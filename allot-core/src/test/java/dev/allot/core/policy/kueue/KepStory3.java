package dev.allot.core.policy.kueue;

/**
 * The cohort tree of Story 3 of Kueue's fair sharing design (KEP-1714): a top cohort with three cohorts, CS with
 * one ClusterQueue of 300 GPUs nominal quota, C1 with 1A, 1B and 1C (1C three times as important), C2 with 2A.
 */
final class KepStory3 {
    static final int QCS = 0;
    static final int Q1A = 1;
    static final int Q1B = 2;
    static final int Q1C = 3;
    static final int Q2A = 4;

    private KepStory3() {
    }

    static Cohorts cohorts() {
        Cohorts.Builder b = Cohorts.builder("org");
        int cs = b.cohort("CS", 0, 1);
        int c1 = b.cohort("C1", 0, 1);
        int c2 = b.cohort("C2", 0, 1);
        b.clusterQueue("cs", cs, 300, 1);
        b.clusterQueue("1A", c1, 0, 1);
        b.clusterQueue("1B", c1, 0, 1);
        b.clusterQueue("1C", c1, 0, 3);
        b.clusterQueue("2A", c2, 0, 1);
        return b.build();
    }
}
