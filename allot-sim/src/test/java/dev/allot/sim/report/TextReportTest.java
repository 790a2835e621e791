package dev.allot.sim.report;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The terminal report's side-by-side summary: columns stay apart whatever their cells hold. */
class TextReportTest {

    /**
     * One GPU and four workloads submitted together, each waiting for the ones before it under legacy (none is
     * preemptible there): waits 0, 13d19h, 31d18h and 68d11h, so the wait cells read '13d19h / 68d11h / 68d11h'.
     */
    private static ScenarioBuilder longWaits() {
        return given().nodes(1, 1)
                .allocations(t -> t.leaf("A", 1))
                .workload(w("a").in("A").gpus(1).runs("13d19h").minRuntime("8h").at("0s"))
                .workload(w("b").in("A").gpus(1).runs("17d23h").minRuntime("8h").at("0s"))
                .workload(w("c").in("A").gpus(1).runs("36d17h").minRuntime("8h").at("0s"))
                .workload(w("d").in("A").gpus(1).runs("1h").minRuntime("8h").at("0s"));
    }

    @Test
    void givenWaitCellsWiderThanAColumn_whenSideBySide_thenTwoBlanksStillSeparateThem() {
        ScenarioBuilder given = longWaits();
        String text = TextReport.render(given.scenario(), List.of(given.run("legacy").result(),
                given.run("legacy").result()));
        String waits = text.lines().filter(l -> l.startsWith("wait p50/p90/p99 all")).findFirst().orElseThrow();

        assertThat(waits).as("it printed '...68d11h13d19h / ...': the second column ran into the first")
                .isEqualTo("wait p50/p90/p99 all        13d19h / 68d11h / 68d11h  13d19h / 68d11h / 68d11h");
        assertThat(text.lines().filter(l -> l.startsWith("metric")).findFirst().orElseThrow())
                .isEqualTo("metric                                        legacy                    legacy");
    }

    @Test
    void givenNoWorkloads_whenReported_thenTheScenarioLineListsNoKinds() {
        ScenarioBuilder given = given().nodes(1, 1).allocations(t -> t.leaf("A", 1));
        String text = TextReport.render(given.scenario(), List.of(given.run("allocation").result()));
        assertThat(text.lines().filter(l -> l.startsWith("workloads ")).findFirst().orElseThrow())
                .as("it printed 'workloads    0 (); 0 rejected'").startsWith("workloads    0; 0 rejected");
    }

    @Test
    void givenAShareBelowAThousandth_whenTheTreeIsPrinted_thenItIsNotPrintedAsAShareOfZero() {
        // Philly's team 23dbec (1 of 52,849 workloads' GPU-hours) printed '(share 0.000 of trace)', and a share of 0
        // means an allocation entitled to nothing
        ScenarioBuilder given = given().nodes(1, 8).allocations(t -> t.leaf("a", 0.0003).leaf("b", 0.828)
                .leaf("c", 1.5).leaf("d", 2));
        String text = TextReport.render(given.scenario(), List.of(given.run("allocation").result()));
        assertThat(text).contains("(share 0.0003 of ", "(share 0.828 of ", "(share 1.5 of ", "(share 2 of ");
        assertThat(TextReport.share(1234.5678)).isEqualTo("1234.568");
        assertThat(TextReport.share(0.000123456)).isEqualTo("0.000123");
    }
}
