package dev.allot.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.report.browser.BrowserExtension;
import dev.allot.sim.report.JsonReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The report of {@code examples/lab} (all four policies) in a real headless Chromium: it loads without console
 * errors, every chart has drawn data (coloured pixels, not just axes), hovering a bar of the GPU timeline shows
 * its workload, the wheel and drag change the visible time range, jumping and switching policy work. Screenshots
 * go to {@code target/report-lab/} for review; the README's screenshot is one of them.
 */
class ReportBrowserTest {
    private static final Path OUT = Path.of("target", "report-lab");
    private static final Path PAGE = OUT.resolve("report-lab.html");
    private static final List<String> POLICIES = List.of("allocation", "slurm", "kueue", "legacy");
    private static final Duration LOAD = Duration.ofSeconds(60);

    private static JsonReport.Document document;

    @RegisterExtension
    static final BrowserExtension chromium = BrowserExtension.whileWriting(ReportBrowserTest::writeTheReport);

    private static void writeTheReport() throws IOException {
        Files.createDirectories(OUT);
        document = Reports.simulate("lab", POLICIES);
        HtmlReport.write(document, PAGE);
    }

    @BeforeEach
    void openTheReport() {
        chromium.browser().open(PAGE);
        chromium.browser().waitFor("window.allotReport && (allotReport.ready || allotReport.error)", LOAD);
        assertThat(chromium.browser().js("return allotReport.error;")).as("the page's own error report").isNull();
    }

    @Test
    void theReportLoadsWithoutConsoleErrorsAndSaysWhatItShows() {
        assertThat(chromium.browser().consoleErrors()).isEmpty();
        assertThat(chromium.browser().js("return document.getElementById('title').textContent;"))
                .isEqualTo("Allot report: lab");
        assertThat(chromium.browser().js("return allotReport.policies;")).isEqualTo(POLICIES);
        String summary = (String) chromium.browser().js("return document.getElementById('metrics').textContent;");
        assertThat(summary).contains("Paid fraction", "Paid over days", "Paid over lookback windows (summed per 7d)",
                "Wait p90, debug", "Preemptions", "allocation", "kueue", "Occupancy while work waited");
        assertThat((String) chromium.browser().js("return document.getElementById('paid-table').textContent + document.getElementById('tree-table').textContent;"))
                .contains("Per day", "Per lookback");
        assertThat((String) chromium.browser().js("return document.getElementById('footer').textContent;")).contains("Allot 0.1.0");
        chromium.browser().screenshot(OUT.resolve("summary.png"));
    }

    @Test
    void everyChartHasDrawnItsData() {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> charts =
                (List<Map<String, Object>>) chromium.browser().js("return allotReport.charts();");
        assertThat(charts).extracting(c -> c.get("id")).containsExactlyInAnyOrder(
                "usage-chart", "wait-debug", "wait-large", "wait-all", "preempt-chart", "lost-chart");
        for (Map<String, Object> chart : charts) {
            String id = (String) chart.get("id");
            assertThat(((Number) chart.get("points")).longValue()).as("data points of %s", id).isPositive();
            assertThat(chromium.browser().colouredPixels("#" + id + " canvas")).as("coloured pixels drawn by %s", id).isGreaterThan(300);
        }
        assertThat(((Number) chromium.browser().js("return allotReport.timeline.barsDrawn();")).longValue())
                .isGreaterThan(5_000);
        assertThat(chromium.browser().colouredPixels("#tl-canvas")).as("coloured pixels of the GPU timeline").isGreaterThan(100_000);
        Number paint = (Number) chromium.browser().js("return allotReport.firstPaintMs;");
        assertThat(paint).isNotNull();
        System.out.printf("report-lab: %,d KiB, timeline first painted %d ms after navigation, everything drawn at %s ms%n",
                sizeKiB(), paint.longValue(), chromium.browser().js("return allotReport.drawnMs;"));
    }

    @Test
    void hoveringABarShowsItsWorkload() {
        chromium.browser().js("allotReport.timeline.setRowHeight(8);");
        String id = firstPreemptedWorkload();
        @SuppressWarnings("unchecked")
        Map<String, Object> at = (Map<String, Object>) chromium.browser().js("return allotReport.timeline.locate(arguments[0]);", id);
        chromium.browser().hover(((Number) at.get("x")).intValue(), ((Number) at.get("y")).intValue());
        chromium.browser().waitFor("allotReport.timeline.hovered() !== null", Duration.ofSeconds(5));
        assertThat(chromium.browser().js("return allotReport.timeline.hovered();")).isEqualTo(id);
        String tip = (String) chromium.browser().js("return allotReport.timeline.tipText();");
        assertThat(tip).contains(id, "GPUs", "minimum runtime", "ran d", "ended: preempted");
        assertThat(tip).containsPattern("lab/[a-z]+/[a-z]+");
        chromium.browser().screenshot(OUT.resolve("timeline-hover.png"));
    }

