package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/**
 * The shortest turn ({@code allocation.min-turn}, 1h by default): an allocation that is not owed takes another
 * allocation's work only once that work's run has lasted the shortest turn, whatever its minimum runtime; an owed
 * allocation reclaims as soon as protection ends. Without it, short minimum runtimes let bursting allocations whose
 * ranks on the window cross take each other's work every few minutes (docs/policy.md, "The shortest turn").
 */
class ShortestTurnTest {

    /**
     * Two 8-GPU nodes shared A 25 / B 25 / C 50 (quotas 4, 4 and 8 GPUs). A runs a1 (8 GPUs) and a2 (4 GPUs), both
     * protected 10 minutes: 12 GPUs, 3 x its quota. B holds its quota with b0 (4 GPUs, protected 10 minutes). C runs
     * nothing: its quota is room the others burst into.
     */
    private static ScenarioBuilder twoBurstingTeams(ScenarioBuilder b) {
        return b.nodes(2, 8)
                .allocations(t -> t.leaf("A", 25).leaf("B", 25).leaf("C", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("10m").checkpointEvery("30m").at("0s"))
                .workload(w("a2").in("A").gpus(4).runs("10h").minRuntime("10m").checkpointEvery("30m").at("0s"))
                .workload(w("b0").in("B").gpus(4).runs("10h").minRuntime("10m").at("0s"));
    }

    @Test
    void aBurstingTeamWaitsUntilTheOthersRunHasLastedTheShortestTurn() {
        // when B, at its quota and so bursting, submits b1 (4 GPUs, protected 10 minutes) at 20m: B would stand at 2
        // against A's 3, and B has used less over the window, so it may take its turn from A
        Run run = twoBurstingTeams(given())
                .workload(w("b1").in("B").gpus(4).runs("1h").minRuntime("10m").at("20m"))
                .run("allocation");
        // then b1 does not take a2 when a2's 10 minutes of protection are over, but when a2 has run 1 hour (the
        // default shortest turn), right after a2's checkpoint at 1h: nothing is lost
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "0s start b0 on n2:4",
                "0s start a2 on n2:4",
                "1h preempt a2 by b1 fair_share requeued lost=0s",
                "1h start b1 on n2:4",
                "2h complete b1",
                "2h start a2 on n2:4",
                "10h complete a1",
                "10h complete b0",
                "11h complete a2");
    }

    @Test
    void withoutAShortestTurnTheBurstingTeamTakesTheWorkAsSoonAsProtectionEnds() {
        // when the same b1 arrives with min-turn=0
        Run run = twoBurstingTeams(given().set("allocation.min-turn", "0"))
                .workload(w("b1").in("B").gpus(4).runs("1h").minRuntime("10m").at("20m"))
                .run("allocation");
        // then b1 takes a2 at once (its protection ended at 10m), and a2 loses the 20 minutes since it started
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "0s start b0 on n2:4",
                "0s start a2 on n2:4",
                "20m preempt a2 by b1 fair_share requeued lost=20m",
                "20m start b1 on n2:4",
                "1h20m complete b1",
                "1h20m start a2 on n2:4",
                "10h complete a1",
                "10h complete b0",
                "11h20m complete a2");
    }

    @Test
    void anOwedTeamIsNotHeldBackByTheShortestTurn() {
        // when C, owed its whole quota, submits c1 (4 GPUs) at 20m
        Run run = twoBurstingTeams(given())
                .workload(w("c1").in("C").gpus(4).runs("1h").minRuntime("10m").at("20m"))
                .run("allocation");
        // then c1 reclaims a2 at once: A stands at 3 x its quota and keeps more than its quota; what is owed is paid
        // as soon as protection ends
        assertThat(run.story()).containsExactly(
                "0s start a1 on n1:8",
                "0s start b0 on n2:4",
                "0s start a2 on n2:4",
                "20m preempt a2 by c1 fair_share requeued lost=20m",
                "20m start c1 on n2:4",
                "1h20m complete c1",
                "1h20m start a2 on n2:4",
                "10h complete a1",
                "10h complete b0",
                "11h20m complete a2");
    }
}
