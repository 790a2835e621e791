package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.model.AllocationTree;
import org.junit.jupiter.api.Test;

/** Quotas, shares and the cohort hierarchy, on the examples of Kueue's documentation. */
class CohortsTest {

    @Test
    void nominalQuotasAreEntitlementTimesClusterRoundedByLargestRemainderToAddUpExactly() {
        AllocationTree thirds = AllocationTree.builder("lab").leaf("a", 1).leaf("b", 1).leaf("c", 1).build();
        // 16 / 3 = 5.33 each: the one GPU left over goes to the earliest of the equal remainders
        assertThat(Cohorts.nominalQuotas(thirds, 16)).containsExactly(6, 5, 5);
        // the README's tree on 256 GPUs: 45%, 15%, 40% = 115.2, 38.4, 102.4
        AllocationTree readme = AllocationTree.builder("lab")
                .child("nlp", 60).leaf("nlp-pretrain", 3).leaf("nlp-eval", 1).up()
                .child("vision", 40).leaf("vision-video", 1).up().build();
        long[] q = Cohorts.nominalQuotas(readme, 256);
        assertThat(q[0] + q[1] + q[2]).isEqualTo(256);
        assertThat(q).containsExactly(115, 38, 103);
    }

    @Test
    void docsBorrowingExampleTeamACanUseTheWholeCohortWhenTeamBIsIdle() {
        // cluster_queue.md, "Borrowing example": team-a-cq 9 CPUs, team-b-cq 12 CPUs, one cohort
        Cohorts c = teamAB();
        assertThat(c.available()).isEqualTo(21);
        c.addUsage(0, 21);
        assertThat(c.available()).isZero();
        assertThat(c.borrowing(c.cqNode(0))).isTrue();
        // its share: 12 borrowed of the 21 the cohort could lend, in thousandths
        assertThat(c.share(c.cqNode(0)).weighted()).isCloseTo(12 * 1000.0 / 21, within(1e-9));
        assertThat(c.share(c.cqNode(1)).isZero()).isTrue();
    }

    static Cohorts teamAB() {
        Cohorts.Builder b = Cohorts.builder("team-ab");
        b.clusterQueue("team-a-cq", 0, 9, 1);
        b.clusterQueue("team-b-cq", 0, 12, 1);
        return b.build();
    }

    @Test
    void aShareIsBorrowingOverLendableDividedByWeight() {
        Cohorts.Builder b = Cohorts.builder("root");
        b.clusterQueue("heavy", 0, 4, 2);
        b.clusterQueue("light", 0, 4, 1);
        Cohorts c = b.build();
        c.addUsage(0, 6);
        c.addUsage(1, 2);
        // heavy borrows 2 of 8: 250 per mille, halved by weight 2
        assertThat(c.share(c.cqNode(0)).weighted()).isCloseTo(125, within(1e-9));
        assertThat(c.share(c.cqNode(1)).weighted()).isZero();
    }

    @Test
    void weightZeroMakesAnyBorrowingAnInfiniteShareAboveEveryFiniteOne() {
        // fair_sharing / preemption docs: "A weight value of 0 represents an infinite share value"
        Cohorts.Builder b = Cohorts.builder("root");
        b.clusterQueue("team", 0, 8, 1);
        b.clusterQueue("best-effort", 0, 0, 0);
        Cohorts c = b.build();
        assertThat(c.share(c.cqNode(1)).infinite()).isFalse();
        c.addUsage(1, 1);
        c.addUsage(0, 7);
        Share be = c.share(c.cqNode(1));
        assertThat(be.infinite()).isTrue();
        assertThat(be.weighted()).isInfinite();
        c.addUsage(0, 100); // even a huge finite share ranks below it
        assertThat(Share.compare(c.share(c.cqNode(0)), be)).isNegative();
    }

    @Test
    void almostLcaIsTheChildOfTheLowestCommonCohortOnEachSide() {
        Cohorts c = KepStory3.cohorts();
        int a1 = c.cqNode(KepStory3.Q1A);
        int b1 = c.cqNode(KepStory3.Q1B);
        int a2 = c.cqNode(KepStory3.Q2A);
        assertThat(c.name(c.almostLca(a1, a2))).isEqualTo("C1");
        assertThat(c.name(c.almostLca(a2, a1))).isEqualTo("C2");
        assertThat(c.name(c.almostLca(a1, b1))).isEqualTo("1A");
        assertThat(c.name(c.almostLca(b1, a1))).isEqualTo("1B");
    }

    @Test
    void theQuotaOfACohortIsItsChildrensAndItsUsageTheirs() {
        Cohorts c = KepStory3.cohorts();
        int c1 = c.parent(c.cqNode(KepStory3.Q1A));
        assertThat(c.quota(0)).isEqualTo(300);
        assertThat(c.quota(c1)).isZero();
        c.addUsage(KepStory3.Q1A, 30);
        c.addUsage(KepStory3.Q1C, 90);
        assertThat(c.usage(c1)).isEqualTo(120);
        assertThat(c.usage(0)).isEqualTo(120);
        assertThat(c.available()).isEqualTo(180);
    }

    @Test
    void theAllocationTreeBecomesOneCohortOrCohortsFollowingTheTree() {
        AllocationTree tree = AllocationTree.builder("lab")
                .child("org1", 1).leaf("a1", 1).leaf("a2", 1).up()
                .child("org2", 1).leaf("b1", 1).up().build();
        Cohorts flat = Cohorts.forAllocations(tree, 16, false, "(unallocated)");
        assertThat(flat.cqCount()).isEqualTo(4);
        assertThat(flat.cqName(3)).isEqualTo("(unallocated)");
        assertThat(flat.parent(flat.cqNode(2))).isZero();
        assertThat(flat.weight(flat.cqNode(0))).isEqualTo(0.25);
        assertThat(flat.nominal(2)).isEqualTo(8);
        assertThat(flat.weight(flat.cqNode(3))).isZero();

        Cohorts tree2 = Cohorts.forAllocations(tree, 16, true, "(unallocated)");
        assertThat(tree2.name(tree2.parent(tree2.cqNode(0)))).isEqualTo("org1");
        assertThat(tree2.name(tree2.parent(tree2.cqNode(2)))).isEqualTo("org2");
        assertThat(tree2.parent(tree2.cqNode(3))).isZero();
        assertThat(tree2.weight(tree2.cqNode(0))).isEqualTo(1);
        assertThat(tree2.quota(tree2.parent(tree2.cqNode(0)))).isEqualTo(8);
    }
}
