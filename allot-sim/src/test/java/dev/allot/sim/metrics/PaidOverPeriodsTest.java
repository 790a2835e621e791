package dev.allot.sim.metrics;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import dev.allot.sim.report.TextReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The paid fraction over days and over lookback windows beside the hourly one, on a scenario small enough to
 * compute by hand: an allocation kept waiting for an hour by another's protected run, then paid back later the
 * same day.
 */
class PaidOverPeriodsTest {
    private static final double HOUR = 3600;

    /**
     * One 8-GPU node split 50/50 between A and B. B's b1 takes the node from 0h to 2h, protected for its whole run;
     * A's a1 (8 GPUs, 2 hours) arrives at 1h and runs from 2h to 4h. B's small b2 at 23h makes the window a day.
     * Owed GPU-hours per hour are min(4, demand): A is owed 4 in hours 1, 2 and 3 and receives 0, 8 and 8; B is
     * owed 4 in hours 0 and 1 and receives 8 each, and 1/6 in hour 23 (10 minutes of one GPU), received.
     */
    private static ScenarioBuilder paidLate(String lookback) {
        return given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .set("lookback", lookback)
                .workload(w("b1").in("B").gpus(8).runs("2h").minRuntime("2h").at("0s"))
                .workload(w("a1").in("A").gpus(8).runs("2h").minRuntime("1h").at("1h"))
                .workload(w("b2").in("B").gpus(1).runs("10m").minRuntime("10m").at("23h"));
    }

    private static AllocationMetrics allocation(PolicyMetrics m, String name) {
        return m.allocations().stream().filter(a -> a.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void anAllocationPaidLateWithinTheDayIsPaidInFullOverTheDayButNotHourByHour() {
        // given A owed from 1h but served from 2h, with a 2-hour lookback window
        Run run = paidLate("2h").run("allocation");
        assertThat(run.workload("a1").firstStartSeconds()).as("a1 waits for b1's protected run").isEqualTo(2 * 3600);
        PolicyMetrics m = run.result().metrics();
        assertThat(m.windowSeconds()).isEqualTo(24 * 3600);
        AllocationMetrics a = allocation(m, "A");
        AllocationMetrics b = allocation(m, "B");
        // then A is owed 12 GPU-hours and receives 16
        assertThat(a.owedGpuHours()).isEqualTo(12.0);
        assertThat(a.receivedGpuHours()).isEqualTo(16.0);
        // hour by hour A is paid 0 + 4 + 4 of 12
        assertThat(a.paidFraction()).isEqualTo(0.6667);
        // over the day its 16 received cover the 12 owed
        assertThat(a.paidFractionDaily()).isEqualTo(1.0);
        // over 2-hour windows [0h,2h) pays 0 of 4 and [2h,4h) pays 8 of 8
        assertThat(a.paidFractionWindow()).isEqualTo(0.6667);
        // B was paid in full in every hour, so in every period
        assertThat(List.of(b.paidFraction(), b.paidFractionDaily(), b.paidFractionWindow())).containsOnly(1.0);
        // overall: owed 12 + 8 + 1/6, paid hourly 8 + 8 + 1/6, daily everything, per window as hourly
        double owed = 12 + 8 + 1 / 6.0;
        assertThat(m.paidFraction()).isCloseTo((16 + 1 / 6.0) / owed, within(0.00005));
        assertThat(m.paidFractionDaily()).isEqualTo(1.0);
        assertThat(m.paidFractionWindow()).isCloseTo((16 + 1 / 6.0) / owed, within(0.00005));
    }

    @Test
    void aLookbackWindowThatCoversTheDelayPaysInFull() {
        // given the same run with a 4-hour lookback: [0h,4h) holds A's whole debt and its payment
        PolicyMetrics m = paidLate("4h").run("allocation").result().metrics();
        AllocationMetrics a = allocation(m, "A");
        assertThat(a.paidFraction()).isEqualTo(0.6667);
        assertThat(a.paidFractionWindow()).isEqualTo(1.0);
        assertThat(m.paidFractionWindow()).isEqualTo(1.0);
    }

    @Test
    void theTextReportShowsThePeriodRowsBesideThePaidFractionAndColumnsPerAllocation() {
        ScenarioBuilder given = paidLate("2h");
        Run run = given.run("allocation");
        String text = TextReport.render(given.scenario(), List.of(run.result()));
        List<String> lines = text.lines().toList();
        int paid = indexOfLineStarting(lines, "paid fraction ");
        assertThat(lines.get(paid)).endsWith("80.2%");
        assertThat(lines.get(paid + 1)).startsWith("paid over days ").endsWith("100.0%");
        assertThat(lines.get(paid + 2)).startsWith("paid over lookback windows").endsWith("80.2%");
        assertThat(lines.get(indexOfLineStarting(lines, "allocation "))).contains("paid", "paid/day", "paid/lookback");
        assertThat(lines.get(indexOfLineStarting(lines, "A "))).containsSubsequence("66.7%", "100.0%", "66.7%");
    }

    private static int indexOfLineStarting(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starting with '" + prefix + "' in\n" + String.join("\n", lines));
    }

    @Test
    void periodsSumOwedAndReceivedAndTheLastPeriodMayBeShorter() {
        // owed 4 GPU-hours in each of 5 hours; received 0, 8, 0, 0, 6
        double[] owed = {4 * HOUR, 4 * HOUR, 4 * HOUR, 4 * HOUR, 4 * HOUR};
        Hourly received = new Hourly();
        received.add(1, (long) (8 * HOUR));
        received.add(4, (long) (6 * HOUR));
        received.add(5, (long) (9 * HOUR)); // beyond the window: not counted
        // hourly: 0 + 4 + 0 + 0 + 4
        assertThat(MetricsCollector.paidOverPeriods(owed, received, 1)).isEqualTo(8 * HOUR);
        // periods of 2: [0,2) min(8, 8) + [2,4) min(0, 8) + [4,5) min(6, 4)
        assertThat(MetricsCollector.paidOverPeriods(owed, received, 2)).isEqualTo(12 * HOUR);
        // one period of 24 hours covering the 5: min(14, 20)
        assertThat(MetricsCollector.paidOverPeriods(owed, received, 24)).isEqualTo(14 * HOUR);
    }
}
