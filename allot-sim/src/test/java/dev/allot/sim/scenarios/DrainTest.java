package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder.Run;
import dev.allot.sim.metrics.PolicyMetrics;
import org.junit.jupiter.api.Test;

/** Unhealthy hosts take no new work and drain as minimum runtimes expire, with no one to negotiate with. */
class DrainTest {

    private static dev.allot.sim.ScenarioBuilder twoNodesWithAFailure() {
        return given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("3h").resumable().at("0s"))
                .workload(w("u1").in("A").gpus(8).runs("10h").unallocated().resumable().at("0s"))
                .unhealthy("n1", "1h")
                .healthy("n1", "5h");
    }

    @Test
    void anUnhealthyHostDrainsAsItsMinimumRuntimesExpire() {
        Run run = twoNodesWithAFailure().run("allocation");
        assertThat(run.story()).startsWith(
                "0s start a1 on n1:8",
                "0s start u1 on n2:8",
                "1h unhealthy n1",
                "3h preempt a1 drain n1 host_drain requeued lost=0s",
                "3h drained n1",
                "3h preempt u1 by a1 unallocated requeued lost=0s",
                "3h start a1 on n2:8",
                "5h healthy n1",
                "5h start u1 on n1:8");
        PolicyMetrics m = run.result().metrics();
        assertThat(m.drains()).isEqualTo(1);
        assertThat(m.drainsWithoutWaiting()).isEqualTo(1);
        assertThat(m.drainBlockedHours()).isZero();
        assertThat(m.drainEvictions()).isEqualTo(1);
    }

    @Test
    void unallocatedWorkLeavesAnUnhealthyHostAtOnce() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("u1").in("A").gpus(8).runs("10h").unallocated().at("0s"))
                .unhealthy("n1", "2h")
                .run("allocation");
        assertThat(run.story()).startsWith(
                "0s start u1 on n1:8",
                "2h unhealthy n1",
                "2h preempt u1 drain n1 host_drain ended lost=2h",
                "2h drained n1");
    }

    @Test
    void underLegacyNonPreemptibleWorkBlocksTheDrainUntilItEnds() {
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("8h").at("0s"))
                .unhealthy("n1", "1h")
                .run("legacy");
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "1h unhealthy n1",
                "10h complete a1",
                "10h drained n1");
        // it drained 2 hours after a1's (capped) 8h contract would have let it go
        assertThat(run.result().metrics().drainBlockedHours()).isEqualTo(2.0);
        assertThat(run.result().metrics().drainsWithoutWaiting()).isZero();
    }
}
