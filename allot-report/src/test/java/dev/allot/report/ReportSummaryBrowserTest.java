package dev.allot.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.report.browser.Browser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The summary table of the report of {@code examples/tiny} (all four policies) in a real headless Chromium: "Bold:
 * the best policy on that line" holds for ties too. On tiny, legacy and slurm both lose 0 GPU-hours; only legacy,
 * the first of them, was bold, which read as slurm doing worse.
 */
class ReportSummaryBrowserTest {
    private static final Path PAGE = Path.of("target", "report-tiny", "report-tiny.html");
    private static final List<String> POLICIES = List.of("allocation", "legacy", "slurm", "kueue");

    private static Browser browser;

    @BeforeAll
    static void writeTheReportAndStartTheBrowser() throws IOException {
        Files.createDirectories(PAGE.getParent());
        browser = Browser.startWhile(() -> {
            try {
                HtmlReport.write(Reports.simulate("tiny", POLICIES), PAGE);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @AfterAll
    static void stopTheBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @Test
    void givenTwoPoliciesTiedForTheBestValue_whenTheSummaryIsShown_thenBothAreBoldAndTheOthersAreNot() {
        browser.open(PAGE);
        browser.waitFor("window.allotReport && (allotReport.ready || allotReport.error)", Duration.ofSeconds(60));
        assertThat(browser.js("return allotReport.error;")).isNull();

        Map<String, List<String>> bold = bold("Lost GPU-hours", "Lost / delivered GPU-hours (whole run)");
        assertThat(shown("Lost GPU-hours")).containsExactly("4.0", "0.0", "0.0", "4.7");
        assertThat(bold.get("Lost GPU-hours")).as("the policies shown bold").containsExactly("legacy", "slurm");
        assertThat(bold.get("Lost / delivered GPU-hours (whole run)")).containsExactly("legacy", "slurm");
        // a line without a tie keeps its one best policy
        assertThat(bold("Occupancy").get("Occupancy")).containsExactly("slurm");
    }

    /** The policies whose cell is bold on each line of the summary named. */
    @SuppressWarnings("unchecked")
    private static Map<String, List<String>> bold(String... lines) {
        Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        for (String line : lines) {
            out.put(line, (List<String>) browser.js("""
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
        return (List<String>) browser.js("""
                const row = [...document.querySelectorAll('#metrics tr')]
                    .find((tr) => tr.cells[0].textContent === arguments[0]);
                return [...row.cells].slice(1).map((td) => td.textContent);""", line);
    }
}
