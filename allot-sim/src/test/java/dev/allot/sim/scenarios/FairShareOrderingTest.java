package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** Who goes first: fair share between allocations, declared priority only inside one. */
class FairShareOrderingTest {

    @Test
    void anUnderServedAllocationStartsBeforeAnOverServedOneEvenIfItSubmittedLater() {
        // given one 8-GPU node shared 50/50 by A and B, and A has used it alone for 6 hours
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a0").in("A").gpus(8).runs("6h").minRuntime("6h").at("0s"))
                // when A submits first and B second
                .workload(w("a1").in("A").gpus(8).runs("2h").minRuntime("1h").at("1h"))
                .workload(w("b1").in("B").gpus(8).runs("2h").minRuntime("1h").at("2h"))
                .run("allocation");
        // then B, which has used nothing, goes first when the node frees up; A waits its turn
        assertThat(run.story()).containsExactly(
                "0s start a0 on n1:8",
                "6h complete a0",
                "6h start b1 on n1:8",
                "8h complete b1",
                "8h start a1 on n1:8",
                "10h complete a1");
    }

    @Test
    void priorityOrdersOnlyInsideAnAllocation() {
        // given A holds the node under protection, and work waits: B normal, then A urgent, then A normal
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a-hog").in("A").gpus(8).runs("2h").minRuntime("2h").at("0s"))
                .workload(w("b-normal").in("B").gpus(8).runs("1h").minRuntime("1h").at("10m"))
                .workload(w("a-urgent").in("A").gpus(8).runs("1h").minRuntime("1h").priority(Priority.URGENT).at("20m"))
                .workload(w("a-normal").in("A").gpus(8).runs("1h").minRuntime("1h").at("30m"))
                .run("allocation");
        // then A's urgent work does not jump ahead of B (B is under-served), but it does go before A's normal work
        assertThat(run.story()).filteredOn(l -> l.contains(" start ")).containsExactly(
                "0s start a-hog on n1:8",
                "2h start b-normal on n1:8",
                "3h start a-urgent on n1:8",
                "4h start a-normal on n1:8");
    }

    @Test
    void higherPriorityWorkOfTheSameAllocationPreemptsLowerPriorityWorkPastItsMinimumRuntime() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a-low").in("A").gpus(8).runs("5h").minRuntime("1h").priority(Priority.LOW).checkpointEvery("30m").at("0s"))
                .workload(w("a-high").in("A").gpus(8).runs("1h").minRuntime("1h").priority(Priority.HIGH).at("30m"))
                .run("allocation");
        assertThat(run.story()).containsExactly(
                "0s start a-low on n1:8",
                "1h preempt a-low by a-high priority requeued lost=0s",
                "1h start a-high on n1:8",
                "2h complete a-high",
                "2h start a-low on n1:8",
                "6h complete a-low");
    }

    @Test
    void lowerPriorityNeverPreemptsHigherPriorityOfTheSameAllocation() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a-high").in("A").gpus(8).runs("3h").minRuntime("1h").priority(Priority.HIGH).at("0s"))
                .workload(w("a-low").in("A").gpus(8).runs("1h").minRuntime("1h").priority(Priority.LOW).at("10m"))
                .run("allocation");
        assertThat(run.story()).containsExactly(
                "0s start a-high on n1:8",
                "3h complete a-high",
                "3h start a-low on n1:8",
                "4h complete a-low");
    }
}
