package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** The slurm model's multifactor priority: Fair Tree over decayed usage, age, QOS. */
class SlurmPriorityTest {

    private static java.util.List<String> starts(Run run) {
        return run.story().stream().filter(l -> l.contains(" start ")).toList();
    }

    @Test
    void theAllocationThatUsedLessGoesFirstWhateverWasSubmittedFirst() {
        // A runs the only node for 10 hours; then A's and B's jobs both wait, A's submitted first
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a0").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("a1").in("A").gpus(8).runs("1h").at("1h"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("2h"))
                .run("slurm");
        // at 10h, Fair Tree ranks B (no usage: Level FS infinite) above A: b1 has fair-share factor 2/2, a1 1/2
        assertThat(run.story()).containsExactly(
                "0s start a0 on n1:8",
                "10h complete a0",
                "10h start b1 on n1:8",
                "11h complete b1",
                "11h start a1 on n1:8",
                "12h complete a1");
    }

    @Test
    void theFairShareOrderFollowsTheTreeLevelByLevel() {
        // nlp as a whole used more than vision, although nlp-eval used nothing: Fair Tree ranks vision first
        Run run = given().nodes(1, 8)
                .allocations(t -> t.child("nlp", 50).leaf("nlp-train", 1).leaf("nlp-eval", 1).up()
                        .child("vision", 50).leaf("vision-video", 1).up())
                .workload(w("train").in("nlp-train").gpus(6).runs("10h").at("0s"))
                .workload(w("video").in("vision-video").gpus(2).runs("10h").at("0s"))
                .workload(w("eval1").in("nlp-eval").gpus(8).runs("1h").at("1h"))
                .workload(w("video1").in("vision-video").gpus(8).runs("1h").at("2h"))
                .run("slurm");
        assertThat(starts(run)).containsExactly(
                "0s start train on n1:6",
                "0s start video on n1:2",
                "10h start video1 on n1:8",
                "11h start eval1 on n1:8");
    }

    private static ScenarioBuilder longWaitAgainstNewcomer() {
        // a0 holds the node for 20h; a1 (same allocation) waits from 1h; b1, of the less used allocation, from 19h
        return given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a0").in("A").gpus(8).runs("20h").at("0s"))
                .workload(w("a1").in("A").gpus(8).runs("1h").at("1h"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("19h"));
    }

    @Test
    void withDefaultWeightsFairShareOutweighsNineteenHoursOfWaiting() {
        // at 20h: a1 = 10000 x 1/2 + 1000 x 19h/7d (113) + QOS; b1 = 10000 x 2/2 + 1000 x 1h/7d (5) + QOS
        Run run = longWaitAgainstNewcomer().run("slurm");
        assertThat(starts(run)).containsExactly(
                "0s start a0 on n1:8",
                "20h start b1 on n1:8",
                "21h start a1 on n1:8");
    }

    @Test
    void ageRaisesALongWaitingJobAboveTheFairShareDifference() {
        // PriorityWeightAge 10000 and PriorityMaxAge 1 day: a1 = 5000 + 10000 x 19/24 (7916); b1 = 10000 + 416
        Run run = longWaitAgainstNewcomer()
                .set("slurm.weight-age", "10000")
                .set("slurm.max-age", "1d")
                .run("slurm");
        assertThat(starts(run)).containsExactly(
                "0s start a0 on n1:8",
                "20h start a1 on n1:8",
                "21h start b1 on n1:8");
    }

    @Test
    void fairShareIsOnlyRecalculatedEveryCalcPeriod() {
        // the first scenario again, with PriorityCalcPeriod 1 day: at 10h the ranks and ages are still those of the
        // recalculation at 0s (no usage, no age: all equal), so the jobs go by submission time
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a0").in("A").gpus(8).runs("10h").at("0s"))
                .workload(w("a1").in("A").gpus(8).runs("1h").at("1h"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("2h"))
                .set("slurm.calc-period", "1d")
                .run("slurm");
        assertThat(starts(run)).containsExactly(
                "0s start a0 on n1:8",
                "10h start a1 on n1:8",
                "11h start b1 on n1:8");
    }

    @Test
    void unallocatedWorkWaitsBehindAllocatedWorkWhateverTheirPriorities() {
        // Slurm evaluates jobs that can preempt first: B's allocated job goes before A's unallocated one even with
        // the QOS weight at 0 and B over-served
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("b0").in("B").gpus(8).runs("5h").at("0s"))
                .workload(w("u1").in("A").gpus(8).runs("1h").unallocated().at("1h"))
                .workload(w("b1").in("B").gpus(8).runs("1h").at("2h"))
                .set("slurm.weight-qos", "0")
                .run("slurm");
        assertThat(starts(run)).containsExactly(
                "0s start b0 on n1:8",
                "5h start b1 on n1:8",
                "6h start u1 on n1:8");
    }
}
