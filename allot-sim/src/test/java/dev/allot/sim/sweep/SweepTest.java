package dev.allot.sim.sweep;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SweepTest {
    private static final PolicyRegistry REGISTRY = PolicyRegistry.standard();

    /** A scenario where the cap on minimum runtimes changes when B gets the node. */
    private static Scenario capped() {
        return given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("20h").minRuntime("24h").resumable().at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").kind("debug").at("1h"))
                .scenario();
    }

    private static Map<String, List<String>> grid() {
        Map<String, List<String>> g = new LinkedHashMap<>();
        g.put("max-min-runtime", List.of("2h", "8h"));
        g.put("allocation.reservation", List.of("true", "false"));
        return g;
    }

    @Test
    void theGridIsTheCrossProductWithTheFirstKeySlowest() {
        List<Sweep.Point> points = new Sweep(grid(), List.of("allocation", "legacy"), java.util.Collections.singletonList(null)).points();
        assertThat(points).hasSize(8);
        assertThat(points.get(0).settings()).containsExactly(Map.entry("max-min-runtime", "2h"), Map.entry("allocation.reservation", "true"));
        assertThat(points.get(0).policy()).isEqualTo("allocation");
        assertThat(points.get(1).policy()).isEqualTo("legacy");
        assertThat(points.get(2).settings()).containsEntry("allocation.reservation", "false");
        assertThat(points.get(4).settings()).containsEntry("max-min-runtime", "8h");
    }

    @Test
    void runsInParallelAndReturnsEachResultAtItsPointOfTheGrid() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        AtomicInteger done = new AtomicInteger();
        List<Sweep.Run> runs;
        try {
            runs = new Sweep(grid(), List.of("allocation"), java.util.Collections.singletonList(null))
                    .run(REGISTRY, s -> null, capped(), pool, done::incrementAndGet);
        } finally {
            pool.shutdownNow();
        }
        assertThat(done.get()).isEqualTo(4);
        for (Sweep.Run r : runs) {
            Scenario s = capped().withPolicyConfig(capped().policyConfig()
                    .with("max-min-runtime", r.point().settings().get("max-min-runtime"))
                    .with("allocation.reservation", r.point().settings().get("allocation.reservation")));
            SimulationResult alone = new Simulator(s, REGISTRY, "allocation", Simulator.Options.defaults()).run();
            assertThat(r.result().workloads()).isEqualTo(alone.workloads());
        }
        // the cap decides when b1 starts: at 2h or at 8h
        assertThat(runs.get(0).result().workloads().get(1).firstStartSeconds()).isEqualTo(2 * 3600);
        assertThat(runs.get(2).result().workloads().get(1).firstStartSeconds()).isEqualTo(8 * 3600);
        List<SweepTable.Row> rows = SweepTable.rows(runs);
        String table = SweepTable.render(rows, List.of("max-min-runtime", "allocation.reservation"));
        assertThat(table.lines().toList()).hasSize(5);
        assertThat(table.lines().skip(1).findFirst().orElseThrow()).startsWith("2h").contains("allocation");
    }

    @Test
    void seedsAreAveragedWithTheirSpread() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Sweep.Run> runs;
        try {
            runs = new Sweep(Map.of(), List.of("allocation"), List.of(1L, 2L))
                    .run(REGISTRY, seed -> capped().withPolicyConfig(capped().policyConfig().with("max-min-runtime", seed == 1 ? "2h" : "4h")),
                            null, pool, () -> { });
        } finally {
            pool.shutdownNow();
        }
        List<SweepTable.Row> rows = SweepTable.rows(runs);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).runs()).isEqualTo(2);
        int debugP90 = SweepTable.COLUMNS.stream().map(SweepTable.Column::name).toList().indexOf("wait_p90_debug");
        assertThat(rows.get(0).mean()[debugP90]).isEqualTo(2 * 3600.0); // b1 waited 1h and 3h
        assertThat(rows.get(0).sd()[debugP90]).isCloseTo(Math.sqrt(2) * 3600, org.assertj.core.data.Offset.offset(1.0));
    }

    @Test
    void aColumnSomeSeedsHaveNoValueForSaysOverHowManyItsMeanIs() {
        List<SweepTable.Column> columns = List.of(new SweepTable.Column("x", m -> 0, SweepTable.Kind.PERCENT),
                new SweepTable.Column("y", m -> 0, SweepTable.Kind.PERCENT));
        SweepTable.Row row = new SweepTable.Row(Map.of(), "legacy", 5, columns, new double[] {0.5, 0.979},
                new double[] {0.1, 0}, new int[] {5, 1});
        String line = SweepTable.render(List.of(row), List.of()).lines().skip(1).findFirst().orElseThrow();
        assertThat(line).contains("50.0% ±10.0%").doesNotContain("50.0% ±10.0% (");
        assertThat(line).as("the mean of one seed of five is not the row's").contains("97.9% ±0.0% (1 of 5)");
    }

    @Test
    void writesOneCsvRowPerRun() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            List<Sweep.Run> runs = new Sweep(grid(), List.of("allocation"), java.util.Collections.singletonList(null))
                    .run(REGISTRY, s -> null, capped(), pool, () -> { });
            StringWriter out = new StringWriter();
            SweepTable.writeCsv(runs, List.of("max-min-runtime", "allocation.reservation"), out);
            List<String> lines = out.toString().lines().toList();
            assertThat(lines).hasSize(5);
            assertThat(lines.get(0).replace("\"", "")).startsWith("run,max-min-runtime,allocation.reservation,policy,seed,occupancy");
            assertThat(lines.get(1)).startsWith("1,2h,true,allocation,,");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theCsvHasEachAllocationsPaidFractionAndPreemptions() throws Exception {
        // given the capped scenario with its cap at 2h: a1 (A) runs 0h-2h and is preempted for b1 (B), waiting
        // since 1h; the window is hours 0 and 1 (b1 is the last submission): A is owed 4 GPU-hours each hour and
        // receives 8, B is owed 4 in hour 1 and receives nothing
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            List<Sweep.Run> runs = new Sweep(Map.of("max-min-runtime", List.of("2h")), List.of("allocation"),
                    java.util.Collections.singletonList(null)).run(REGISTRY, s -> null, capped(), pool, () -> { });
            StringWriter out = new StringWriter();
            SweepTable.writeCsv(runs, List.of("max-min-runtime"), out);
            List<String> lines = out.toString().lines().toList();
            assertThat(lines).hasSize(2);
            List<String> head = List.of(lines.get(0).replace("\"", "").split(",", -1));
            List<String> row = List.of(lines.get(1).split(",", -1));
            assertThat(head).hasSameSizeAs(row);
            // then the headline columns include the periods' paid fractions, and the allocations follow in tree order
            assertThat(head).containsSubsequence("paid", "paid_daily", "paid_window", "worst_paid");
            assertThat(head.subList(head.size() - 4, head.size()))
                    .containsExactly("paid:lab/A", "paid:lab/B", "preemptions:lab/A", "preemptions:lab/B");
            assertThat(row.subList(row.size() - 4, row.size())).containsExactly("1.0000", "0.0000", "1", "0");
            assertThat(row.get(head.indexOf("paid"))).isEqualTo("0.6667"); // 8 of 12
            assertThat(row.get(head.indexOf("preemptions"))).isEqualTo("1");
            // a1 resumes from where it stopped (it checkpoints continuously): none of the work delivered was lost
            assertThat(head).containsSubsequence("lost_gpu_hours", "lost_share");
            assertThat(row.get(head.indexOf("lost_share"))).isEqualTo("0.0000");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void smallSharesPrintWithTwoDecimalsLikeTheThresholdsTheyMeet() {
        // lost / delivered is compared with 1% and 2%: one decimal would print 1.04% as 1.0%
        assertThat(SweepTable.format(SweepTable.Kind.SMALL_PERCENT, 0.0104)).isEqualTo("1.04%");
        assertThat(SweepTable.format(SweepTable.Kind.PERCENT, 0.0104)).isEqualTo("1.0%");
        assertThat(SweepTable.COLUMNS.stream().filter(c -> c.name().equals("lost_share")).findFirst().orElseThrow().kind())
                .isEqualTo(SweepTable.Kind.SMALL_PERCENT);
    }

    @Test
    void badSettingsFailBeforeAnythingRuns() {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            assertThatThrownBy(() -> new Sweep(Map.of("allocation.nope", List.of("1")), List.of("allocation"),
                    java.util.Collections.singletonList(null)).run(REGISTRY, s -> null, capped(), pool, () -> { }))
                    .hasMessageContaining("unknown setting 'nope'");
            assertThatThrownBy(() -> new Sweep(Map.of("lookback", List.of("soon")), List.of("allocation"),
                    java.util.Collections.singletonList(null)).run(REGISTRY, s -> null, capped(), pool, () -> { }))
                    .hasMessageStartingWith("setting 'lookback': malformed duration 'soon'");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void checkFindsABadValueAnywhereInTheGridAndAnUnknownPolicyWithoutAScenario() {
        java.util.List<Long> fixed = java.util.Collections.singletonList(null);
        Map<String, List<String>> grid = new java.util.LinkedHashMap<>();
        grid.put("max-min-runtime", List.of("2h", "8h"));
        grid.put("lookback", List.of("1d", "3d", "soon"));
        assertThatThrownBy(() -> new Sweep(grid, List.of("allocation"), fixed).check(REGISTRY, PolicyConfig.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("setting 'lookback': malformed duration 'soon'");
        assertThatThrownBy(() -> new Sweep(Map.of(), List.of("allocation", "nope"), fixed)
                .check(REGISTRY, PolicyConfig.defaults()))
                .hasMessageContaining("unknown policy 'nope'");
        new Sweep(Map.of("lookback", List.of("1d", "3d")), List.of("allocation", "legacy"), fixed)
                .check(REGISTRY, PolicyConfig.defaults());
    }

    @Test
    void anErrorInARunReachesTheCallerAsItselfNotWrapped() {
        // a run out of memory reached the user as 'unexpected IllegalStateException: run 1 failed'
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            assertThatThrownBy(() -> new Sweep(grid(), List.of("allocation"), java.util.Collections.singletonList(null))
                    .run(REGISTRY, s -> null, capped(), pool, () -> {
                        throw new OutOfMemoryError("Java heap space");
                    }))
                    .isInstanceOf(OutOfMemoryError.class).hasMessage("Java heap space");
        } finally {
            pool.shutdownNow();
        }
    }
}
