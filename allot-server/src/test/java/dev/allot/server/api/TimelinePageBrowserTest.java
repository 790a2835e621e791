package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU timeline page ({@code /timeline}) in a real headless Chromium against a real server over the fixture's lab
 * (its clock moved by hand), signed in through the dashboard's sign-in page (the session cookie).
 *
 * <p>The story, in hours before now: w-1 (8 GPUs, 2h minimum runtime) ran on gpu-01 from 20 to 8, when it was
 * preempted (a red outline); since 8, w-2 (unallocated: hatched throughout) runs on its GPUs 0-3 and since 6, w-3 (1h
 * minimum runtime: hatched after its first hour) on GPUs 4-7. gpu-02 is unhealthy and empty all along (shaded).
 * Screenshots go to {@code target/timeline-page/}.
 */
@ExtendWith(HeadlessChromium.class)
class TimelinePageBrowserTest {
    private static final Path OUT = Path.of("target", "timeline-page");
    private static final Duration LOAD = Duration.ofSeconds(30);
    private static final long HOUR_MS = 3_600_000L;

    private static HeadlessChromium browser;

    @TempDir
    Path dataDir;

    final MutableClock clock = new MutableClock(ApiFixture.NOW);
    ApiFixture api;
    AttemptKey w2;

    @BeforeAll
    static void theBrowser(HeadlessChromium chromium) {
        browser = chromium;
    }

    @BeforeEach
    void startTheServer() {
        api = new ApiFixture(dataDir, clock, store -> WorkloadExplainer.NONE);
        String w1 = submit(8, "2h");
        String w2id = submit(4, "0s");
        String w3 = submit(4, "1h");
        AttemptKey k1 = begin(w1, List.of(0, 1, 2, 3, 4, 5, 6, 7), 20);
        api.store.attempts().endAttempt(k1, AttemptOutcome.PREEMPTED, "stopped: fair share", w2id, null, hoursAgo(8));
        w2 = begin(w2id, List.of(0, 1, 2, 3), 8);
        begin(w3, List.of(4, 5, 6, 7), 6);
    }

    @AfterEach
    void stopTheServer() {
        api.close();
    }

    private long hoursAgo(double h) {
        return clock.millis() - Math.round(h * HOUR_MS);
    }

