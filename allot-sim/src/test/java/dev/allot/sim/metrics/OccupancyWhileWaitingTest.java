package dev.allot.sim.metrics;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.Simulator;
import dev.allot.sim.report.TextReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Occupancy over the moments when work waited, beside occupancy over the whole window, counted by hand. */
class OccupancyWhileWaitingTest {
    /**
     * One 8-GPU node. At 0s a1 and a2 (8 GPUs each, 1 hour) arrive: a1 runs, a2 waits an hour, then runs an hour. At
     * 2h30m b1 (1 GPU, 10 minutes) arrives and starts at once; the run ends at 2h40m, within the 3-hour window
     * (through the hour of the last submission), so 2h40m of healthy GPU-time count.
     */
    private static ScenarioBuilder queueThenLull() {
        return given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 100))
                .workload(w("a1").in("A").gpus(8).runs("1h").minRuntime("1h").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("1h").minRuntime("1h").at("0s"))
                .workload(w("b1").in("A").gpus(1).runs("10m").minRuntime("10m").at("2h30m"));
    }

    @Test
    void givenAQueueThenALullTheIdleLullCountsAgainstOccupancyButNotWhileWorkWaited() {
        for (String policy : PolicyRegistry.standard().names()) {
            PolicyMetrics m = new Simulator(queueThenLull().scenario(), PolicyRegistry.standard(), policy,
                    Simulator.Options.defaults().withCheck(true)).run().metrics();
            // busy 8 + 8 + 1/6 GPU-hours of 8 x 2h40m healthy; a2 waited only during the first hour, when a1 ran on all 8
            assertThat(m.occupancy()).as(policy).isEqualTo(Math.round((16 + 1 / 6.0) / (8 * (2 + 2 / 3.0)) * 10_000) / 10_000.0);
            assertThat(m.occupancyWhileWaiting()).as(policy).isEqualTo(1.0);
        }
    }

    @Test
    void nothingEverWaitingHasNoOccupancyWhileWaitingAndTheReportSaysSo() {
        ScenarioBuilder given = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 100))
                .workload(w("a1").in("A").gpus(4).runs("1h").minRuntime("1h").at("0s"));
        var result = new Simulator(given.scenario(), PolicyRegistry.standard(), "allocation",
                Simulator.Options.defaults()).run();
        assertThat(result.metrics().occupancyWhileWaiting()).isNull();
        assertThat(TextReport.render(given.scenario(), List.of(result))).containsPattern("while work waited +-");
        var queued = new Simulator(queueThenLull().scenario(), PolicyRegistry.standard(), "allocation",
                Simulator.Options.defaults()).run();
        assertThat(TextReport.render(queueThenLull().scenario(), List.of(queued)))
                .containsPattern("occupancy +75\\.8%").containsPattern("while work waited +100\\.0%");
    }
}
