package dev.allot.sim.scenarios.kueue;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** Kueue: borrowing the idle quota of the cohort, and the lender taking it back. */
class KueueBorrowingTest {

    /** Two 8-GPU nodes, A and B each with a nominal quota of 8 GPUs in one cohort. */
    private static ScenarioBuilder aAndB() {
        return given().nodes(2, 8).allocations(t -> t.leaf("A", 50).leaf("B", 50));
    }

    @Test
    void aClusterQueueBorrowsTheIdleQuotaOfItsCohort() {
        Run run = aAndB()
                .workload(w("a1").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("10h").at("10m"))
                .run("kueue");
        // a2 is beyond A's nominal 8 GPUs: it runs on B's idle quota
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "10m start a2 on n2:8",
                "10h complete a1",
                "10h10m complete a2");
    }

    @Test
    void theLenderReclaimsItsQuotaByPreemptingTheBorrowersMostRecentlyAdmittedWorkload() {
        Run run = aAndB()
                .workload(w("a1").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("10h").checkpointEvery("30m").at("10m"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("1h"))
                .runWithReasons("kueue");
        // B stays within its nominal quota with b1: it may take back what A borrows, newest admission first; a2 keeps
        // its last checkpoint (30m of 50m) and resumes when B is done
        assertThat(run.story()).filteredOn(l -> !l.contains(" submit ")).extracting(l -> l.replaceAll(" \\(.*", ""))
                .containsExactly(
                        "0s start a1 on n1:8",
                        "10m start a2 on n2:8",
                        "1h preempt a2 by b1 fair_share requeued lost=20m",
                        "1h start b1 on n2:8",
                        "2h complete b1",
                        "2h start a2 on n2:8",
                        "10h complete a1",
                        "11h30m complete a2");
        assertThat(run.about("a2")).filteredOn(l -> l.contains(" preempt ")).singleElement().asString().contains(
                "Kueue InCohortReclamation: B stays within its nominal quota (8 GPUs)",
                "A borrows (using 16 of 8)");
    }

    @Test
    void thereIsNoMinimumRuntimeAWorkloadMayBePreemptedSecondsAfterItStarted() {
        ScenarioBuilder s = aAndB()
                .workload(w("a1").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("10h").minRuntime("15m").at("5s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("10s"));
        Run kueue = s.run("kueue");
        // Kueue requeues the evicted workload; a2 cannot resume, so it starts over once b1 is done
        assertThat(kueue.story()).contains("10s preempt a2 by b1 fair_share requeued lost=5s", "10s start b1 on n2:8",
                "1h10s start a2 on n2:8", "11h10s complete a2");
        // under Allot's policy every workload keeps its 15 minutes: b1 waits until a1's are over
        Run allocation = s.run("allocation");
        assertThat(allocation.story()).contains("15m preempt a1 by b1 fair_share ended lost=15m", "15m start b1 on n1:8");
    }
}
