package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** The slurm model's EASY backfill: the first blocked job gets a reservation that later jobs may not delay. */
class SlurmBackfillTest {

    /**
     * Two 8-GPU nodes: r1 holds n1 until 4h, r2 half of n2 until 2h. big (both nodes) is blocked at 10m and gets a
     * reservation of n1 and n2 at 4h, when r1's time limit runs out. long (4 GPUs for 5h, 15m) would fit on n2 now
     * but would still hold it at 4h; short (4 GPUs for 1h, 20m) ends long before.
     */
    private static ScenarioBuilder reservationScenario() {
        return given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("r1").in("A").gpus(8).runs("4h").at("0s"))
                .workload(w("r2").in("A").gpus(4).runs("2h").at("0s"))
                .workload(w("big").in("B").gang(16, 8).runs("1h").at("10m"))
                .workload(w("long").in("B").gpus(4).runs("5h").at("15m"))
                .workload(w("short").in("B").gpus(4).runs("1h").at("20m"));
    }

    @Test
    void aJobThatEndsBeforeTheReservationBackfillsAndOneThatWouldDelayItWaits() {
        Run run = reservationScenario().run("slurm");
        assertThat(run.story()).containsExactly(
                "0s start r1 on n1:8",
                "0s start r2 on n2:4",
                "20m start short on n2:4",
                "1h20m complete short",
                "2h complete r2",
                "4h complete r1",
                "4h start big on n1:8,n2:8",
                "5h complete big",
                "5h start long on n1:4",
                "10h complete long");
        assertThat(run.workload("big").firstStartSeconds()).isEqualTo(4 * 3600); // not delayed by anyone
    }

    @Test
    void backfillPlansWithTimeLimitsNotWithTrueDurations() {
        // with time limits at twice the durations, r1 is expected to hold n1 until 8h and short to end at 2h20m:
        // still before the reservation, so it backfills; long (limit 10h) still may not
        Run run = reservationScenario().set("slurm.time-limit-factor", "2").run("slurm");
        assertThat(run.story()).filteredOn(l -> l.contains(" start ")).containsExactly(
                "0s start r1 on n1:8",
                "0s start r2 on n2:4",
                "20m start short on n2:4",
                "4h start big on n1:8,n2:8",
                "5h start long on n1:4");
    }

    @Test
    void timeLimitsAreWholeMinutesAsInSlurm() {
        // r1 and r2 run 40 s but their limits are a minute (Slurm has no finer limit), so big's reservation of both
        // nodes is due at 1m, not 40s; short (25 s from 10s) would end by 40s but its one-minute limit ends at 1m10s,
        // after the reservation: it may not backfill on big's nodes, and waits for big
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("r1").in("A").gpus(8).runs("40s").at("0s"))
                .workload(w("r2").in("A").gpus(4).runs("40s").at("0s"))
                .workload(w("big").in("B").gang(16, 8).runs("1m").at("5s"))
                .workload(w("short").in("B").gpus(4).runs("25s").at("10s"))
                .run("slurm");
        assertThat(run.workload("big").firstStartSeconds()).isEqualTo(40);
        assertThat(run.workload("short").firstStartSeconds()).isEqualTo(100);
    }

    @Test
    void workMayUseNodesTheReservationDoesNotNeed() {
        // three nodes: n1 busy until 4h, n2 mostly busy until 2h, n3 half busy until 6h. big's reservation is n2
        // and n1, due at 4h; long starts at once on n3's idle half, though it runs far past 4h: big will not need n3
        Run run = given().nodes(3, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("r1").in("A").gpus(8).runs("4h").at("0s"))
                .workload(w("r2").in("A").gpus(6).runs("2h").at("0s"))
                .workload(w("r3").in("A").gpus(4).runs("6h").at("0s"))
                .workload(w("big").in("B").gang(16, 8).runs("1h").at("10m"))
                .workload(w("long").in("B").gpus(4).runs("5h").at("15m"))
                .run("slurm");
        assertThat(run.story()).filteredOn(l -> l.contains(" start ")).containsExactly(
                "0s start r1 on n1:8",
                "0s start r2 on n2:6",
                "0s start r3 on n3:4",
                "15m start long on n3:4",
                "4h start big on n1:8,n2:8");
    }

    @Test
    void withBackfillOffNothingJumpsTheBlockedJob() {
        Run run = reservationScenario().set("slurm.backfill-max-jobs", "0").run("slurm");
        assertThat(run.story()).filteredOn(l -> l.contains(" start ")).containsExactly(
                "0s start r1 on n1:8",
                "0s start r2 on n2:4",
                "4h start big on n1:8,n2:8",
                "5h start long on n1:4",
                "5h start short on n1:4");
    }
}
