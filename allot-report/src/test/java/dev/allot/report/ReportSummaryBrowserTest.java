package dev.allot.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.report.browser.BrowserExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The summary of the report in a real headless Chromium, on {@code examples/tiny} (all four policies) and on a small
 * tree with fractional shares: "Bold: the best policy on that line" holds for ties too (on tiny, legacy and slurm
 * both lose 0 GPU-hours; only legacy, the first of them, was bold, which read as slurm doing worse), and the inputs'
 * allocation tree shows the shares as written (they were rounded to whole numbers: 0.3 read 0), and a replayed
 * trace's import is said in words (it was its JSON fields as they are: 'trace skipped {}', 'trace timeZeroEpoch
 * 1507529583'), and one row skipped in reading is "1 row skipped" (it was "1 rows skipped"), and a scenario of one node,
 * one GPU and one workload says so in the subtitle (it said "1 nodes (1 x 1 GPUs), 1 GPUs, 1 workloads").
 */
class ReportSummaryBrowserTest {
    private static final Path PAGE = Path.of("target", "report-tiny", "report-tiny.html");
    private static final Path SHARES = Path.of("target", "report-tiny", "shares").toAbsolutePath();
    private static final Path SHARES_PAGE = Path.of("target", "report-tiny", "report-shares.html");
    private static final Path TRACE_PAGE = Path.of("target", "report-tiny", "report-trace-philly.html");
    private static final Path SINGLE = Path.of("target", "report-tiny", "single").toAbsolutePath();
    private static final Path SINGLE_PAGE = Path.of("target", "report-tiny", "report-single.html");
    private static final List<String> POLICIES = List.of("allocation", "legacy", "slurm", "kueue");

    @RegisterExtension
    static final BrowserExtension chromium = BrowserExtension.whileWriting(ReportSummaryBrowserTest::writeTheReports);

    private static void writeTheReports() throws IOException {
        Files.createDirectories(SHARES);
        Files.writeString(SHARES.resolve("cluster.yaml"), "node-groups:\n  - {name-prefix: node, count: 2, gpus: 8}\n");
        Files.writeString(SHARES.resolve("allocations.yaml"), "name: lab\nchildren:\n  - {name: a, share: 0.3}\n"
                + "  - {name: b, share: 1.5}\n  - {name: c, share: 2}\n  - {name: d, share: 0.0004}\n");
        Files.writeString(SHARES.resolve("workloads.csv"), "id,submit,allocation,gpus,duration,min_runtime\n"
                + "w1,0,a,8,1h,30m\nw2,0,b,8,1h,30m\nw3,0,nosuch,8,1h,30m\n"); // w3 skipped: read leniently
        Files.createDirectories(SINGLE);
        Files.writeString(SINGLE.resolve("cluster.yaml"), "node-groups:\n  - {name-prefix: node, count: 1, gpus: 1}\n");
        Files.writeString(SINGLE.resolve("allocations.yaml"), "name: lab\nchildren:\n  - {name: a, share: 1}\n");
        Files.writeString(SINGLE.resolve("workloads.csv"), "id,submit,allocation,gpus,duration,min_runtime\n"
                + "w1,0,a,1,1h,30m\n");
        HtmlReport.write(Reports.simulate("tiny", POLICIES), PAGE);
        HtmlReport.write(Reports.simulate(SHARES.toString(), List.of("allocation"), true), SHARES_PAGE);
        HtmlReport.write(Reports.simulate("trace-philly", List.of("allocation")), TRACE_PAGE);
        HtmlReport.write(Reports.simulate(SINGLE.toString(), List.of("allocation")), SINGLE_PAGE);
    }

    /** Opens a written report and waits until it has drawn, with no error of its own. */
    private static void openReport(Path page) {
        chromium.browser().open(page);
        chromium.browser().waitFor("window.allotReport && (allotReport.ready || allotReport.error)",
                Duration.ofSeconds(60));
        assertThat(chromium.browser().js("return allotReport.error;")).isNull();
    }

