package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Kueue's admission order with fair sharing: "Kueue prefers to admit Workloads from ClusterQueues that have the lowest share value first". */
class AdmissionTournamentTest {

    /** Heads of the ClusterQueues taking part, as parallel arrays. */
    private static final class Heads {
        final boolean[] present;
        final long[] gpus;
        final int[] priority;
        final long[] submit;
        final String[] id;

        Heads(int n) {
            present = new boolean[n];
            gpus = new long[n];
            priority = new int[n];
            submit = new long[n];
            id = new String[n];
        }

        Heads head(int cq, String name, long g, int prio, long at) {
            present[cq] = true;
            gpus[cq] = g;
            priority[cq] = prio;
            submit[cq] = at;
            id[cq] = name;
            return this;
        }

        int winner(AdmissionTournament t) {
            return t.winner(present, gpus, priority, submit, id);
        }
    }

    @Test
    void docsBorrowingExampleTeamBsNominalQuotaIsMetBeforeTeamABorrows() {
        // cluster_queue.md: "If ClusterQueue team-b-cq has pending Workloads and the ClusterQueue team-a-cq has all
        // its nominalQuota quota used, Kueue will admit Workloads in ClusterQueue team-b-cq before admitting any new
        // Workloads in team-a-cq" -- even an older, higher-priority one
        Cohorts c = CohortsTest.teamAB();
        c.addUsage(0, 9);
        AdmissionTournament t = new AdmissionTournament(c);
        Heads h = new Heads(2).head(0, "a-old-urgent", 1, 3, 0).head(1, "b-new", 1, 0, 100);
        assertThat(h.winner(t)).isEqualTo(1);
    }

    @Test
    void amongBorrowersTheLowerShareAfterAdmissionGoesFirst() {
        Cohorts.Builder b = Cohorts.builder("root");
        b.clusterQueue("a", 0, 4, 1);
        b.clusterQueue("b", 0, 4, 1);
        b.clusterQueue("c", 0, 8, 1);
        Cohorts c = b.build();
        c.addUsage(0, 5); // a borrows 1, b borrows nothing yet
        c.addUsage(1, 4);
        AdmissionTournament t = new AdmissionTournament(c);
        // a's 1-GPU head takes a to 2 borrowed, b's 4-GPU head takes b to 4 borrowed: a goes first although later
        Heads h = new Heads(3).head(0, "a1", 1, 0, 50).head(1, "b1", 4, 0, 10);
        assertThat(h.winner(t)).isEqualTo(0);
        // once a has borrowed more than b would, b goes first
        c.addUsage(0, 4);
        assertThat(h.winner(t)).isEqualTo(1);
    }

    @Test
    void equalSharesGoByPriorityThenCreationTime() {
        Cohorts.Builder b = Cohorts.builder("root");
        b.clusterQueue("a", 0, 4, 1);
        b.clusterQueue("b", 0, 4, 1);
        Cohorts c = b.build();
        AdmissionTournament t = new AdmissionTournament(c);
        assertThat(new Heads(2).head(0, "a1", 1, 1, 50).head(1, "b1", 1, 2, 60).winner(t)).isEqualTo(1);
        assertThat(new Heads(2).head(0, "a1", 1, 1, 50).head(1, "b1", 1, 1, 60).winner(t)).isEqualTo(0);
    }

    @Test
    void aZeroWeightClusterQueueIsAlwaysLast() {
        Cohorts.Builder b = Cohorts.builder("root");
        b.clusterQueue("team", 0, 4, 1);
        b.clusterQueue("best-effort", 0, 0, 0);
        Cohorts c = b.build();
        c.addUsage(0, 7); // team borrows 3 of 4
        AdmissionTournament t = new AdmissionTournament(c);
        Heads h = new Heads(2).head(0, "t", 1, 0, 100).head(1, "be", 1, 3, 0);
        assertThat(h.winner(t)).isZero();
        assertThat(t.shareOf(1).infinite()).isTrue();
    }

    @Test
    void inHierarchicalCohortsTheMatchIsPlayedLevelByLevel() {
        // KEP Story 3: C1 (1A, 1B, 1C) against C2 (2A); 1C weighs three times 1A
        Cohorts c = KepStory3.cohorts();
        c.addUsage(KepStory3.Q1A, 30);
        c.addUsage(KepStory3.Q1C, 60);
        c.addUsage(KepStory3.Q2A, 100);
        AdmissionTournament t = new AdmissionTournament(c);
        Heads h = new Heads(c.cqCount()).head(KepStory3.Q1A, "1a", 10, 0, 0).head(KepStory3.Q1C, "1c", 10, 0, 0)
                .head(KepStory3.Q2A, "2a", 10, 0, 0);
        // inside C1, 1C (70/3) beats 1A (40); C1 with it (100) beats C2 with 2A (110)
        assertThat(h.winner(t)).isEqualTo(KepStory3.Q1C);
        c.addUsage(KepStory3.Q1C, 30);
        // now C1 would reach 130 against C2's 110: 2A goes first
        assertThat(h.winner(t)).isEqualTo(KepStory3.Q2A);
    }
}
