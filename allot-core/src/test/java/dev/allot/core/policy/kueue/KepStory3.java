package dev.allot.core.policy.kueue;

import dev.allot.core.model.AllocationTree;

/**
 * The cohort tree of Story 3 of Kueue's fair sharing design (KEP-1714), as the allocation tree the {@code kueue}
 * policy turns into cohorts with {@code hierarchical-cohorts}: a top cohort with three cohorts, CS with one
 * ClusterQueue of 300 GPUs nominal quota, C1 with 1A, 1B and 1C (1C three times as important), C2 with 2A.
 *
 * <p>Allot derives a ClusterQueue's nominal quota from its entitlement, so CS holds 998 of the top level's 1000
 * shares: on 300 GPUs its quota rounds to all 300 and every other ClusterQueue's to 0, as in the story. CS's own
 * weight never counts (it runs nothing, so it never borrows); C1 and C2 weigh 1 each, 1A and 1B 1, 1C 3.
 */
final class KepStory3 {
    static final int GPUS = 300;
    /** ClusterQueue numbers: the leaves in tree order. */
    static final int QCS = 0;
    static final int Q1A = 1;
    static final int Q1B = 2;
    static final int Q1C = 3;
    static final int Q2A = 4;

    private KepStory3() {
    }

    static AllocationTree tree() {
        return AllocationTree.builder("org")
                .child("CS", 998).leaf("cs", 1).up()
                .child("C1", 1).leaf("1A", 1).leaf("1B", 1).leaf("1C", 3).up()
                .child("C2", 1).leaf("2A", 1).up()
                .build();
    }

    /** The cohorts the policy builds from {@link #tree()} on 300 GPUs. */
    static Cohorts cohorts() {
        return Cohorts.forAllocations(tree(), GPUS, true, KueuePolicy.UNALLOCATED_QUEUE);
    }
}
