package dev.allot.core.policy.kueue;

import static dev.allot.core.policy.kueue.Admitted.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.policy.kueue.FairPreemption.Reason;
import dev.allot.core.policy.kueue.FairPreemption.Strategy;
import dev.allot.core.policy.kueue.FairPreemption.Target;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The preemption rules as Kueue's documentation states them (concepts/preemption, "Fair Sharing"), each on a small
 * cohort worked by hand. Shares are in thousandths of the cohort's lendable quota, divided by the weight.
 */
class FairPreemptionDocsTest {
    private static final int A = 0;
    private static final int B = 1;
    private static final int C = 2;

    /** A (nominal 2), B (nominal 7), C (nominal 3, idle): 12 GPUs, weights 1. */
    private static Admitted abc() {
        Cohorts.Builder b = Cohorts.builder("cohort");
        b.clusterQueue("A", 0, 2, 1);
        b.clusterQueue("B", 0, 7, 1);
        b.clusterQueue("C", 0, 3, 1);
        return new Admitted(b.build());
    }

    @Test
    void lessThanOrEqualToFinalShareMayPreferASmallWorkloadRegardlessOfPriority() {
        // "This strategy might favor preemption of smaller workloads in the target ClusterQueue, regardless of
        // priority or start time, in an effort to keep the share of the ClusterQueue as high as possible."
        Admitted s = abc();
        s.admit("a-run", A, 2, 1);
        s.admit("b-low", B, 4, 0);
        s.admit("b-mid", B, 5, 1);
        s.admit("b-high", B, 1, 2);
        // B borrows 3 of 12: share 250; A with a 1-GPU workload would borrow 1: 83.3
        assertThat(s.cohorts.share(s.cohorts.cqNode(B)).weighted()).isCloseTo(250, within(1e-9));
        List<Target<Admitted.W>> t = s.targetsFor(A, 1, 1);
        // without b-low or b-mid, B would stop borrowing (0 < 83.3); without b-high it keeps 166.7 >= 83.3
        assertThat(ids(t)).containsExactly("b-high");
        Target<Admitted.W> only = t.get(0);
        assertThat(only.strategy()).isEqualTo(Strategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE);
        assertThat(only.reason()).isEqualTo(Reason.FAIR_SHARING);
        assertThat(only.preemptorNew().weighted()).isCloseTo(1000.0 / 12, within(1e-9));
        assertThat(only.targetNew().weighted()).isCloseTo(2000.0 / 12, within(1e-9));
    }

    @Test
    void lessThanInitialShareAloneTakesTheLowestPriorityFirst() {
        // "LessThanInitialShare ... doesn't depend on the share usage of the Workload being preempted"
        Admitted s = abc();
        s.admit("a-run", A, 2, 1);
        s.admit("b-low", B, 4, 0);
        s.admit("b-mid", B, 5, 1);
        s.admit("b-high", B, 1, 2);
        assertThat(ids(s.targetsFor(A, 1, 1, List.of(Strategy.LESS_THAN_INITIAL_SHARE)))).containsExactly("b-low");
        assertThat(ids(s.targetsFor(A, 1, 1, List.of(Strategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE))))
                .containsExactly("b-high");
    }

    @Test
    void whenNoCandidatePassesTheFirstStrategyTheSecondPreemptsTheLowestPriorityNewestOne() {
        // "the strategy chooses to first preempt workloads with the lowest priority and newest start time within the
        // target ClusterQueue"
        Admitted s = abc();
        s.admit("a-run", A, 2, 1);
        s.admit("b4", B, 4, 2);
        s.admit("b1", B, 2, 0);
        s.admit("b3", B, 2, 1);
        s.admit("b2", B, 2, 0);
        // A with 2 GPUs: 166.7. Without any candidate B drops to 83.3 or 0: no candidate passes
        // LessThanOrEqualToFinalShare; 166.7 < B's 250 passes LessThanInitialShare
        List<Target<Admitted.W>> t = s.targetsFor(A, 2, 1);
        assertThat(ids(t)).containsExactly("b2");
        assertThat(t.get(0).strategy()).isEqualTo(Strategy.LESS_THAN_INITIAL_SHARE);
        assertThat(t.get(0).targetOld().weighted()).isCloseTo(250, within(1e-9));
    }

    @Test
    void neitherStrategyLetsAClusterQueueTakeFromOneWithALowerShare() {
        Admitted s = abc();
        s.admit("a-run", A, 2, 1);
        s.admit("b1", B, 4, 0);
        s.admit("b2", B, 4, 0);
        s.admit("b3", B, 2, 0);
        // A with 4 GPUs would borrow 4 (333) against B's 3 (250): no preemption
        assertThat(s.targetsFor(A, 4, 1)).isNull();
    }

