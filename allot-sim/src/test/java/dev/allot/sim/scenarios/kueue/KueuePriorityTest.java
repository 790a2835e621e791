package dev.allot.sim.scenarios.kueue;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** Kueue: {@code withinClusterQueue: LowerPriority}. */
class KueuePriorityTest {

    @Test
    void higherPriorityWorkPreemptsLowerPriorityWorkOfItsOwnClusterQueueOnly() {
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a-low").in("A").gpus(8).runs("10h").priority(Priority.LOW).at("0s"))
                .workload(w("b-low").in("B").gpus(8).runs("10h").priority(Priority.LOW).at("0s"))
                .workload(w("a-high").in("A").gpus(8).runs("1h").priority(Priority.HIGH).at("1h"))
                .workload(w("a-low2").in("A").gpus(8).runs("1h").priority(Priority.LOW).at("1h"))
                .runWithReasons("kueue");
        // A is at its nominal quota and B does not borrow: a-high may only take A's own lower-priority work;
        // a-low2, of equal priority, waits; a-low, requeued to start over and submitted earlier, goes first
        assertThat(run.story()).filteredOn(l -> l.contains(" preempt ") || l.contains(" start "))
                .extracting(l -> l.replaceAll(" \\(.*", ""))
                .containsExactly(
                        "0s start a-low on n1:8",
                        "0s start b-low on n2:8",
                        "1h preempt a-low by a-high priority requeued lost=1h",
                        "1h start a-high on n1:8",
                        "2h start a-low on n1:8",
                        "10h start a-low2 on n2:8");
        assertThat(run.about("a-low")).filteredOn(l -> l.contains(" preempt ")).singleElement().asString().contains(
                "Kueue InClusterQueue: a-high (high) of A needed the quota of"
                + " lower-priority a-low (low)");
    }
}
