package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Idle GPUs are shared among allocations' unallocated work by entitlement (issue 15: one allocation's sweep, first in
 * serving order, took every idle GPU and the others' sweeps waited for its jobs to end). Unallocated work never
 * preempts, so the split is made as GPUs are handed out, not by taking any back.
 */
class UnallocatedSharesTest {

    private static List<ScenarioBuilder.W> sweep(String allocation, int jobs) {
        List<ScenarioBuilder.W> ws = new ArrayList<>();
        for (int i = 1; i <= jobs; i++) {
            ws.add(w(allocation.toLowerCase() + "-u" + i).in(allocation).gpus(1).runs("5h").unallocated().resumable()
                    .at("0s"));
        }
        return ws;
    }

    private static long startedAtZero(Run run, String prefix) {
        return run.story().stream().filter(l -> l.startsWith("0s start " + prefix)).count();
    }

    @Test
    void givenTwoEqualTeamsWhoseSweepsEachWantTheWholeNode_thenEachGetsHalfOfIt() {
        // given 1 node of 8 GPUs, A and B entitled to half each, each submitting eight 1-GPU sweep jobs at once
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workloads(sweep("A", 8)).workloads(sweep("B", 8))
                .run("allocation");
        // then A, first in serving order, no longer takes all 8: four each, in turn
        assertThat(startedAtZero(run, "a-")).isEqualTo(4);
        assertThat(startedAtZero(run, "b-")).isEqualTo(4);
        assertThat(run.story()).startsWith("0s start a-u1 on n1:1", "0s start b-u1 on n1:1", "0s start a-u2 on n1:1",
                "0s start b-u2 on n1:1");
    }

    @Test
    void givenATeamEntitledToThreeQuarters_thenItsSweepGetsThreeQuartersOfTheIdleGpus() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 25).leaf("B", 75))
                .workloads(sweep("A", 8)).workloads(sweep("B", 8))
                .run("allocation");
        assertThat(startedAtZero(run, "a-")).isEqualTo(2);
        assertThat(startedAtZero(run, "b-")).isEqualTo(6);
    }

    @Test
    void givenATeamThatWantsLessThanItsShare_thenTheOtherTakesTheRestAndNoGpuIsLeftIdle() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workloads(sweep("A", 8)).workloads(sweep("B", 2))
                .run("allocation");
        assertThat(startedAtZero(run, "a-")).isEqualTo(6);
        assertThat(startedAtZero(run, "b-")).isEqualTo(2);
    }

    @Test
    void givenATeamWhoseSweepAlreadyHoldsTheNode_thenNothingIsTakenBackButFreedGpusGoToTheOtherTeam() {
        // given A's sweep fills the node at 0s (B has nothing yet); B's sweep arrives at 1h; A's first jobs end at 2h
        List<ScenarioBuilder.W> a = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            a.add(w("a-u" + i).in("A").gpus(1).runs(i <= 4 ? "2h" : "10h").unallocated().resumable().at("0s"));
        }
        for (int i = 9; i <= 12; i++) { // more of A's sweep waits
            a.add(w("a-u" + i).in("A").gpus(1).runs("10h").unallocated().resumable().at("0s"));
        }
        List<ScenarioBuilder.W> b = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            b.add(w("b-u" + i).in("B").gpus(1).runs("10h").unallocated().resumable().at("1h"));
        }
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workloads(a).workloads(b)
                .run("allocation");
        // then at 1h nothing is preempted (unallocated work never preempts); at 2h the four GPUs A's jobs free go to B,
        // which holds none, not to A's own waiting jobs
        assertThat(run.story()).noneMatch(l -> l.contains("preempt"));
        assertThat(run.story().stream().filter(l -> l.startsWith("2h start")).toList())
                .containsExactly("2h start b-u1 on n1:1", "2h start b-u2 on n1:1", "2h start b-u3 on n1:1",
                        "2h start b-u4 on n1:1");
    }
}