    @Test
    void theWheelZoomsAndDraggingPansTheTimeline() {
        List<Double> whole = range();
        chromium.browser().wheel("#tl-canvas", 100, 0, -300);
        chromium.browser().waitFor("allotReport.timeline.range()[1] - allotReport.timeline.range()[0] < " + (whole.get(1) - whole.get(0)),
                Duration.ofSeconds(5));
        List<Double> zoomed = range();
        assertThat(zoomed.get(1) - zoomed.get(0)).isLessThan(whole.get(1) - whole.get(0));
        chromium.browser().drag("#tl-canvas", 200, 0, -100, 0);
        List<Double> panned = range();
        assertThat(panned.get(0)).as("dragging left shows later times").isGreaterThan(zoomed.get(0));
        assertThat(panned.get(1) - panned.get(0)).isCloseTo(zoomed.get(1) - zoomed.get(0), org.assertj.core.data.Offset.offset(1.0));
        chromium.browser().click("#tl-reset");
        assertThat(range()).isEqualTo(whole);
        chromium.browser().click("#tl-zoom-in");
        assertThat(range().get(1) - range().get(0)).isCloseTo((whole.get(1) - whole.get(0)) / 2, org.assertj.core.data.Offset.offset(1.0));
    }

    @Test
    void jumpingToANodeScrollsToItsGpusAndToAnAllocationHighlightsIt() {
        chromium.browser().js("allotReport.timeline.setRowHeight(12);");
        chromium.browser().type("#tl-jump", "node gpu-r4-01");
        chromium.browser().waitFor("document.getElementById('tl-scroll').scrollTop > 0", Duration.ofSeconds(5));
        long rowOfNode = 24 * 8;
        assertThat(((Number) chromium.browser().js("return document.getElementById('tl-scroll').scrollTop;")).longValue())
                .isEqualTo(rowOfNode * 12);
        chromium.browser().type("#tl-jump", "allocation safety");
        assertThat(chromium.browser().colouredPixels("#tl-canvas")).isPositive();
        chromium.browser().screenshot(OUT.resolve("timeline-jump.png"));
    }

    @Test
    void theFifteenAllocationsGetColoursFarApart() {
        @SuppressWarnings("unchecked")
        List<String> colours = (List<String>) chromium.browser().js("return allotReport.colours;");
        assertThat(colours).hasSize(15).doesNotHaveDuplicates();
        double closest = Double.MAX_VALUE;
        for (int i = 0; i < colours.size(); i++) {
            for (int j = i + 1; j < colours.size(); j++) {
                closest = Math.min(closest, distance(rgb(colours.get(i)), rgb(colours.get(j))));
            }
        }
        assertThat(closest).as("smallest RGB distance between two allocations' colours").isGreaterThan(20);
    }

    /** The sRGB channels of a CSS {@code hsl(h,s%,l%)} colour, as the browser computes them. */
    private static int[] rgb(String hsl) {
        Object rgb = chromium.browser().js("const e = document.createElement('span'); e.style.color = arguments[0];"
                + "document.body.appendChild(e); const c = getComputedStyle(e).color; e.remove(); return c;", hsl);
        String[] parts = ((String) rgb).replaceAll("[^0-9,]", "").split(",");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }

    private static double distance(int[] a, int[] b) {
        return Math.sqrt(Math.pow(a[0] - b[0], 2) + Math.pow(a[1] - b[1], 2) + Math.pow(a[2] - b[2], 2));
    }

    @Test
    void switchingPolicyRedrawsTheTimelineAndTheCharts() {
        long before = ((Number) chromium.browser().js("return allotReport.timeline.barsDrawn();")).longValue();
        assertThat(chromium.browser().js("return allotReport.timeline.policy();")).isEqualTo("allocation");
        chromium.browser().click("#policy-tabs button[data-policy='kueue']");
        assertThat(chromium.browser().js("return allotReport.policy();")).isEqualTo("kueue");
        chromium.browser().waitFor("allotReport.timeline.policy() === 'kueue'", Duration.ofSeconds(20));
        assertThat(chromium.browser().js("return document.querySelector('#timeline .policy-name').textContent;")).isEqualTo("· kueue");
        long after = ((Number) chromium.browser().js("return allotReport.timeline.barsDrawn();")).longValue();
        assertThat(after).isPositive().isNotEqualTo(before);
        assertThat(chromium.browser().colouredPixels("#usage-chart canvas")).isGreaterThan(300);
        assertThat(chromium.browser().consoleErrors()).isEmpty();
    }

    @Test
    void screenshotsForReview() {
        chromium.browser().js("document.getElementById('timeline').scrollIntoView();");
        chromium.browser().screenshot(OUT.resolve("timeline.png"));
        Path full = chromium.browser().fullPageScreenshot(OUT.resolve("full-page.png"));
        assertThat(full).isNotEmptyFile();
    }

    private static List<Double> range() {
        @SuppressWarnings("unchecked")
        List<Number> r = (List<Number>) chromium.browser().js("return allotReport.timeline.range();");
        return r.stream().map(Number::doubleValue).toList();
    }

    /** A workload whose first run under the first policy ended in preemption (the lab has thousands). */
    private static String firstPreemptedWorkload() {
        var t = document.runs().get(0).timeline();
        for (int r = 0; r < t.runs(); r++) {
            if (t.end()[r] == 1 || t.end()[r] == 2) {
                int w = t.workload()[r];
                boolean first = true;
                for (int q = 0; q < r; q++) {
                    if (t.workload()[q] == w) {
                        first = false;
                        break;
                    }
                }
                if (first && t.durationSeconds()[r] > 3600) {
                    return document.workloads().ids().get(w);
                }
            }
        }
        throw new AssertionError("the lab's first policy preempted nothing");
    }

    private static long sizeKiB() {
        try {
            return Files.size(PAGE) / 1024;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
