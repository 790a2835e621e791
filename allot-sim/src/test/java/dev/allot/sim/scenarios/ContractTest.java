package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder.Run;
import dev.allot.sim.metrics.AllocationMetrics;
import org.junit.jupiter.api.Test;

/** The scheduling contract: minimum runtimes protect, then time-slice; zero means unallocated and free. */
class ContractTest {

    @Test
    void aProtectedWorkloadIsPreemptedExactlyAtItsMinimumRuntimeAndNotBefore() {
        // given A's resumable run holds the only node, protected for 2h; B submits at 30m
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("2h").checkpointEvery("30m").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("30m").at("30m"))
                .run("allocation");
        // then B waits until the very second A's protection ends, then takes the node; A resumes from its checkpoint
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "2h preempt a1 by b1 fair_share requeued lost=0s",
                "2h start b1 on n1:8",
                "3h complete b1",
                "3h start a1 on n1:8",
                "11h complete a1");
        assertThat(run.workload("b1").waitSeconds()).isEqualTo(90 * 60);
    }

    @Test
    void workSinceTheLastCheckpointIsLost() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("1h45m").checkpointEvery("1h").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("30m").at("30m"))
                .run("allocation");
        // a1 checkpointed at 1h; preempted at 1h45m it loses 45 minutes and needs 9 more hours
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "1h45m preempt a1 by b1 fair_share requeued lost=45m",
                "1h45m start b1 on n1:8",
                "2h45m complete b1",
                "2h45m start a1 on n1:8",
                "11h45m complete a1");
        assertThat(run.result().metrics().lostGpuHours()).isEqualTo(6.0);
    }

    @Test
    void unallocatedWorkRunsOnlyOnIdleGpusIsPreemptedAtOnceAndIsNeverCharged() {
        // given A runs an unallocated sweep on the only node, and A's own allocated job waits behind nothing
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a-alloc").in("A").gpus(8).runs("30m").minRuntime("15m").at("0s"))
                .workload(w("u1").in("A").gpus(8).runs("5h").unallocated().resumable().at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").at("1h"))
                .run("allocation");
        // then allocated work goes first, the sweep fills the idle node, and B takes it back at once
        assertThat(run.story()).containsExactly(
                "0s start a-alloc on n1:8",
                "30m complete a-alloc",
                "30m start u1 on n1:8",
                "1h preempt u1 by b1 unallocated requeued lost=0s",
                "1h start b1 on n1:8",
                "2h complete b1",
                "2h start u1 on n1:8",
                "6h30m complete u1");
        AllocationMetrics a = run.result().metrics().allocations().get(0);
        assertThat(a.name()).isEqualTo("A");
        assertThat(a.receivedGpuHours()).isEqualTo(4.0); // only the 30 minutes of a-alloc
        assertThat(a.unallocatedGpuHours()).isEqualTo(4.0); // 30m of the sweep inside the 2h window
    }

    @Test
    void minimumRuntimesOf24HoursAreCappedAt8Hours() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("20h").minRuntime("24h").resumable().at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").at("1h"))
                .run("allocation");
        assertThat(run.about("b1")).first().isEqualTo("8h preempt a1 by b1 fair_share requeued lost=0s");
        assertThat(run.result().metrics().cappedMinRuntimes()).isEqualTo(1);
    }

    @Test
    void aCapCanBeConfigured() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .set("max-min-runtime", "2h")
                .workload(w("a1").in("A").gpus(8).runs("20h").minRuntime("4h").resumable().at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").at("1h"))
                .run("allocation");
        assertThat(run.about("b1")).first().isEqualTo("2h preempt a1 by b1 fair_share requeued lost=0s");
    }

    @Test
    void aPreemptedNonResumableWorkloadEndsPreemptedAndItsWholeRunIsLost() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("1h").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").at("30m"))
                .run("allocation");
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "1h preempt a1 by b1 fair_share ended lost=1h",
                "1h start b1 on n1:8",
                "2h complete b1");
        assertThat(run.workload("a1").finalState()).isEqualTo("preempted");
        assertThat(run.workload("a1").preemptions()).isEqualTo(1);
        assertThat(run.result().metrics().lostGpuHours()).isEqualTo(8.0);
        assertThat(run.result().metrics().preemptedFinal()).isEqualTo(1);
    }
}