    @Test
    void withinClusterQueueLowerPriorityOnlyEvictsStrictlyLowerPriority() {
        // withinClusterQueue: LowerPriority
        Cohorts.Builder b = Cohorts.builder("cohort");
        b.clusterQueue("A", 0, 4, 1);
        b.clusterQueue("B", 0, 4, 1);
        Admitted s = new Admitted(b.build());
        s.admit("a-low", A, 2, 0);
        s.admit("a-normal", A, 2, 1);
        s.admit("b-run", B, 4, 1);
        List<Target<Admitted.W>> t = s.targetsFor(A, 2, 2);
        assertThat(ids(t)).containsExactly("a-low");
        assertThat(t.get(0).reason()).isEqualTo(Reason.IN_CLUSTER_QUEUE);
        assertThat(ids(s.targetsFor(A, 2, 1))).containsExactly("a-low");
        assertThat(s.targetsFor(A, 2, 0)).isNull();
    }

    @Test
    void aClusterQueueWithinItsNominalQuotaReclaimsFromBorrowersButNeverFromTheOthers() {
        // reclaimWithinCohort: Any -- "the preemptee's ClusterQueue has a usage above the nominal quota"
        Cohorts.Builder b = Cohorts.builder("cohort");
        b.clusterQueue("A", 0, 6, 1);
        b.clusterQueue("B", 0, 2, 1);
        Admitted s = new Admitted(b.build());
        s.admit("a-run", A, 2, 1);
        s.admit("b-big", B, 4, 2);
        s.admit("b-small", B, 1, 2);
        // A with 4 more stays within 6: any workload of the borrowing B, newest first; the minimal set drops b-small
        List<Target<Admitted.W>> t = s.targetsFor(A, 4, 0);
        assertThat(ids(t)).containsExactly("b-big");
        assertThat(t.get(0).reason()).isEqualTo(Reason.RECLAMATION);
        // once B stops borrowing, nothing of it may be taken
        s.evict(s.running.get(1));
        s.admit("a2", A, 4, 1);
        assertThat(s.targetsFor(A, 2, 0)).isNull();
    }

    @Test
    void weightZeroWorkloadsAreTheFirstToBePreempted() {
        // "its workloads are always the first to be preempted when fair sharing is enabled"
        Cohorts.Builder b = Cohorts.builder("cohort");
        b.clusterQueue("A", 0, 4, 1);
        b.clusterQueue("B", 0, 4, 1);
        b.clusterQueue("best-effort", 0, 0, 0);
        Admitted s = new Admitted(b.build());
        s.admit("a1", A, 6, 1);
        s.admit("be1", 2, 1, 1);
        s.admit("be2", 2, 1, 1);
        // B (within nominal) reclaims from both borrowers: the infinite share first
        assertThat(ids(s.targetsFor(B, 1, 0))).containsExactly("be2");
        // A, itself borrowing, may still take from it: the best-effort share stays infinite without be2
        List<Target<Admitted.W>> t = s.targetsFor(A, 1, 1);
        assertThat(ids(t)).containsExactly("be2");
        assertThat(t.get(0).targetNew().infinite()).isTrue();
        // and a best-effort workload never preempts anyone else's (only lower-priority best-effort work)
        s.evict(s.running.get(2));
        s.admit("b1", B, 1, 0);
        assertThat(s.targetsFor(2, 1, 1)).isNull();
        assertThat(ids(s.targetsFor(2, 1, 2))).containsExactly("be1");
    }

    @Test
    void theTargetsAreCutToAMinimalSetLatestFirst() {
        Cohorts.Builder b = Cohorts.builder("cohort");
        b.clusterQueue("A", 0, 8, 1);
        b.clusterQueue("B", 0, 0, 1);
        Admitted s = new Admitted(b.build());
        s.admit("b-4", B, 4, 0);
        s.admit("b-2", B, 2, 0);
        s.admit("b-1", B, 1, 0);
        s.admit("a", A, 1, 0);
        // A reclaims 3: newest first b-1, b-2 (3 freed: fits); b-1 cannot go back (2 < 3): both stay
        assertThat(ids(s.targetsFor(A, 3, 0))).containsExactly("b-1", "b-2");
        // for 4: b-1, b-2, b-4; then b-2 and b-1 go back, b-4 alone frees enough
        assertThat(ids(s.targetsFor(A, 4, 0))).containsExactly("b-4");
    }
}