    @Test
    void givenTwoPoliciesTiedForTheBestValue_whenTheSummaryIsShown_thenBothAreBoldAndTheOthersAreNot() {
        openReport(PAGE);

        Map<String, List<String>> bold = bold("Lost GPU-hours", "Lost / delivered GPU-hours (whole run)");
        assertThat(shown("Lost GPU-hours")).containsExactly("4.0", "0.0", "0.0", "4.7");
        assertThat(bold.get("Lost GPU-hours")).as("the policies shown bold").containsExactly("legacy", "slurm");
        assertThat(bold.get("Lost / delivered GPU-hours (whole run)")).containsExactly("legacy", "slurm");
        // a line without a tie keeps its one best policy
        assertThat(bold("Occupancy").get("Occupancy")).containsExactly("slurm");
    }

    @Test
    void givenFractionalShares_whenTheInputsAreShown_thenTheAllocationTreeShowsEachShareAsWritten() {
        openReport(SHARES_PAGE);
        assertThat(chromium.browser().js("""
                const table = [...document.querySelectorAll('#inputs h3')]
                    .find((h) => h.textContent === 'Allocation tree').nextElementSibling;
                return [...table.querySelectorAll('tr')].slice(1)
                    .map((tr) => tr.cells[0].textContent.trim() + ' ' + tr.cells[1].textContent);"""))
                .isEqualTo(List.of("a 0.3", "b 1.5", "c 2", "d 0.0004"));
    }

    @Test
    void givenOneRowSkippedWhenReadLeniently_whenTheInputsAreShown_thenTheyCountItAsOneRow() {
        openReport(SHARES_PAGE);
        // it said "2 (1 rows skipped)"
        assertThat(chromium.browser().js("""
                const table = [...document.querySelectorAll('#inputs h3')]
                    .find((h) => h.textContent === 'Cluster and scenario').nextElementSibling;
                return [...table.querySelectorAll('tr')].find((tr) => tr.cells[0].textContent === 'workloads')
                    .cells[1].textContent;""")).isEqualTo("2 (1 row skipped)");
    }

    @Test
    void givenOneNodeOneGpuAndOneWorkload_whenTheSubtitleIsShown_thenEachCountIsSingular() {
        openReport(SINGLE_PAGE);
        // it said "1 nodes (1 x 1 GPUs), 1 GPUs, 1 workloads"
        assertThat((String) chromium.browser().js("return document.getElementById('subtitle').textContent;"))
                .startsWith("1 node (1 x 1 GPU), 1 GPU, 1 workload, 1 policy, ");
    }

    @Test
    void givenAReplayedTrace_whenTheInputsAreShown_thenItsImportIsSaidInWordsNotAsJson() {
        openReport(TRACE_PAGE);
        @SuppressWarnings("unchecked")
        List<String> rows = (List<String>) chromium.browser().js("""
                const table = [...document.querySelectorAll('#inputs h3')]
                    .find((h) => h.textContent === 'Cluster and scenario').nextElementSibling;
                return [...table.querySelectorAll('tr')].slice(1)
                    .map((tr) => tr.cells[0].textContent + ': ' + tr.cells[1].textContent);""");
        assertThat(rows).contains("trace format: philly", "trace file: jobs.csv", "rows read: 16", "rows skipped: none",
                "contract rule: checkpoint-every 30m, debug-if-shorter-than 15m, min-runtime 1h,"
                        + " resumable-if-longer-than 1h, seed 1, unallocated-fraction 0.1")
                .anyMatch(r -> r.matches("time 0: \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"))
                .noneMatch(r -> r.contains("{") || r.contains("Epoch"));
    }

    /** The policies whose cell is bold on each line of the summary named. */
    @SuppressWarnings("unchecked")
    private static Map<String, List<String>> bold(String... lines) {
        Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        for (String line : lines) {
            out.put(line, (List<String>) chromium.browser().js("""
                    const policies = allotReport.policies;
                    const row = [...document.querySelectorAll('#metrics tr')]
                        .find((tr) => tr.cells[0].textContent === arguments[0]);
                    return [...row.cells].slice(1)
                        .map((td, i) => getComputedStyle(td).fontWeight >= 600 ? policies[i] : null)
                        .filter((p) => p !== null);""", line));
        }
        return out;
    }

    /** The values shown on the line of the summary named, one per policy. */
    @SuppressWarnings("unchecked")
    private static List<String> shown(String line) {
        return (List<String>) chromium.browser().js("""
                const row = [...document.querySelectorAll('#metrics tr')]
                    .find((tr) => tr.cells[0].textContent === arguments[0]);
                return [...row.cells].slice(1).map((td) => td.textContent);""", line);
    }
}
