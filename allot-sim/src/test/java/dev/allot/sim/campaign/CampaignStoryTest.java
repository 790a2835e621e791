package dev.allot.sim.campaign;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.campaign.ProtectedSlots;
import dev.allot.core.campaign.RateEstimator;
import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Campaign stories on tiny clusters, with the invariant checks on: which shard holds the protected slot, promotion in
 * place, the seed's restart on move, FIFO against LPT, and that no unit is ever done twice.
 */
class CampaignStoryTest {
    private static final long M = 60;
    private static final long H = 3600;

    /** Family restore of 25 minutes a unit (and find of 5); shards of restore with the given units, submitted at 0. */
    static CampaignSpec campaign(int slots, long... units) {
        TreeMap<String, Long> families = new TreeMap<>();
        families.put("find", 5 * M);
        families.put("restore", 25 * M);
        List<CampaignSpec.Shard> shards = new ArrayList<>();
        for (int i = 0; i < units.length; i++) {
            shards.add(new CampaignSpec.Shard(i, "restore", units[i], 1.0));
        }
        return new CampaignSpec("c", "A", 0, 1, Duration.ofHours(8), ProtectedSlots.shards(slots), 0, families, shards);
    }

    /** Two 1-GPU nodes; B holds one for 12 hours from 0, so the campaign's unallocated shards wait for it. */
    static ScenarioBuilder twoGpusOneBusyFor12h() {
        return given().nodes(2, 1)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("b1").in("B").gpus(1).runs("12h").minRuntime("8h").at("0s"));
    }

    @Test
    void theLongestShardHoldsTheSlotAndTheLongestRunningOneIsPromotedInPlaceWhenItFrees() {
        // given shards of 30h (72 units of 25m), 25h (60) and 6h15m (15), one protected slot
        CampaignDriver driver = new CampaignDriver(campaign(1, 72, 60, 15), CampaignStrategy.ALLOT);
        Run run = twoGpusOneBusyFor12h().run("allocation", driver);
        // then the 30h shard takes the slot; when B's GPU frees, the longest waiting shard (25h) runs there
        // unallocated; when the slot frees at 30h it has the most work left and becomes protected where it runs: the
        // same attempt, nothing lost, and the 6h15m shard takes the GPU that freed
        assertThat(run.story()).containsExactly(
                "0s start c-s0 on n1:1",
                "0s start b1 on n2:1",
                "12h complete b1",
                "12h start c-s1 on n2:1",
                "1d6h complete c-s0",
                "1d6h promote c-s1 running",
                "1d6h start c-s2 on n1:1",
                "1d12h15m complete c-s2",
                "1d13h complete c-s1");
        CampaignOutcome o = driver.outcome(run.result().run().endSeconds());
        assertThat(o.makespanSeconds()).isEqualTo(37 * H);
        assertThat(o.promotions()).isEqualTo(1);
        assertThat(o.restarts()).isZero();
        assertThat(o.lostGpuSeconds()).isZero();
        assertThat(o.unitsRedone()).isZero();
        assertThat(o.unitsDone()).isEqualTo(147);
        // charged: s0's 30 hours, then s1 from its promotion at 30h to its end; its 18 hours before were free
        assertThat(o.chargedGpuSeconds()).isEqualTo(30 * H + 7 * H);
        assertThat(o.unallocatedGpuSeconds()).isEqualTo(18 * H + 6 * H + 15 * M);
        assertThat(run.workload("c-s1").preemptions()).isZero();
        assertThat(o.shardEndSeconds()).containsExactly(30 * H, 37 * H, 36 * H + 15 * M);
    }

    @Test
    void underV41TheSameMoveRestartsTheShardAndLosesItsPartialUnit() {
        CampaignDriver driver = new CampaignDriver(campaign(1, 72, 60, 15), CampaignStrategy.V4_1);
        Run run = twoGpusOneBusyFor12h().run("allocation", driver);
        // then at 30h the 25h shard is stopped 43 units and 5 minutes into its run, requeued as protected and started
        // again from unit 43: the 5 minutes are lost, and it ends 5 minutes later than under promotion in place
        assertThat(run.story()).containsExactly(
                "0s start c-s0 on n1:1",
                "0s start b1 on n2:1",
                "12h complete b1",
                "12h start c-s1 on n2:1",
                "1d6h complete c-s0",
                "1d6h preempt c-s1 by c-s1 unallocated requeued lost=5m",
                "1d6h promote c-s1 waiting",
                "1d6h start c-s1 on n1:1",
                "1d6h start c-s2 on n2:1",
                "1d12h15m complete c-s2",
                "1d13h5m complete c-s1");
        CampaignOutcome o = driver.outcome(run.result().run().endSeconds());
        assertThat(o.makespanSeconds()).isEqualTo(37 * H + 5 * M);
        assertThat(o.restarts()).isEqualTo(1);
        assertThat(o.promotions()).isZero();
        assertThat(o.lostGpuSeconds()).isEqualTo(5 * M);
        assertThat(o.unitsRedone()).isZero(); // the lost 5 minutes were no whole unit: no unit is done twice
        assertThat(o.chargedGpuSeconds()).isEqualTo(30 * H + 7 * H + 5 * M);
        assertThat(o.preemptions()).as("the campaign's own restart is no preemption by the policy").isZero();
    }

    @Test
    void fifoParksTheFirstSubmittedShardsWhileTheLongestWaitsAndTheCampaignEndsLater() {
        // given the seed's v4 case: two short shards (6h15m) submitted before the 30h one, one slot
        CampaignSpec c = campaign(1, 15, 15, 72);
        CampaignDriver fifo = new CampaignDriver(c, CampaignStrategy.V4);
        Run v4 = twoGpusOneBusyFor12h().run("allocation", fifo);
        // then v4 parks the short shards in turn; the 30h one starts unallocated on B's GPU at 12h, and when the slot
        // frees at 12h30m it is restarted to take it, losing 5 minutes: the campaign ends after 42 hours
        assertThat(v4.story()).containsExactly(
                "0s start c-s0 on n1:1",
                "0s start b1 on n2:1",
                "6h15m complete c-s0",
                "6h15m promote c-s1 waiting",
                "6h15m start c-s1 on n1:1",
                "12h complete b1",
                "12h start c-s2 on n2:1",
                "12h30m complete c-s1",
                "12h30m preempt c-s2 by c-s2 unallocated requeued lost=5m",
                "12h30m promote c-s2 waiting",
                "12h30m start c-s2 on n1:1",
                "1d18h5m complete c-s2");
        // and Allot parks the 30h shard at once: the short ones run on B's GPU when it frees, the campaign ends at 30h
        CampaignDriver lpt = new CampaignDriver(c, CampaignStrategy.ALLOT);
        Run allot = twoGpusOneBusyFor12h().run("allocation", lpt);
        assertThat(allot.story()).containsExactly(
                "0s start c-s2 on n1:1",
                "0s start b1 on n2:1",
                "12h complete b1",
                "12h start c-s0 on n2:1",
                "18h15m complete c-s0",
                "18h15m start c-s1 on n2:1",
                "1d30m complete c-s1",
                "1d6h complete c-s2");
        assertThat(fifo.outcome(v4.result().run().endSeconds()).makespanSeconds()).isEqualTo(42 * H + 5 * M);
        assertThat(lpt.outcome(allot.result().run().endSeconds()).makespanSeconds()).isEqualTo(30 * H);
        assertThat(fifo.outcome(v4.result().run().endSeconds()).unitsRedone()).isZero();
    }

    @Test
    void idleGpusGoFirstToTheWaitingShardWithTheMostWorkLeftUnderAllotAndInSubmissionOrderUnderV41() {
        // given shards of 30h, 6h15m and 20h and one slot: the 30h shard holds it, the two others wait for B's GPU
        CampaignSpec c = campaign(1, 72, 15, 48);
        CampaignDriver allot = new CampaignDriver(c, CampaignStrategy.ALLOT);
        CampaignDriver v41 = new CampaignDriver(c, CampaignStrategy.V4_1);
        Run a = twoGpusOneBusyFor12h().run("allocation", allot);
        Run v = twoGpusOneBusyFor12h().run("allocation", v41);
        // then at 12h Allot starts the 20h shard (most work left), v4.1 the 6h15m one (submitted first)
        assertThat(a.about("b1")).contains("12h complete b1");
        assertThat(a.story()).contains("12h start c-s2 on n2:1").doesNotContain("12h start c-s1 on n2:1");
        assertThat(v.story()).contains("12h start c-s1 on n2:1", "18h15m start c-s2 on n2:1");
        // and the slot that frees at 30h goes to the 6h15m shard still waiting, not to the 20h one with 2h left
        assertThat(a.story()).contains("1d6h promote c-s1 waiting", "1d6h start c-s1 on n1:1");
        assertThat(allot.outcome(a.result().run().endSeconds()).makespanSeconds()).isEqualTo(36 * H + 15 * M);
        assertThat(v41.outcome(v.result().run().endSeconds()).makespanSeconds()).isEqualTo(38 * H + 20 * M);
    }

    @Test
    void theRulesLearnEachShardsRateFromTheUnitsItReportsNeverFromTheTrueRate() {
        // given a find shard of 120 units of 5 minutes and a restore shard of 30 units of 25 minutes, one slot
        TreeMap<String, Long> families = new TreeMap<>();
        families.put("find", 5 * M);
        families.put("restore", 25 * M);
        CampaignSpec c = new CampaignSpec("c", "A", 0, 1, Duration.ofHours(8), ProtectedSlots.shards(1), 0, families,
                List.of(new CampaignSpec.Shard(0, "find", 120, 1.0), new CampaignSpec.Shard(1, "restore", 30, 1.2)));
        CampaignDriver driver = new CampaignDriver(c, CampaignStrategy.ALLOT);
        Run run = given().nodes(2, 1).allocations(t -> t.leaf("A", 50).leaf("B", 50)).run("allocation", driver);
        // then before any unit the slot goes by units (120 > 30) to the find shard; the restore shard runs on the
        // other GPU at 1.2 x 25 minutes a unit; from its first unit the rules know its rate as measured: 30 minutes
        assertThat(run.story()).startsWith("0s start c-s0 on n1:1", "0s start c-s1 on n2:1");
        RateEstimator.Estimate restore = driver.lastPlan().estimates().get(1);
        assertThat(restore.source()).isEqualTo(RateEstimator.Source.SHARD);
        assertThat(restore.secondsPerUnit()).isEqualTo(30.0 * M);
        CampaignOutcome o = driver.outcome(run.result().run().endSeconds());
        assertThat(o.shardEndSeconds()).containsExactly(10 * H, 15 * H);
        assertThat(o.unitsRedone()).isZero();
    }

    @Test
    void anAgentThatDoesNothingLeavesTheRunAsItWas() {
        ScenarioBuilder s = twoGpusOneBusyFor12h()
                .workload(w("a1").in("A").gpus(1).runs("3h").minRuntime("1h").resumable().at("1h"))
                .workload(w("u1").in("B").gpus(1).runs("5h").unallocated().resumable().at("30m"));
        Run alone = s.run("allocation");
        Run idle = s.run("allocation", new dev.allot.sim.SimulationAgent() {
            @Override
            public long nextActionSeconds() {
                return 2 * H;
            }

            @Override
            public boolean wantsToAct() {
                return false;
            }

            @Override
            public boolean act(long time, Actions actions) {
                return false;
            }
        });
        assertThat(idle.story()).isEqualTo(alone.story());
        assertThat(idle.result().workloads()).isEqualTo(alone.result().workloads());
        assertThat(idle.result().metrics()).isEqualTo(alone.result().metrics());
    }
}
