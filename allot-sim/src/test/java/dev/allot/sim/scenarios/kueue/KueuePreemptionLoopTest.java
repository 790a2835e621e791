package dev.allot.sim.scenarios.kueue;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** Kueue: a preemption loop of fair sharing and priority, and how the model breaks it. */
class KueuePreemptionLoopTest {

    @Test
    void aWorkloadEvictedByPreemptionDoesNotPreemptUntilQuotaIsReleased() {
        // 16 GPUs; nominal quotas A 4, B 4, C 8 (idle). b1 borrows 6 GPUs of C's.
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 25).leaf("B", 25).leaf("C", 50))
                .workload(w("b1").in("B").gpus(10).runs("10h").resumable().at("0s"))
                .workload(w("a-big").in("A").gpus(12).runs("2h").resumable().priority(Priority.HIGH).at("1h"))
                .workload(w("a-small").in("A").gpus(8).runs("1h").resumable().at("1h"))
                .runWithReasons("kueue");
        // a-big alone may not take b1's GPUs (A's share with it would exceed B's), but a-small may; once b1 is gone,
        // a-big takes a-small's GPUs within A. b1 could now take a-big's by share (A's share with a-big is above B's
        // with b1), after which a-small could take b1's again, and so on: Kueue would loop. Here b1 and a-small, both
        // just evicted, wait until a-big ends
        assertThat(run.story()).filteredOn(l -> l.contains(" preempt ") || l.contains(" start ")
                        || l.contains(" complete "))
                .extracting(l -> l.replaceAll(" \\(.*", "").replaceAll(" on .*", ""))
                .containsExactly(
                        "0s start b1",
                        "1h preempt b1 by a-small fair_share requeued lost=0s",
                        "1h start a-small",
                        "1h preempt a-small by a-big priority requeued lost=0s",
                        "1h start a-big",
                        "3h complete a-big",
                        "3h start a-small",
                        "4h complete a-small",
                        "4h start b1",
                        "13h complete b1");
        assertThat(run.about("b1")).filteredOn(l -> l.contains(" preempt ")).singleElement().asString()
                .contains("LessThanInitialShare");
    }
}
