package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/**
 * The burst reserve ({@code allocation.burst-reserve}, issue 15): protected work whose start would take its
 * allocation beyond its quota does not pin GPUs another allocation is entitled to while unallocated work could hold
 * them instead, so the entitled allocation is paid the moment its work arrives; but the reserve never leaves a GPU
 * idle, and short protections (debug work) are exempt.
 */
class BurstReserveTest {

    /** Two 8-GPU nodes shared 50/50 (quota 8 GPUs each); A runs its quota and wants 8 GPUs more, protected for 4h. */
    private static ScenarioBuilder bursting() {
        return given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("6h").minRuntime("4h").checkpointEvery("1h").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("6h").minRuntime("4h").checkpointEvery("1h").at("0s"));
    }

    private static ScenarioBuilder withSweepsAndB(ScenarioBuilder b) {
        return b.workload(w("u1").in("B").gpus(4).runs("2h").unallocated().checkpointEvery("15m").at("0s"))
                .workload(w("u2").in("B").gpus(4).runs("2h").unallocated().checkpointEvery("15m").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("2h").minRuntime("1h").at("1h"));
    }

    @Test
    void aTeamsBurstWaitsWhileFreeWorkCanHoldTheGpusAnotherTeamIsEntitledTo() {
        // given A at its quota and B idle, with unallocated sweeps waiting
        Run run = withSweepsAndB(bursting()).run("allocation");
        // then A's second job, which would stand beyond A's quota protected for 4h on B's GPUs, waits; the sweeps
        // run there, and when B's work arrives at 1h it takes them at once: B is paid from its first minute.
        // When B's job ends the sweeps have B's GPUs again, and A's job starts on the GPUs they leave idle
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "0s start u1 on n2:4",
                "0s start u2 on n2:4",
                "1h preempt u1 by b1 unallocated requeued lost=0s",
                "1h preempt u2 by b1 unallocated requeued lost=0s",
                "1h start b1 on n2:8",
                "3h complete b1",
                "3h start u1 on n2:4",
                "3h start u2 on n2:4",
                "4h complete u1",
                "4h complete u2",
                "4h start a2 on n2:8",
                "6h complete a1",
                "10h complete a2");
    }

    @Test
    void withoutTheReserveBWaitsForTheBurstsProtection() {
        // given the same, with burst-reserve=0 (the rule before issue 15's reserve)
        Run run = withSweepsAndB(bursting().set("allocation.burst-reserve", "0")).run("allocation");
        // then A's burst starts at once, protected until 4h, and B, owed its whole quota from 1h, waits until 4h
        assertThat(run.about("a2")).first().isEqualTo("0s start a2 on n2:8");
        assertThat(run.about("b1")).containsExactly(
                "4h preempt a1 by b1 fair_share requeued lost=0s",
                "4h start b1 on n1:8",
                "6h complete b1");
    }

    @Test
    void theReserveNeverLeavesAGpuIdle() {
        // given A at its quota and B idle, and no unallocated work to hold B's GPUs
        Run run = bursting().run("allocation");
        // then A's burst starts at once on the idle GPUs
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "0s start a2 on n2:8",
                "6h complete a1",
                "6h complete a2");
    }

    @Test
    void shortProtectionsAreExempt() {
        // given A at its quota, a sweep on B's GPUs, and A's 6-GPU debug job protected for 15 minutes
        // then the debug job preempts the sweep at once though it stands A beyond its quota (protection up to
        // burst-short-protection, 30m, is exempt)
        assertThat(debugOnSweeps(bursting()).about("dbg")).containsExactly(
                "10m preempt u1 by dbg unallocated requeued lost=10m",
                "10m start dbg on n2:6",
                "20m complete dbg");
        // and without the exemption it would be held back like A's 4h burst, which then goes first on the GPUs the
        // sweep leaves idle at 2h: the debug job would wait until a1 ends at 6h
        assertThat(debugOnSweeps(bursting().set("allocation.burst-short-protection", "0s")).about("dbg"))
                .first().isEqualTo("6h start dbg on n1:6");
    }

    private static Run debugOnSweeps(ScenarioBuilder b) {
        return b.workload(w("u1").in("B").gpus(8).runs("2h").unallocated().checkpointEvery("15m").at("0s"))
                .workload(w("dbg").in("A").gpus(6).runs("10m").minRuntime("15m").at("10m"))
                .run("allocation");
    }
}
