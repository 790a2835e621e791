package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/**
 * Preemption in the slurm model: unallocated work runs in a preemptible QOS (PreemptMode=REQUEUE), allocated work
 * in a protected QOS that may preempt it and is never preempted; PreemptExemptTime and GraceTime. The simulator
 * checks after every event that no job the policy calls protected is preempted.
 */
class SlurmPreemptionTest {

    /** One node: u1 runs unallocated from 0s, a1 (allocated, another allocation) arrives at 1h. */
    private static ScenarioBuilder scavengerThenAllocated(ScenarioBuilder.W u1) {
        return given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(u1.in("A").gpus(8).runs("10h").unallocated().at("0s"))
                .workload(w("a1").in("B").gpus(8).runs("1h").at("1h"));
    }

    @Test
    void unallocatedWorkIsPreemptedAndRequeuedAndGoesBackInLine() {
        Run run = scavengerThenAllocated(w("u1").resumable()).run("slurm");
        assertThat(run.story()).containsExactly(
                "0s start u1 on n1:8",
                "1h preempt u1 by a1 unallocated requeued lost=0s",
                "1h start a1 on n1:8",
                "2h complete a1",
                "2h start u1 on n1:8",
                "11h complete u1");
    }

    @Test
    void unallocatedWorkThatCannotResumeIsRequeuedAndStartsOver() {
        // PreemptMode=REQUEUE requeues every preempted job; one that cannot resume loses its hour and runs its
        // whole 10 hours again
        Run run = scavengerThenAllocated(w("u1")).run("slurm");
        assertThat(run.story()).containsExactly(
                "0s start u1 on n1:8",
                "1h preempt u1 by a1 unallocated requeued lost=1h",
                "1h start a1 on n1:8",
                "2h complete a1",
                "2h start u1 on n1:8",
                "12h complete u1");
        assertThat(run.workload("u1").finalState()).isEqualTo("completed");
    }

    @Test
    void preemptExemptTimeKeepsAYoungVictimRunningUntilItHasRunThatLong() {
        // a1 arrives at 10m; u1 may not be preempted before it has run 30m: the policy wakes itself at 30m
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("u1").in("A").gpus(8).runs("10h").unallocated().resumable().at("0s"))
                .workload(w("a1").in("B").gpus(8).runs("1h").at("10m"))
                .set("slurm.preempt-exempt-time", "30m")
                .run("slurm");
        assertThat(run.story()).startsWith(
                "0s start u1 on n1:8",
                "30m preempt u1 by a1 unallocated requeued lost=0s",
                "30m start a1 on n1:8",
                "1h30m complete a1",
                "1h30m start u1 on n1:8");
    }

    @Test
    void graceTimeLetsTheVictimRunOnWhileThePreemptorWaitsExactlyThatLong() {
        // u1 checkpoints every 30m; chosen at 1h, it keeps its GPUs 5 minutes and loses the 5 minutes since its
        // checkpoint at 1h: 9h of work are left when it resumes
        Run run = scavengerThenAllocated(w("u1").checkpointEvery("30m"))
                .set("slurm.grace-time", "5m")
                .run("slurm");
        assertThat(run.story()).containsExactly(
                "0s start u1 on n1:8",
                "1h5m preempt u1 by a1 unallocated requeued lost=5m",
                "1h5m start a1 on n1:8",
                "2h5m complete a1",
                "2h5m start u1 on n1:8",
                "11h5m complete u1");
    }

    @Test
    void aVictimInGraceIsNotChosenAgainAndItsPreemptorChoosesNoMore() {
        // two scavengers on two nodes; a1 needs one node and signals the younger victim u2 (same priority, the
        // youngest goes first); a2, arriving during u2's grace time, signals u1 rather than u2 again, and a1,
        // waiting for u2, does not hold u1 against it
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("u1").in("A").gpus(8).runs("10h").unallocated().resumable().at("0s"))
                .workload(w("u2").in("A").gpus(8).runs("10h").unallocated().resumable().at("1m"))
                .workload(w("a1").in("B").gpus(8).runs("1h").at("1h"))
                .workload(w("a2").in("B").gpus(8).runs("1h").at("1h2m"))
                .set("slurm.grace-time", "10m")
                .run("slurm");
        assertThat(run.story()).startsWith(
                "0s start u1 on n1:8",
                "1m start u2 on n2:8",
                "1h10m preempt u2 by a1 unallocated requeued lost=0s",
                "1h10m start a1 on n2:8",
                "1h12m preempt u1 by a2 unallocated requeued lost=0s",
                "1h12m start a2 on n1:8");
    }

    @Test
    void protectedWorkIsNeverPreemptedWhatever() {
        // B has used nothing and asks urgently: A's allocated job still runs to its end
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a0").in("A").gpus(8).runs("10h").minRuntime("1m").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").priority(Priority.URGENT).at("1h"))
                .run("slurm");
        assertThat(run.story()).containsExactly(
                "0s start a0 on n1:8",
                "10h complete a0",
                "10h start b1 on n1:8",
                "11h complete b1");
    }

    @Test
    void unallocatedWorkNeverPreemptsAnything() {
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("u1").in("A").gpus(8).runs("10h").unallocated().at("0s"))
                .workload(w("u2").in("B").gpus(8).runs("1h").unallocated().at("1h"))
                .run("slurm");
        assertThat(run.story()).containsExactly(
                "0s start u1 on n1:8",
                "10h complete u1",
                "10h start u2 on n1:8",
                "11h complete u2");
    }
}
