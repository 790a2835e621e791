package dev.allot.sim.scenarios.kueue;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** Kueue: unallocated work in a best-effort ClusterQueue of weight 0, and hosts that become unhealthy. */
class KueueHostsAndUnallocatedTest {

    @Test
    void unallocatedWorkIsAdmittedLastAndEvictedByTheNextCycleThatNeedsItsQuota() {
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("u1").in("A").unallocated().gpus(8).runs("10h").resumable().at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("1h"))
                .run("kueue");
        // the first cycle admits A's head and, last (infinite share), u1 on the idle node; the next cycle's head a2
        // evicts u1 at once (Kueue admits one head per ClusterQueue per cycle). At 1h b1 reclaims from A, the only
        // borrower running; a1 cannot resume, so it is requeued to start over and, ahead of unallocated work, gets
        // the GPUs when b1 is done; u1 runs when a2 is
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "0s start u1 on n2:8",
                "0s preempt u1 by a2 unallocated requeued lost=0s",
                "0s start a2 on n2:8",
                "1h preempt a1 by b1 fair_share requeued lost=1h",
                "1h start b1 on n1:8",
                "2h complete b1",
                "2h start a1 on n1:8",
                "10h complete a2",
                "10h start u1 on n2:8",
                "12h complete a1",
                "20h complete u1");
    }

    @Test
    void unallocatedWorkRunningOnIdleGpusIsPreemptedFirst() {
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("u1").in("A").unallocated().gpus(8).runs("10h").resumable().at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("1h"))
                .run("kueue");
        assertThat(run.story()).startsWith(
                "0s start a1 on n1:8",
                "0s start u1 on n2:8",
                "1h preempt u1 by b1 unallocated requeued lost=0s",
                "1h start b1 on n2:8",
                "2h complete b1",
                "2h start u1 on n2:8");
    }

    @Test
    void anUnhealthyHostTakesNoNewWorkButKeepsRunningItsWorkloads() {
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 1))
                .workload(w("a1").in("A").gpus(8).runs("10h").at("0s"))
                .unhealthy("n1", "1h")
                .workload(w("a2").in("A").gpus(8).runs("3h").at("2h"))
                .workload(w("a3").in("A").gpus(8).runs("1h").at("3h"))
                .run("kueue");
        // cordoning does not evict a1; a3 fits A's quota but has no healthy node until a2 ends
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "1h unhealthy n1",
                "2h start a2 on n2:8",
                "5h complete a2",
                "5h start a3 on n2:8",
                "6h complete a3",
                "10h complete a1",
                "10h drained n1");
    }
}
