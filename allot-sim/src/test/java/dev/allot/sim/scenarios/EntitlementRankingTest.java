package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/**
 * The allocation policy with {@code ranking=entitlement} (the default, issue 15): an allocation holding less than
 * its quota (entitlement x healthy GPUs) is owed and reclaims from allocations standing at least
 * (1 + reclaim-margin) x their quota, down to their quota; reservations keep small work off a blocked gang's nodes;
 * victims that can resume go before victims that cannot. Stories with the seed's {@code ranking=lookback} show the
 * difference.
 */
class EntitlementRankingTest {

    private static ScenarioBuilder entitlement() {
        return given().set("allocation.ranking", "entitlement");
    }

    @Test
    void aTeamBelowItsShareReclaimsOnceProtectionEnds() {
        // given two 8-GPU nodes shared 40/60 (quotas 6.4 and 9.6 GPUs), and A runs two 8-GPU resumable jobs alone;
        // when B, owed its whole quota, submits 8 GPUs at 30m, while both of A's jobs are protected
        Run run = reclaimScenario(entitlement()).run("allocation");
        // then B waits for A's protection to end at 1h and reclaims one job (A keeps 8 >= 1.1 x 6.4 GPUs);
        // A does not take it back while B is below its quota
        assertThat(run.story()).containsExactly(RECLAIM_STORY);
    }

    private static final String[] RECLAIM_STORY = {
        "0s start a1 on n1:8",
        "0s start a2 on n2:8",
        "1h preempt a1 by b1 fair_share requeued lost=0s",
        "1h start b1 on n1:8",
        "3h complete b1",
        "3h start a1 on n1:8",
        "4h complete a2",
        "6h complete a1"};

    private static ScenarioBuilder reclaimScenario(ScenarioBuilder b) {
        return b.nodes(2, 8)
                .allocations(t -> t.leaf("A", 40).leaf("B", 60))
                .workload(w("a1").in("A").gpus(8).runs("4h").minRuntime("1h").checkpointEvery("30m").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("4h").minRuntime("1h").checkpointEvery("30m").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("2h").minRuntime("1h").at("30m"));
    }

