package dev.allot.core.policy.kueue;

import static dev.allot.core.model.Priority.HIGH;
import static dev.allot.core.model.Priority.LOW;
import static dev.allot.core.model.Priority.NORMAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.JobState;
import org.junit.jupiter.api.Test;

/**
 * The preemption rules as Kueue's documentation states them
 * (<a href="https://kueue.sigs.k8s.io/docs/concepts/preemption/">concepts/preemption</a>: {@code withinClusterQueue},
 * {@code reclaimWithinCohort}, "Fair Sharing"; <a href="https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/">
 * concepts/fair_sharing</a>: weight 0), each on a small cohort worked by hand and decided by the production
 * {@link KueuePolicy} on a cluster state: its candidate order, its eligibility and its strategies.
 *
 * <p>Every allocation is a ClusterQueue of one flat cohort whose fair sharing weight is its entitlement (nominal
 * quota / cluster GPUs), so a ClusterQueue's share is the GPUs it borrows x 1000 / its nominal quota. Workloads
 * given as admitted were admitted one second apart, in the order written.
 */
class FairPreemptionDocsTest {

    /** A (nominal 6, using it all), B (nominal 4), C (nominal 2, idle): 12 GPUs on one node. */
    private static KueueCluster abc() {
        return KueueCluster.flat(new String[] {"A", "B", "C"}, new int[] {6, 4, 2}).admitted("a-run", "A", 6, NORMAL);
    }

    @Test
    void lessThanOrEqualToFinalShareMayPreferASmallWorkloadRegardlessOfPriority() {
        // "This strategy might favor preemption of smaller workloads in the target ClusterQueue, regardless of
        // priority or start time, in an effort to keep the share of the ClusterQueue as high as possible."
        KueueCluster k = abc().admitted("b-low", "B", 3, LOW).admitted("b-mid", "B", 2, NORMAL)
                .admitted("b-high", "B", 1, HIGH).waiting("a-new", "A", 1, NORMAL);
        // B borrows 2 of its 4: share 500; A with a-new would borrow 1 of its 6: 166.7. Without b-low or b-mid B
        // would stop borrowing (0 < 166.7); without b-high it still borrows 1: 250 >= 166.7
        assertThat(k.decide()).containsExactly("preempt b-high", "start a-new");
        PreemptionCause why = k.causeOf("b-high");
        assertThat(why.kind()).isEqualTo(PreemptionCause.Kind.FAIR_SHARE);
        assertThat(why.explanation()).isEqualTo("Kueue InCohortFairSharing, LessThanOrEqualToFinalShare: share of A"
                + " with a-new admitted (166.7) <= share of B without b-high (250.0)");
    }

    @Test
    void whenNoCandidatePassesTheFirstStrategyTheSecondPreemptsTheLowestPriorityNewestOne() {
        // "the strategy chooses to first preempt workloads with the lowest priority and newest start time within the
        // target ClusterQueue"
        KueueCluster k = abc().admitted("b-high", "B", 1, HIGH).admitted("b1", "B", 2, LOW)
                .admitted("b3", "B", 1, NORMAL).admitted("b2", "B", 2, LOW).waiting("a-new", "A", 2, NORMAL);
        // A with 2 GPUs: 333.3. Without any candidate B drops to 250 or 0: none passes LessThanOrEqualToFinalShare;
        // 333.3 < B's 500 passes LessThanInitialShare, which takes the lowest priority, newest first: b2, not b1
        assertThat(k.decide()).containsExactly("preempt b2", "start a-new");
        assertThat(k.causeOf("b2").explanation()).isEqualTo("Kueue InCohortFairSharing, LessThanInitialShare: share"
                + " of A with a-new admitted (333.3) < share of B (500.0)");
    }

    @Test
    void neitherStrategyLetsAClusterQueueTakeFromOneWithALowerShare() {
        KueueCluster k = abc().admitted("b1", "B", 2, LOW).admitted("b2", "B", 2, LOW).admitted("b3", "B", 2, LOW)
                .waiting("a-new", "A", 4, NORMAL);
        // A with 4 GPUs would borrow 4 of 6 (666.7) against B's 2 of 4 (500): no preemption, although B's work
        // has the lower priority
        assertThat(k.decide()).isEmpty();
        assertThat(k.stateOf("a-new")).isEqualTo(JobState.PENDING);
    }

    @Test
    void withinClusterQueueLowerPriorityOnlyEvictsStrictlyLowerPriority() {
        // withinClusterQueue: LowerPriority -- "the preemptee is in the same ClusterQueue as the preemptor and it
        // has a lower priority"; B is within its nominal quota, so only A's own work may make room
        for (var c : new Object[][] {{HIGH, "preempt a-low"}, {NORMAL, "preempt a-low"}, {LOW, null}}) {
            KueueCluster k = KueueCluster.flat(new String[] {"A", "B"}, new int[] {4, 4})
                    .admitted("a-low", "A", 2, LOW).admitted("a-normal", "A", 2, NORMAL).admitted("b-run", "B", 4, NORMAL)
                    .waiting("a-new", "A", 2, (dev.allot.core.model.Priority) c[0]);
            if (c[1] == null) {
                assertThat(k.decide()).as("a-new at %s", c[0]).isEmpty();
            } else {
                assertThat(k.decide()).as("a-new at %s", c[0]).containsExactly((String) c[1], "start a-new");
                assertThat(k.causeOf("a-low").kind()).isEqualTo(PreemptionCause.Kind.PRIORITY);
                assertThat(k.causeOf("a-low").explanation()).startsWith("Kueue InClusterQueue: a-new");
            }
        }
    }