    private String submit(int gpus, String minRuntime) {
        var r = api.submit("member", ApiFixture.body("gpus", String.valueOf(gpus), "gpusPerNode", String.valueOf(gpus),
                "minRuntime", "\"" + minRuntime + "\""));
        assertThat(r.status()).as(String.valueOf(r.json())).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private AttemptKey begin(String id, List<Integer> gpus, double hoursAgo) {
        return api.store.attempts().beginAttempt(id, List.of(new Launch.NodeGpus("gpu-01", gpus)), hoursAgo(hoursAgo));
    }

    /** Opens the page signed in as member, polling every second, and waits until it has drawn. */
    private void openSignedIn() {
        browser.clearCookies();
        browser.signIn("http://localhost:" + api.server.port(), "tok-member", "/timeline?poll=1");
        browser.waitFor("window.allotTimeline && (allotTimeline.ready || allotTimeline.error)", LOAD);
        assertThat(browser.js("return allotTimeline.error;")).as("the page's own error report").isNull();
    }

    @Test
    void thePageDrawsTheRunsOfTheLastDay() {
        openSignedIn();
        assertThat(browser.consoleErrors()).isEmpty();
        // inside the dashboard's frame, signed in as member
        assertThat(browser.text("nav.top a.active")).isEqualTo("Timeline");
        assertThat(browser.text("#whoami")).startsWith("member");
        assertThat(browser.number("allotTimeline.runs")).isEqualTo(3);
        // One bar per GPU per run: w-1 on 8 GPUs, w-2 and w-3 on 4 each.
        assertThat(browser.number("allotTimeline.timeline.barsDrawn()")).isEqualTo(16);
        assertThat(browser.number("allotTimeline.timeline.rows()")).isEqualTo(16);
        assertThat(browser.js("return allotTimeline.timeline.range();")).isEqualTo(List.of(0L, 86_400L));
        assertThat(browser.pixels("#tl-canvas", "coloured")).as("bars drawn").isGreaterThan(20_000);
        assertThat(browser.pixels("#tl-canvas", "red")).as("w-1's red outline").isGreaterThan(200);
        // gpu-02's rows (below gpu-01's 8) are shaded, not the plot's near-white background.
        long rowH = browser.number("allotTimeline.timeline.rowHeight()");
        @SuppressWarnings("unchecked")
        List<Number> rgb = (List<Number>) browser.js("""
                const c = document.getElementById('tl-canvas');
                const d = c.getContext('2d').getImageData(Math.round(c.width / 2), arguments[0], 1, 1).data;
                return [d[0], d[1], d[2]];
                """, 26 + 12 * rowH);
        assertThat(rgb).allSatisfy(v -> assertThat(v.intValue()).isLessThan(235));
        assertThat((String) browser.js("return document.getElementById('tl-legend').textContent;")).contains("pretrain");
        assertThat((String) browser.js("return document.getElementById('status').textContent;"))
                .contains("updated 03-01 09:00 UTC", "3 attempts, 3 workloads");
        assertThat((String) browser.js("return document.getElementById('tl-range').textContent;"))
                .isEqualTo("02-28 09:00 – 03-01 09:00 (1d), 16 GPUs");
        browser.screenshot(OUT.resolve("timeline.png"));
    }

    @Test
    void aNodeThatIsUnhealthyWhileAllItsGpusAreBusyStillShowsItAboveItsBars() {
        // given gpu-01, whose 8 GPUs w-2 and w-3 hold, made unhealthy two hours ago: its shading lies behind the bars
        api.store.nodes().setHealth("gpu-01", false, "ECC errors", hoursAgo(2));
        openSignedIn();
        // then its top edge is red where the bars cover the shading (it showed the bars' own colours alone)
        assertThat(pixel(Math.round(browser.number("document.getElementById('tl-canvas').width") - 20.0), 27))
                .satisfies(rgb -> assertThat(rgb.get(0).intValue()).as("red").isGreaterThan(190))
                .satisfies(rgb -> assertThat(rgb.get(1).intValue()).as("green").isLessThan(80))
                .satisfies(rgb -> assertThat(rgb.get(2).intValue()).as("blue").isLessThan(80));
    }

    @SuppressWarnings("unchecked")
    private List<Number> pixel(long x, long y) {
        return (List<Number>) browser.js("""
                const d = document.getElementById('tl-canvas').getContext('2d').getImageData(arguments[0], arguments[1],
                    1, 1).data;
                return [d[0], d[1], d[2]];
                """, x, y);
    }

    @Test
    void pollingPicksUpANewAttemptInPlaceKeepingTheZoom() {
        openSignedIn();
        browser.js("window.sameDocument = true; allotTimeline.timeline.setRange(3600, 7200);");
        long polls = browser.number("allotTimeline.polls");
        clock.advance(Duration.ofSeconds(30));
        api.store.attempts().endAttempt(w2, AttemptOutcome.COMPLETED, "exited with code 0", null, null, hoursAgo(0.01));
        String w4 = submit(4, "30m");
        begin(w4, List.of(0, 1, 2, 3), 0.005);
        browser.waitFor("allotTimeline.runs === 4 && allotTimeline.polls > " + polls, LOAD);
        assertThat(browser.js("return window.sameDocument === true;")).as("no reload").isEqualTo(true);
        // The window moved 30 s on; the view kept the same instants.
        assertThat(browser.js("return allotTimeline.timeline.range();")).isEqualTo(List.of(3570L, 7170L));
        browser.js("allotTimeline.timeline.setRange(0, 86400);");
        assertThat(browser.number("allotTimeline.timeline.barsDrawn()")).isEqualTo(20);
        assertThat(browser.consoleErrors()).isEmpty();
        browser.screenshot(OUT.resolve("timeline-after-refresh.png"));
    }

    @Test
    void theWindowSelectorShowsTheLastSevenDays() {
        openSignedIn();
        browser.js("const s = document.getElementById('window'); s.value = '168';"
                + " s.dispatchEvent(new Event('change'));");
        browser.waitFor("allotTimeline.timeline.range()[1] === 7 * 86400", LOAD);
        assertThat(browser.js("return allotTimeline.timeline.range();")).isEqualTo(List.of(0L, 604_800L));
        assertThat(browser.number("allotTimeline.timeline.barsDrawn()")).isEqualTo(16);
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void withoutSignInThePageLeadsToTheSignInPage() {
        String origin = "http://localhost:" + api.server.port();
        browser.open(origin + "/signin");
        browser.clearCookies();
        browser.open(origin + "/timeline");
        browser.waitFor("location.pathname === '/signin'", LOAD);
        assertThat(browser.url()).endsWith("/signin?next=%2Ftimeline");
        assertThat(browser.js("return window.allotTimeline ? allotTimeline.polls : 0;")).isEqualTo(0L);
    }
}
