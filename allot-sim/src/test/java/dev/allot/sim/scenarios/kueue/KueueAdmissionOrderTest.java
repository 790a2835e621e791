package dev.allot.sim.scenarios.kueue;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** Kueue's admission order with fair sharing: the ClusterQueue whose share would be lowest after admission first. */
class KueueAdmissionOrderTest {

    @Test
    void freedGpusGoToTheClusterQueueWithTheLowestShareAfterAdmissionNotToTheOldestWorkload() {
        // 32 GPUs: A 50% (nominal 16), B 25% (8), C 25% (8, idle, lending its quota)
        Run run = given().nodes(4, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 25).leaf("C", 25))
                .workload(w("a1").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("a3").in("A").gpus(4).runs("1h").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("10h").at("0s"))
                .workload(w("b2").in("B").gpus(4).runs("10h").at("0s"))
                // both borrow; B's waits longer
                .workload(w("b-next").in("B").gpus(4).runs("1h").at("10m"))
                .workload(w("a-next").in("A").gpus(4).runs("1h").at("20m"))
                .runWithReasons("kueue");
        // at 1h a3 frees 4 GPUs. With them A would borrow 4 of 32 at weight 0.5 (share 250), B 8 at weight 0.25
        // (1000): a-next goes first although b-next is older; and then b-next cannot preempt anyone
        assertThat(run.story()).filteredOn(l -> l.startsWith("1h ")).extracting(l -> l.replaceAll(" on .*", ""))
                .containsExactly("1h complete a3", "1h start a-next");
        assertThat(run.about("a-next")).filteredOn(l -> l.contains(" start ")).singleElement().asString()
                .contains("share 250.0 with it admitted");
        assertThat(run.workload("b-next").firstStartSeconds()).isEqualTo(2 * 3600);
    }
}
