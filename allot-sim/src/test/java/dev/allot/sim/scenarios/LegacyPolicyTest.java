package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** The baseline: global priorities, non-preemptible work under per-allocation limits. */
class LegacyPolicyTest {

    @Test
    void priorityOrdersTheWholeQueueAcrossAllocations() {
        // given both nodes held by non-preemptible work, B's normal job waits, then A's urgent one arrives
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a-hog").in("A").gpus(8).runs("2h").minRuntime("8h").at("0s"))
                .workload(w("b-hog").in("B").gpus(8).runs("3h").minRuntime("8h").at("0s"))
                .workload(w("b-normal").in("B").gpus(8).runs("1h").minRuntime("1h").at("10m"))
                .workload(w("a-urgent").in("A").gpus(8).runs("2h").minRuntime("1h").priority(Priority.URGENT).at("20m"))
                .run("legacy");
        // then the urgent job jumps the whole queue, whatever its allocation has used
        assertThat(run.story()).filteredOn(l -> l.contains(" start ")).containsExactly(
                "0s start a-hog on n1:8",
                "0s start b-hog on n2:8",
                "2h start a-urgent on n1:8",
                "3h start b-normal on n2:8");
    }

    @Test
    void higherPriorityPreemptsPreemptibleWorkAtOnceButNeverNonPreemptibleWork() {
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a-np").in("A").gpus(8).runs("10h").minRuntime("8h").at("0s"))
                .workload(w("a-p").in("A").gpus(8).runs("10h").minRuntime("1h").resumable().at("0s"))
                .workload(w("b-high").in("B").gpus(8).runs("1h").minRuntime("8h").priority(Priority.HIGH).at("10m"))
                .run("legacy");
        assertThat(run.story()).startsWith(
                "0s start a-np on n1:8",
                "0s start a-p on n2:8",
                "10m preempt a-p by b-high priority requeued lost=0s",
                "10m start b-high on n2:8");
    }

    @Test
    void nonPreemptibleWorkBeyondTheAllocationsLimitWaitsWhilePreemptibleWorkRunsOnIdleGpus() {
        // A is entitled to half of 16 GPUs: 8 non-preemptible GPUs at a time
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("np1").in("A").gpus(8).runs("2h").minRuntime("8h").at("0s"))
                .workload(w("np2").in("A").gpus(8).runs("2h").minRuntime("8h").at("1m"))
                .workload(w("p1").in("A").gpus(8).runs("1h").minRuntime("1h").at("2m"))
                .run("legacy");
        // np2 would fit on the idle node at 1h2m, but A is at its limit until np1 ends
        assertThat(run.story()).containsExactly(
                "0s start np1 on n1:8",
                "2m start p1 on n2:8",
                "1h2m complete p1",
                "2h complete np1",
                "2h start np2 on n1:8",
                "4h complete np2");
    }
}
