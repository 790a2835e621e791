package dev.allot.sim.campaign;

import static dev.allot.sim.campaign.CampaignStoryTest.campaign;
import static dev.allot.sim.campaign.CampaignStoryTest.twoGpusOneBusyFor12h;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.SimulationListener;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.ScenarioBuilder.Run;
import dev.allot.sim.campaign.CampaignOutcome.Attempt;
import dev.allot.sim.campaign.CampaignOutcome.End;
import org.junit.jupiter.api.Test;

/**
 * The runs the driver keeps for the report (every run of every shard: start, end, from when protected, units, how it
 * ended) in the stories of {@link CampaignStoryTest}, and the units done over time worked out from them.
 */
class CampaignProgressTest {
    private static final long M = 60;
    private static final long H = 3600;

    @Test
    void promotionInPlaceIsOneRunProtectedFromThePromotion() {
        // given the 30h, 25h and 6h15m shards with one slot under Allot's strategy (CampaignStoryTest's first story)
        CampaignDriver driver = new CampaignDriver(campaign(1, 72, 60, 15), CampaignStrategy.ALLOT);
        Run run = twoGpusOneBusyFor12h().run("allocation", driver);
        CampaignOutcome o = driver.outcome(run.result().run().endSeconds());
        // then s1 has one run from 12h, protected from its promotion at 30h; s2 ran unallocated throughout
        assertThat(o.attempts()).containsExactly(
                new Attempt(0, 0, 30 * H, 0, 0, 72, End.COMPLETED),
                new Attempt(1, 12 * H, 37 * H, 30 * H, 0, 60, End.COMPLETED),
                new Attempt(2, 30 * H, 36 * H + 15 * M, -1, 0, 15, End.COMPLETED));
        assertThat(o.attempts().get(1).promoted()).isTrue();
        assertThat(o.attempts().get(0).promoted()).as("started protected: no promotion").isFalse();
    }

    @Test
    void aRestartEndsOneRunAndTheNextResumesFromItsLastReportedUnit() {
        CampaignDriver driver = new CampaignDriver(campaign(1, 72, 60, 15), CampaignStrategy.V4_1);
        Run run = twoGpusOneBusyFor12h().run("allocation", driver);
        CampaignOutcome o = driver.outcome(run.result().run().endSeconds());
        // then s1's run from 12h is stopped at 30h with 43 units (18h of 25m units), and its next run, protected from
        // its start, resumes from 43
        assertThat(o.attempts()).containsExactly(
                new Attempt(0, 0, 30 * H, 0, 0, 72, End.COMPLETED),
                new Attempt(1, 12 * H, 30 * H, -1, 0, 43, End.RESTARTED),
                new Attempt(1, 30 * H, 37 * H + 5 * M, 30 * H, 43, 60, End.COMPLETED),
                new Attempt(2, 30 * H, 36 * H + 15 * M, -1, 0, 15, End.COMPLETED));
    }

    @Test
    void unitsDoneOverTimeFollowTheDriversBooks() {
        CampaignSpec spec = campaign(1, 72, 60, 15);
        CampaignDriver driver = new CampaignDriver(spec, CampaignStrategy.V4_1);
        Run run = twoGpusOneBusyFor12h().run("allocation", driver);
        CampaignOutcome o = driver.outcome(run.result().run().endSeconds());
        long[] units = CampaignProgress.unitsDone(spec, o,
                new long[] {0, 25 * M - 1, 25 * M, 12 * H, 13 * H, 30 * H, 31 * H, 37 * H + 5 * M, 40 * H});
        // at 13h: s0 31 units (13h / 25m = 31.2), s1 2 (1h of its run); at 30h: 72 + 43; at 31h: s1 43 + 2, s2 2
        assertThat(units).containsExactly(0, 0, 1, 28, 31 + 2, 72 + 43, 72 + 45 + 2, 147, 147);
        assertThat(units[units.length - 1]).isEqualTo(o.unitsDone());
    }

    @Test
    void aRunStillGoingAtTheEndIsKeptAsRunning() {
        // given a simulation stopped 10 hours in, while the 30h shard runs protected (no checks: b1 runs at the end)
        CampaignDriver driver = new CampaignDriver(campaign(1, 72), CampaignStrategy.ALLOT);
        SimulationResult result = new Simulator(twoGpusOneBusyFor12h().scenario(), PolicyRegistry.standard(),
                "allocation", new Simulator.Options(false, SimulationListener.NONE, 10 * H, driver)).run();
        CampaignOutcome o = driver.outcome(result.run().endSeconds());
        // then its run is kept up to the end, with the units reported by then (10h of 25m units)
        assertThat(o.finished()).isFalse();
        assertThat(o.attempts()).containsExactly(
                new Attempt(0, 0, result.run().endSeconds(), 0, 0, result.run().endSeconds() / (25 * M), End.RUNNING));
        assertThat(result.run().endSeconds()).isLessThanOrEqualTo(10 * H);
    }

    @Test
    void theGridSpansBothEndsInWholeMinutes() {
        assertThat(CampaignProgress.grid(0, 10 * M, 100)).containsExactly(0, 60, 120, 180, 240, 300, 360, 420, 480,
                540, 600);
        long[] g = CampaignProgress.grid(3 * 86_400, 3 * 86_400 + 100 * H + 7, 481);
        assertThat(g).hasSizeLessThanOrEqualTo(481);
        assertThat(g[0]).isEqualTo(3 * 86_400);
        assertThat(g[g.length - 1]).isEqualTo(3 * 86_400 + 100 * H + 7);
        assertThat((g[1] - g[0]) % 60).isZero();
        assertThatThrownBy(() -> CampaignProgress.unitsDone(campaign(1, 72), driverlessOutcome(), new long[] {5, 4}))
                .hasMessageContaining("times must ascend");
    }

    private static CampaignOutcome driverlessOutcome() {
        return new CampaignDriver(campaign(1, 72), CampaignStrategy.ALLOT).outcome(0);
    }
}
