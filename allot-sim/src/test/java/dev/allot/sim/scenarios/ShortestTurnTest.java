package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/**
 * The shortest turn ({@code allocation.min-turn}, 1h by default): an allocation that is not owed takes another
 * allocation's work that was preempted before only once that work's current run has lasted the shortest turn,
 * whatever its minimum runtime; work taken for the first time, and whatever an owed allocation reclaims, go as soon
 * as protection ends. Without it, short minimum runtimes let bursting allocations whose ranks on the window cross
 * take the same work from each other every few minutes (docs/policy.md, "The shortest turn").
 */
class ShortestTurnTest {

    /**
     * Two 8-GPU nodes shared A 25 / B 25 / C 50 (quotas 4, 4 and 8 GPUs). A runs a1 (8 GPUs, protected 8 hours) and
     * a2 (4 GPUs, protected 10 minutes, checkpoints every 30 minutes): 3 x its quota. B holds its quota with b0 (4
     * GPUs, protected 10 minutes). At 20m C, owed, reclaims a2 for c1 (30 minutes); a2 starts again at 50m.
     */
    private static ScenarioBuilder aTakenOnceRunsAgain(ScenarioBuilder b) {
        return b.nodes(2, 8)
                .allocations(t -> t.leaf("A", 25).leaf("B", 25).leaf("C", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("8h").checkpointEvery("30m").at("0s"))
                .workload(w("a2").in("A").gpus(4).runs("10h").minRuntime("10m").checkpointEvery("30m").at("0s"))
                .workload(w("b0").in("B").gpus(4).runs("10h").minRuntime("10m").at("0s"))
                .workload(w("c1").in("C").gpus(4).runs("30m").minRuntime("10m").at("20m"));
    }

    private static final String[] FIRST_HOUR = {
        "0s start a1 on n1:8",
        "0s start b0 on n2:4",
        "0s start a2 on n2:4",
        "20m preempt a2 by c1 fair_share requeued lost=20m",
        "20m start c1 on n2:4",
        "50m complete c1",
        "50m start a2 on n2:4"};

    @Test
    void aBurstingTeamWaitsUntilWorkPreemptedBeforeHasRunTheShortestTurn() {
        // when B, at its quota and so bursting, submits b1 (4 GPUs, protected 10 minutes) at 1h: B would stand at 2
        // against A's 3 and has used less over the window, so it may take its turn from A
        Run run = aTakenOnceRunsAgain(given())
                .workload(w("b1").in("B").gpus(4).runs("1h").minRuntime("10m").at("1h"))
                .run("allocation");
        // then b1 does not take a2 when a2's 10 minutes of protection end at 1h: a2 was preempted before, so it runs
        // the shortest turn (1 hour) first, to its checkpoint at 1h50m; nothing more is lost
        assertThat(run.story()).startsWith(FIRST_HOUR).containsSequence(
                "1h50m preempt a2 by b1 fair_share requeued lost=0s",
                "1h50m start b1 on n2:4",
                "2h50m complete b1",
                "2h50m start a2 on n2:4");
    }

    @Test
    void withoutAShortestTurnTheSameWorkIsTakenAgainAsSoonAsProtectionEnds() {
        // when the same b1 arrives with min-turn=0
        Run run = aTakenOnceRunsAgain(given().set("allocation.min-turn", "0"))
                .workload(w("b1").in("B").gpus(4).runs("1h").minRuntime("10m").at("1h"))
                .run("allocation");
        // then b1 takes a2 at 1h, ten minutes after it started again, and a2 loses those ten minutes too
        assertThat(run.story()).startsWith(FIRST_HOUR).containsSequence(
                "1h preempt a2 by b1 fair_share requeued lost=10m",
                "1h start b1 on n2:4",
                "2h complete b1",
                "2h start a2 on n2:4");
    }

    @Test
    void workTakenForTheFirstTimeGoesAsSoonAsProtectionEnds() {
        // when B submits b1 at 15m, before C's reclaim: a2 has never been preempted
        Run run = aTakenOnceRunsAgain(given())
                .workload(w("b1").in("B").gpus(4).runs("1h").minRuntime("10m").at("15m"))
                .run("allocation");
        // then b1 takes a2 at once (its protection ended at 10m): the shortest turn holds back only work taken before
        assertThat(run.story()).startsWith(
                "0s start a1 on n1:8",
                "0s start b0 on n2:4",
                "0s start a2 on n2:4",
                "15m preempt a2 by b1 fair_share requeued lost=15m",
                "15m start b1 on n2:4");
    }

    @Test
    void anOwedTeamIsNotHeldBackByTheShortestTurn() {
        // when C, owed again once c1 is done, submits c2 (4 GPUs) at 55m
        Run run = aTakenOnceRunsAgain(given())
                .workload(w("c2").in("C").gpus(4).runs("1h").minRuntime("10m").at("55m"))
                .run("allocation");
        // then c2 reclaims a2 as soon as its protection ends at 1h, though a2 was preempted before: what is owed is
        // paid at once
        assertThat(run.story()).startsWith(FIRST_HOUR).containsSequence(
                "1h preempt a2 by c2 fair_share requeued lost=10m",
                "1h start c2 on n2:4");
    }
}