    @Test
    void aClusterQueueWithinItsNominalQuotaReclaimsFromBorrowersButNeverFromTheOthers() {
        // reclaimWithinCohort: Any -- "the preemptee's ClusterQueue has a usage above the nominal quota"
        KueueCluster k = KueueCluster.flat(new String[] {"A", "B"}, new int[] {6, 2})
                .admitted("a-run", "A", 2, NORMAL).admitted("b-big", "B", 4, HIGH).admitted("b-small", "B", 1, HIGH)
                .waiting("a-new", "A", 4, LOW);
        // A with 4 more stays within its 6: any workload of the borrowing B, newest first (b-small, then b-big);
        // the minimal set puts b-small back, since b-big alone makes room -- priority does not protect them
        assertThat(k.decide()).containsExactly("preempt b-big", "start a-new");
        assertThat(k.causeOf("b-big").explanation()).startsWith("Kueue InCohortReclamation: A stays within its nominal"
                + " quota (6 GPUs)");
        // now B does not borrow (b-small, 1 of 2; b-big waits again) and A is at its quota: nothing of B may be taken
        k.waiting("a2", "A", 2, LOW);
        assertThat(k.decide()).isEmpty();
        assertThat(k.stateOf("b-small")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void weightZeroWorkloadsAreTheFirstToBePreempted() {
        // "its workloads are always the first to be preempted when fair sharing is enabled": unallocated work runs
        // in a ClusterQueue of nominal quota 0 and weight 0
        // B (within nominal) reclaims from both borrowers: the infinite share first, newest first
        KueueCluster reclaim = bestEffort().waiting("b-new", "B", 1, LOW);
        assertThat(reclaim.decide()).containsExactly("preempt be2", "start b-new");
        assertThat(reclaim.causeOf("be2").kind()).isEqualTo(PreemptionCause.Kind.UNALLOCATED);
        // A, itself borrowing (2 of 4: 500, with one more 750), may still take from it: its share stays infinite
        KueueCluster borrower = bestEffort().waiting("a-new", "A", 1, NORMAL);
        assertThat(borrower.decide()).containsExactly("preempt be2", "start a-new");
        assertThat(borrower.causeOf("be2").explanation()).isEqualTo("Kueue InCohortFairSharing,"
                + " LessThanOrEqualToFinalShare: share of A with a-new admitted (750.0) <= share of (unallocated)"
                + " without be2 (inf)");
        // and best-effort work never preempts anyone else's, only lower-priority best-effort work
        KueueCluster same = bestEffort().waitingUnallocated("be3", "B", 1, NORMAL);
        assertThat(same.decide()).isEmpty();
        KueueCluster higher = bestEffort().waitingUnallocated("be3", "B", 1, HIGH);
        assertThat(higher.decide()).containsExactly("preempt be2", "start be3");
        assertThat(higher.causeOf("be2").explanation()).startsWith("Kueue InClusterQueue: be3 (high)");
    }

    /** A and B (nominal 4 each): A runs 6, unallocated work 2 (be1, then be2): 8 GPUs, all in use. */
    private static KueueCluster bestEffort() {
        return KueueCluster.flat(new String[] {"A", "B"}, new int[] {4, 4}).admitted("a1", "A", 6, NORMAL)
                .admittedUnallocated("be1", "B", 1, NORMAL).admittedUnallocated("be2", "B", 1, NORMAL);
    }

    @Test
    void theTargetsAreCutToAMinimalSetLatestFirst() {
        // A reclaims 3: newest first b-1, b-2 (3 freed: fits); b-1 cannot go back (2 < 3): both go, in that order
        assertThat(minimalSet().waiting("a-new", "A", 3, NORMAL).decide())
                .containsExactly("preempt b-1", "preempt b-2", "start a-new");
        // for 4: b-1, b-2, b-4; then b-2 and b-1 go back, b-4 alone frees enough
        assertThat(minimalSet().waiting("a-new", "A", 4, NORMAL).decide())
                .containsExactly("preempt b-4", "start a-new");
    }

    /** A (nominal 7) runs 1, B (nominal 1) runs b-4, b-2, b-1 (borrowing 6): 8 GPUs, all in use. */
    private static KueueCluster minimalSet() {
        return KueueCluster.flat(new String[] {"A", "B"}, new int[] {7, 1}).admitted("b-4", "B", 4, NORMAL)
                .admitted("b-2", "B", 2, NORMAL).admitted("b-1", "B", 1, NORMAL).admitted("a", "A", 1, NORMAL);
    }
}
