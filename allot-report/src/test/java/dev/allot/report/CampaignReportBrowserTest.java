package dev.allot.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.report.browser.BrowserExtension;
import dev.allot.sim.campaign.CampaignComparison;
import dev.allot.sim.campaign.CampaignOutcome;
import dev.allot.sim.campaign.CampaignTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The campaign report of the example campaign in the lab preset over 8 days (seeds 1 and 2, every strategy) in a
 * real headless Chromium: it loads without console errors, shows the terminal's table, draws units done over time for every
 * strategy and every shard's runs (coloured pixels, bars drawn as many as the runs the driver kept), hovering a bar
 * names its shard, and the strategy tabs and the seed selector redraw. Screenshots go to
 * {@code target/campaign-report/} for review.
 */
class CampaignReportBrowserTest {
    private static final Path OUT = Path.of("target", "campaign-report");
    private static final Path PAGE = OUT.resolve("campaign-lab.html");
    private static final Duration LOAD = Duration.ofSeconds(60);

    private static Campaigns.Comparison comparison;

    @RegisterExtension
    static final BrowserExtension chromium = BrowserExtension.whileWriting(CampaignReportBrowserTest::writeTheReport);

    private static void writeTheReport() throws IOException {
        Files.createDirectories(OUT);
        comparison = Campaigns.lab(List.of(1L, 2L), 2);
        CampaignReport.write(comparison.summary(), comparison.runs(), PAGE);
    }

    @BeforeEach
    void openTheReport() {
        chromium.browser().open(PAGE);
        chromium.browser().waitFor("window.allotCampaign && (allotCampaign.ready || allotCampaign.error)", LOAD);
        assertThat(chromium.browser().js("return allotCampaign.error;")).as("the page's own error report").isNull();
    }

    @Test
    void theReportLoadsWithoutConsoleErrorsAndShowsTheTerminalsTable() {
        assertThat(chromium.browser().consoleErrors()).isEmpty();
        assertThat(chromium.browser().js("return document.getElementById('title').textContent;"))
                .isEqualTo("Allot campaign report: oracle-eval");
        assertThat(chromium.browser().js("return allotCampaign.strategies;"))
                .isEqualTo(List.of("allot", "v4", "v4.1", "all-protected", "all-unallocated"));
        String table = (String) chromium.browser().js("return document.getElementById('comparison-table').innerText;");
        for (String[] line : CampaignTable.cells(comparison.summary())) {
            for (String cell : line) {
                assertThat(table).contains(cell);
            }
        }
        assertThat((String) chromium.browser().js("return document.getElementById('goal').textContent;"))
                .startsWith("goal (makespan >= 20% shorter than v4.1").contains("units done twice");
        assertThat((String) chromium.browser().js("return document.getElementById('footer').textContent;"))
                .contains("Allot 0.1.0", "allot.campaign-report/1");
        chromium.browser().screenshot(OUT.resolve("comparison.png"));
    }

    @Test
    void unitsDoneOverTimeAndTheShardsRunningAreDrawnForEveryStrategy() {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> charts =
                (List<Map<String, Object>>) chromium.browser().js("return allotCampaign.charts();");
        assertThat(charts).extracting(c -> c.get("id")).containsExactlyInAnyOrder("progress-chart", "running-chart");
        Map<String, Object> progress = charts.stream().filter(c -> c.get("id").equals("progress-chart")).findFirst()
                .orElseThrow();
        assertThat(((Number) progress.get("series")).intValue()).as("one line per strategy").isEqualTo(5);
        for (Map<String, Object> chart : charts) {
            String id = (String) chart.get("id");
            assertThat(((Number) chart.get("points")).longValue()).as("data points of %s", id).isPositive();
            assertThat(chromium.browser().colouredPixels("#" + id + " canvas")).as("coloured pixels drawn by %s", id)
                    .isGreaterThan(1000);
        }
        // the last point of every line: the units the run's books say were done by then
        @SuppressWarnings("unchecked")
        List<Number> last = (List<Number>) progress.get("last");
        assertThat(last.stream().map(Number::longValue).toList())
                .isEqualTo(runsOf(1L).stream().map(r -> r.outcome().unitsDone()).toList());
        String seedTable = (String) chromium.browser().js("return document.getElementById('seed-table').innerText;");
        for (CampaignComparison.Run r : runsOf(1L)) {
            assertThat(seedTable).contains(hours(r.outcome().makespanSeconds()));
        }
        chromium.browser().js("document.getElementById('progress').scrollIntoView();");
        chromium.browser().screenshot(OUT.resolve("progress.png"));
    }

