package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder.Run;
import dev.allot.sim.metrics.PolicyMetrics;
import org.junit.jupiter.api.Test;

/** Slurm's DRAIN: an unhealthy node takes no new work and waits for its running jobs, of either QOS, to finish. */
class SlurmDrainTest {

    @Test
    void anUnhealthyNodeTakesNoNewWorkAndDrainsOnlyAsItsJobsFinish() {
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("1h").at("0s"))
                .workload(w("u1").in("B").gpus(8).runs("6h").unallocated().at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("3h"))
                .unhealthy("n1", "1h")
                .unhealthy("n2", "2h")
                .healthy("n1", "12h")
                .run("slurm");
        // no eviction, not even of unallocated work; b1 waits for a healthy node, not for a drained one
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "0s start u1 on n2:8",
                "1h unhealthy n1",
                "2h unhealthy n2",
                "6h complete u1",
                "6h drained n2",
                "10h complete a1",
                "10h drained n1",
                "12h healthy n1",
                "12h start b1 on n1:8",
                "13h complete b1");
        PolicyMetrics m = run.result().metrics();
        assertThat(m.drainEvictions()).isZero();
        assertThat(m.drains()).isEqualTo(2);
        assertThat(m.drainsWithoutWaiting()).isZero();
        // n1 waited from 1h (a1's 1h minimum runtime already over) to 10h, n2 from 2h to 6h
        assertThat(m.drainBlockedHours()).isEqualTo(13.0);
    }
}
