package dev.allot.sim.metrics;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.report.TextReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The paid fraction at instants and the most any schedule could pay, on runs small enough to count by hand. */
class PaidBoundTest {
    private static SimulationResult run(ScenarioBuilder given, String policy, long step) {
        return new Simulator(given.scenario(), PolicyRegistry.standard(), policy,
                Simulator.Options.defaults().withCheck(true).withPaidBoundStepSeconds(step)).run();
    }

    /**
     * One 8-GPU node split 50/50. At 0s A submits an 8-GPU job and B four 1-GPU jobs, all running 2 hours: each is
     * owed 4 GPUs, but A's only job needs all 8. The window is the first hour: 4 instants 15 minutes apart.
     */
    private static ScenarioBuilder gangBesideSmallWork() {
        return given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("2h").minRuntime("2h").at("0s"))
                .workload(w("b1").in("B").gpus(1).runs("2h").minRuntime("10m").at("0s"))
                .workload(w("b2").in("B").gpus(1).runs("2h").minRuntime("10m").at("0s"))
                .workload(w("b3").in("B").gpus(1).runs("2h").minRuntime("10m").at("0s"))
                .workload(w("b4").in("B").gpus(1).runs("2h").minRuntime("10m").at("0s"));
    }

    @Test
    void givenAGangLargerThanItsQuotaBesideAnotherTeamsSmallWorkNoScheduleIsPaidMoreThanHalf() {
        for (String policy : List.of("allocation", "legacy", "slurm", "kueue")) {
            PolicyMetrics m = run(gangBesideSmallWork(), policy, 900).metrics();
            PaidBound.Result r = m.paidBound();
            assertThat(r.instants()).as(policy).isEqualTo(4);
            assertThat(r.owedGpus()).as(policy + ": 4 + 4 GPUs owed at each of 4 instants").isEqualTo(32.0);
            assertThat(r.boundGpus()).as(policy + ": A's gang or B's four jobs, never both").isEqualTo(16.0);
            assertThat(r.boundFraction()).isEqualTo(0.5);
            assertThat(r.paidGpus()).as(policy + ": whatever runs pays 4 of the 8").isEqualTo(16.0);
            assertThat(r.paidFraction()).isEqualTo(0.5);
            assertThat(r.worstPaidFraction()).as(policy + ": whoever waits is paid nothing").isEqualTo(0.0);
            assertThat(r.fairBoundFraction()).as(policy + ": 95% each would need 30.4 of the 16 payable").isEqualTo(-1.0);
        }
    }

    @Test
    void givenRoomForEveryoneTheBoundIsEverythingOwedAndThePolicyPaysIt() {
        ScenarioBuilder given = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("2h").minRuntime("2h").at("0s"))
                .workload(w("b1").in("B").gpus(4).runs("2h").minRuntime("10m").at("0s"));
        PaidBound.Result r = run(given, "allocation", 900).metrics().paidBound();
        // A is owed 8 (its quota), B 4 (its demand); both run at once
        assertThat(r.owedGpus()).isEqualTo(4 * 12.0);
        assertThat(r.boundFraction()).isEqualTo(1.0);
        assertThat(r.paidFraction()).isEqualTo(1.0);
        assertThat(r.worstPaidFraction()).isEqualTo(1.0);
        assertThat(r.fairBoundFraction()).as("paying everyone everything meets every floor").isEqualTo(1.0);
    }

    @Test
    void offByDefaultAndAbsentFromTheTextReportThen() {
        SimulationResult off = new Simulator(gangBesideSmallWork().scenario(), PolicyRegistry.standard(), "allocation",
                Simulator.Options.defaults()).run();
        assertThat(off.metrics().paidBound()).isNull();
        assertThat(TextReport.render(gangBesideSmallWork().scenario(), List.of(off))).doesNotContain("paid at instants");
        SimulationResult on = run(gangBesideSmallWork(), "allocation", 900);
        assertThat(TextReport.render(gangBesideSmallWork().scenario(), List.of(on)))
                .containsPattern("paid at instants +50\\.0%")
                .containsPattern("most any schedule could +50\\.0%")
                .containsPattern("worst at instants +0\\.0%")
                .containsPattern("most, each paid >= 95% +no schedule");
        // the same decisions with or without the measurement
        assertThat(on.workloads()).isEqualTo(off.workloads());
    }

    @Test
    void theStepMustBePositive() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new PaidBound(0, 3600))
                .hasMessageContaining("step must be positive");
    }
}