    @Test
    void everyRunOfEveryShardIsABarAndHoveringOneNamesItsShard() {
        CampaignOutcome allot = runsOf(1L).get(0).outcome();
        assertThat(chromium.browser().js("return allotCampaign.strategy();")).isEqualTo("allot");
        assertThat(((Number) chromium.browser().js("return allotCampaign.gantt.barsDrawn();")).intValue())
                .isEqualTo(allot.attempts().size());
        assertThat(chromium.browser().colouredPixels("#shard-canvas")).as("coloured pixels of the shards' bars")
                .isGreaterThan(20_000);
        // the longest shard's first run
        String id = longestShard();
        chromium.browser().js("document.getElementById('shards').scrollIntoView();");
        @SuppressWarnings("unchecked")
        Map<String, Object> at = (Map<String, Object>) chromium.browser().js("return allotCampaign.gantt.locate(arguments[0]);", id);
        chromium.browser().hover(((Number) at.get("x")).intValue(), ((Number) at.get("y")).intValue());
        chromium.browser().waitFor("allotCampaign.gantt.hovered() !== null", Duration.ofSeconds(5));
        assertThat(chromium.browser().js("return allotCampaign.gantt.hovered();")).isEqualTo(id);
        assertThat((String) chromium.browser().js("return allotCampaign.gantt.tipText();"))
                .contains(id, "units of", "first start", "this run:", "ended:");
        chromium.browser().screenshot(OUT.resolve("shards-hover.png"));
    }

    @Test
    void theStrategyTabsAndTheSeedSelectorRedraw() {
        chromium.browser().click("#strategy-tabs button[data-strategy='v4.1']");
        assertThat(chromium.browser().js("return allotCampaign.strategy();")).isEqualTo("v4.1");
        assertThat(((Number) chromium.browser().js("return allotCampaign.gantt.barsDrawn();")).intValue())
                .isEqualTo(runsOf(1L).get(2).outcome().attempts().size());
        assertThat(chromium.browser().js("return document.querySelector('#shards .strategy-name').textContent;"))
                .isEqualTo("· v4.1");
        chromium.browser().js(
                "const s = document.getElementById('seed'); s.value = '1'; s.dispatchEvent(new Event('change'));");
        assertThat(chromium.browser().js("return allotCampaign.seed();")).isEqualTo(2L);
        assertThat(((Number) chromium.browser().js("return allotCampaign.gantt.barsDrawn();")).intValue())
                .isEqualTo(runsOf(2L).get(2).outcome().attempts().size());
        String seedTable = (String) chromium.browser().js("return document.getElementById('seed-table').innerText;");
        assertThat(seedTable).contains("seed 2");
        for (CampaignComparison.Run r : runsOf(2L)) {
            assertThat(seedTable).contains(hours(r.outcome().makespanSeconds()));
        }
        assertThat(chromium.browser().colouredPixels("#progress-chart canvas")).isGreaterThan(1000);
        assertThat(chromium.browser().consoleErrors()).isEmpty();
    }

    @Test
    void screenshotsForReview() {
        Path full = chromium.browser().fullPageScreenshot(OUT.resolve("full-page.png"));
        assertThat(full).isNotEmptyFile();
    }

    /** The strategies' runs of one seed, in the table's order. */
    private static List<CampaignComparison.Run> runsOf(long seed) {
        return comparison.runs().stream().filter(r -> !r.baseline() && r.seed() == seed).toList();
    }

    private static String longestShard() {
        var spec = comparison.summary().campaign();
        var longest = spec.shards().stream().max(java.util.Comparator.comparingLong(spec::trueSeconds)).orElseThrow();
        return spec.shardId(longest.index());
    }

    private static String hours(long seconds) {
        return String.format(Locale.ROOT, "%.1f", seconds / 3600.0);
    }
}
