package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/**
 * {@code allocation.placement=protection} (the default): small protected work goes to the node it pins least, so
 * protections gather on few nodes and a gang finds whole nodes; {@code best-fit} scatters them.
 */
class ProtectionPackingTest {

    /**
     * Given three 8-GPU nodes shared 50/50 by A and B; A's i1 (1 GPU, protected 6h) and unallocated u1 (7 GPUs)
     * fill n1 at 0s, unallocated u2 and u3 (8 GPUs each, not resumable) fill n2 and n3 at 5m; at 10m A submits i2
     * (1 GPU, protected 1h, runs 2h), which must preempt unallocated work; at 20m B submits a gang of two whole
     * nodes. (u2 has run least, so it loses least: the ordinary search would take it and put i2 on n2.)
     */
    private static ScenarioBuilder scenario() {
        return given().nodes(3, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("i1").in("A").gpus(1).runs("10h").minRuntime("6h").at("0s"))
                .workload(w("u1").in("A").gpus(7).runs("10h").unallocated().at("0s"))
                .workload(w("u2").in("A").gpus(8).runs("10h").unallocated().at("5m"))
                .workload(w("u3").in("A").gpus(8).runs("10h").unallocated().at("5m"))
                .workload(w("i2").in("A").gpus(1).runs("2h").minRuntime("1h").at("10m"))
                .workload(w("g").in("B").gang(16, 8).runs("1h").minRuntime("1h").at("20m"));
    }

    @Test
    void givenAProtectedNodeTheSmallJobJoinsItAndTheGangStartsAtOnce() {
        Run run = scenario().run("allocation");
        // then i2 preempts u1 on n1, which i1 pins for 6h anyway (cost 0 + u1's 10 minutes of work), rather than
        // u2 on n2 (8 GPUs pinned for 1h); so n2 and n3 hold only unallocated work, and the gang takes them at 20m
        assertThat(run.about("i2")).first().asString().contains("preempt u1 by i2");
        assertThat(run.about("i2")).contains("10m start i2 on n1:1");
        assertThat(run.about("g")).contains("20m start g on n2:8,n3:8");
    }

    @Test
    void withBestFitTheSmallJobPinsAFreshNodeAndTheGangWaitsForIt() {
        Run run = scenario().set("allocation.placement", "best-fit").run("allocation");
        // then i2 preempts u2 and lands on n2; n1 (i1) and n2 (i2) are both protected, and B may not reclaim A's
        // work (A holds 2 GPUs, under its quota of 12): the gang waits until the starvation limit (1h) lets it take
        // i2, which cannot resume and throws away 1h10m of work
        assertThat(run.about("i2")).contains("10m start i2 on n2:1");
        assertThat(run.about("g")).containsSubsequence(
                "1h20m preempt i2 by g fair_share ended lost=1h10m",
                "1h20m start g on n2:8,n3:8");
    }
}
