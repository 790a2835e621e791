package dev.allot.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.report.browser.Browser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A measurement, not a check: opens a report given with {@code -Dreport.timing=FILE} in headless Chromium a few
 * times and prints its size, when the data was read, when the GPU timeline first painted and when everything was
 * drawn (milliseconds after navigation), how long redrawing the timeline takes when zoomed and scrolled, and how long
 * the first switch to each other policy takes (reading its timeline, decoding and drawing it and its charts). It
 * only fails if the page does not load cleanly. Run it with
 * {@code mvn -B -q test -pl allot-report -Dtest=ReportTimingTest -Dreport.timing=/tmp/big.html}.
 */
@EnabledIfSystemProperty(named = "report.timing", matches = ".+")
class ReportTimingTest {
    private static final int LOADS = 3;

    @Test
    void measure() throws IOException {
        Path page = Path.of(System.getProperty("report.timing"));
        try (Browser browser = Browser.start()) {
            System.out.printf("%s: %,d KiB%n", page, Files.size(page) / 1024);
            for (int i = 0; i < LOADS; i++) {
                browser.open(page);
                browser.waitFor("window.allotReport && (allotReport.ready || allotReport.error)", Duration.ofMinutes(2));
                assertThat(browser.js("return allotReport.error;")).isNull();
                assertThat(browser.consoleErrors()).isEmpty();
                Object redraw = browser.js("""
                        const t = allotReport.timeline;
                        const times = [];
                        for (const step of [() => t.setRowHeight(1), () => t.zoom(0.5), () => t.zoom(0.25),
                                            () => t.setRange(0, t.range()[1] * 8), () => t.setRowHeight(4)]) {
                          const s = performance.now();
                          step();
                          times.push(performance.now() - s);
                        }
                        return times.map((v) => Math.round(v)).join('/');
                        """);
                Object switches = browser.jsAsync("""
                        const done = arguments[arguments.length - 1];
                        const others = allotReport.policies.slice(1);
                        const times = [];
                        (async () => {
                          for (const p of others) {
                            const s = performance.now();
                            await allotReport.setPolicy(p);
                            times.push(p + ' ' + Math.round(performance.now() - s));
                          }
                          done(times.join(', ') || 'none');
                        })();
                        """);
                System.out.printf("load %d: data read at %s ms, timeline first painted at %s ms, everything drawn at %s ms; "
                                + "%s runs drawn; timeline redraws %s ms; first switch to each other policy (ms): %s%n", i + 1,
                        browser.js("return allotReport.dataMs;"), browser.js("return allotReport.firstPaintMs;"),
                        browser.js("return allotReport.drawnMs;"), browser.js("return allotReport.timeline.barsDrawn();"), redraw,
                        switches);
            }
        }
    }
}