    @Test
    void teamsWithinTheMarginDoNotPreemptEachOther() {
        // given two 20-GPU nodes shared 50/50 (quota 20 each), and A holds 21 GPUs (1.05 x its quota): a1 on a whole
        // node, a2 with 1 GPU on the other
        Run run = marginScenario(entitlement()).run("allocation");
        // then B does not reclaim a2 though it needs just that GPU: A stands within the margin (below 1.1 x its
        // quota); B waits until a2 completes
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:20",
                "0s start a2 on n2:1",
                "3h complete a2",
                "3h start b1 on n2:20",
                "4h complete a1",
                "5h complete b1");
    }

    @Test
    void withoutAMarginTheSameTeamReclaimsAtOnce() {
        // given the same cluster and work as above, but reclaim-margin=0: any allocation above its quota gives back
        Run run = marginScenario(entitlement().set("allocation.reclaim-margin", "0")).run("allocation");
        // then B reclaims a2 as soon as a2's protection ends (A keeps 20 = its quota), the smallest victim that does
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:20",
                "0s start a2 on n2:1",
                "1h preempt a2 by b1 fair_share requeued lost=0s",
                "1h start b1 on n2:20",
                "3h complete b1",
                "3h start a2 on n2:1",
                "4h complete a1",
                "5h complete a2");
    }

    private static ScenarioBuilder marginScenario(ScenarioBuilder b) {
        return b.nodes(2, 20)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(20).runs("4h").minRuntime("1h").checkpointEvery("30m").at("0s"))
                .workload(w("a2").in("A").gpus(1).runs("3h").minRuntime("1h").checkpointEvery("30m").at("0s"))
                // when B, owed 20 GPUs, submits a 20-GPU job at 30m (19 GPUs are idle, 1 more is a2's)
                .workload(w("b1").in("B").gpus(20).runs("2h").minRuntime("1h").at("30m"));
    }

    @Test
    void aGangKeepsItsReservationWhileSmallWorkOfATeamRankedAboveItOnLookbackWaits() {
        // given three 8-GPU nodes shared G 50 / H 25 / X 25 (quotas 12, 6, 6); G used all of them for 2 hours,
        // so H ranks above G on lookback usage; from 2h H holds its quota (h0, 6 GPUs) and G runs low-priority
        // work g-low (4 GPUs on two nodes, protected until 4h), so G is owed (8 of 12 GPUs)
        Run run = entitlement().nodes(3, 8)
                .allocations(t -> t.leaf("G", 50).leaf("H", 25).leaf("X", 25))
                .workload(w("g0").in("G").gang(24, 8).runs("2h").minRuntime("2h").at("0s"))
                .workload(w("h0").in("H").gpus(6).runs("10h").minRuntime("30m").at("1h"))
                .workload(w("g-low").in("G").gang(8, 4).runs("6h").minRuntime("2h").priority(Priority.LOW)
                        .checkpointEvery("30m").at("1h"))
                // when G's 16-GPU whole-node gang is blocked at 2h30m, and H's 4-GPU job (protected 2h) arrives at
                // 2h40m while idle GPUs sit on the gang's nodes
                .workload(w("g1").in("G").gang(16, 8).runs("1h").minRuntime("1h").at("2h30m"))
                .workload(w("h1").in("H").gpus(4).runs("2h").minRuntime("2h").at("2h40m"))
                .run("allocation");
        // then h1 does not start on the reserved nodes (it would still be protected when they free up, and G may
        // not take H's GPUs); at 4h the gang preempts its own low-priority work and starts; h1 waits for it
        assertThat(run.story()).containsExactly(
                "0s start g0 on n1:8,n2:8,n3:8",
                "2h complete g0",
                "2h start h0 on n1:6",
                "2h start g-low on n2:4,n3:4",
                "4h preempt g-low by g1 priority requeued lost=0s",
                "4h start g1 on n2:8,n3:8",
                "5h complete g1",
                "5h start g-low on n2:4,n3:4",
                "5h start h1 on n2:4",
                "7h complete h1",
                "9h complete g-low",
                "12h complete h0");
    }

    @Test
    void aNonResumableJobIsSparedWhenAResumableVictimWouldDo() {
        // given two 8-GPU nodes shared 25/75 (quotas 4 and 12), and A runs two 8-GPU jobs past their protection:
        // r can resume but checkpoints only every 10h (it would lose 2h), nr cannot resume but started later (loses 1h30m)
        Run run = entitlement().nodes(2, 8)
                .allocations(t -> t.leaf("A", 25).leaf("B", 75))
                .workload(w("r").in("A").gpus(8).runs("10h").minRuntime("1h").checkpointEvery("10h").at("0s"))
                .workload(w("nr").in("A").gpus(8).runs("10h").minRuntime("1h").at("30m"))
                // when B, owed its quota, needs one node at 2h
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").at("2h"))
                .run("allocation");
        // then the resumable job is preempted, though it loses more work; the non-resumable one runs on
        assertThat(run.story()).startsWith(
                "0s start r on n1:8",
                "30m start nr on n2:8",
                "2h preempt r by b1 fair_share requeued lost=2h",
                "2h start b1 on n1:8",
                "3h complete b1");
        assertThat(run.about("nr")).containsExactly("30m start nr on n2:8", "10h30m complete nr");
    }

    @Test
    void underTheSeedsLookbackRankingTheReclaimStoryIsTheSame() {
        // given the reclaim story's cluster and work under ranking=lookback
        Run run = reclaimScenario(given().set("allocation.ranking", "lookback")).run("allocation");
        // then B, which has used nothing, ranks above A and preempts one of A's jobs at 1h, exactly as with entitlement
        assertThat(run.story()).containsExactly(RECLAIM_STORY);
    }

    @Test
    void underTheSeedsLookbackRankingThereIsNoMarginAndTheSmallestVictimThatMakesRoomGoes() {
        // given two 8-GPU nodes shared 50/50, A holds 10 GPUs (a1 a whole node, a2 2 GPUs) and B submits 8 GPUs
        // at 30m, under ranking=lookback
        Run run = given().set("allocation.ranking", "lookback").nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("4h").minRuntime("1h").checkpointEvery("30m").at("0s"))
                .workload(w("a2").in("A").gpus(2).runs("3h").minRuntime("1h").checkpointEvery("30m").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("2h").minRuntime("1h").at("30m"))
                .run("allocation");
        // then there is no margin: B, which has used nothing, ranks above A and at 1h preempts a2, the smallest job
        // whose GPUs make room (both would lose nothing)
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "0s start a2 on n2:2",
                "1h preempt a2 by b1 fair_share requeued lost=0s",
                "1h start b1 on n2:8",
                "3h complete b1",
                "3h start a2 on n2:2",
                "4h complete a1",
                "5h complete a2");
    }

    @Test
    void nobodySquatsTheClusterPastAMinimumRuntime() {
        // given one 8-GPU node shared 50/50 (quota 4 each), and A runs one 8-GPU job for 10 hours: twice its quota
        Run run = entitlement().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("1h").checkpointEvery("30m").at("0s"))
                // when B, owed its quota, submits an 8-GPU job at 30m
                .workload(w("b1").in("B").gpus(8).runs("2h").minRuntime("1h").checkpointEvery("30m").at("30m"))
                .run("allocation");
        // then taking a1 would leave A below its quota, but both want twice their share and B has used less over the
        // window: B takes its turn when a1's protection ends; A takes the node back at the first re-ranking after
        // b1's protection ends (B has used more by then); they alternate, a minimum runtime each, until b1 is done
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "1h preempt a1 by b1 fair_share requeued lost=0s",
                "1h start b1 on n1:8",
                "2h5m preempt b1 by a1 fair_share requeued lost=5m",
                "2h5m start a1 on n1:8",
                "3h5m preempt a1 by b1 fair_share requeued lost=0s",
                "3h5m start b1 on n1:8",
                "4h5m complete b1",
                "4h5m start a1 on n1:8",
                "12h5m complete a1");
    }
}
