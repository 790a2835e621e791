package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement with a generous bound, as the report's timing test: the queue page with {@value #WAITING} waiting
 * workloads (across the lab's two leaves, four users) in headless Chromium, against a real API and scheduling loop.
 * Prints how long the scheduler's first cycle over them took, how long {@code GET /v1/queue} took (server side, one
 * serving order for all of them) and its size, and when the page had its first rows drawn (milliseconds after
 * navigation, and after the data arrived); asserts only that the page is drawn within {@link #BOUND}.
 */
@ExtendWith(HeadlessChromium.class)
class DashboardQueueTimingTest {
    static final int WAITING = 10_000;
    static final Duration BOUND = Duration.ofSeconds(30);

    @TempDir
    Path dataDir;

    @Test
    void theQueuePageWithTenThousandWaitingWorkloadsIsDrawnInTime(HeadlessChromium browser) {
        MutableClock clock = new MutableClock(ApiFixture.NOW);
        try (ApiFixture api = ApiFixture.withSchedulingLoop(dataDir, clock)) {
            List<NewWorkload> batch = new ArrayList<>();
            String[][] who = {{ApiFixture.X, "member"}, {ApiFixture.X, "owner"}, {"lab/vision/detect", "ms-member"},
                {"lab/vision/detect", "ms"}};
            for (int i = 0; i < WAITING; i++) {
                String[] w = who[i % who.length];
                batch.add(new NewWorkload(w[0], w[1], 8, 0, 3600L, i % 5 == 0 ? 0 : 1800, true, Priority.NORMAL,
                        "train", List.of("sleep", "1"), new TreeMap<>(), ApiFixture.NOW.toEpochMilli() - WAITING + i,
                        null));
            }
            for (int from = 0; from < WAITING; from += 1000) {
                api.store.workloads().submitAll(batch.subList(from, from + 1000));
            }
            long t0 = System.nanoTime();
            api.loop.runOnce(); // one of them starts on gpu-01; the rest wait
            long cycleMs = (System.nanoTime() - t0) / 1_000_000;
            t0 = System.nanoTime();
            ApiFixture.Response q = api.get("/v1/queue", "tok-member");
            long apiMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(q.json().path("entries").size()).isEqualTo(WAITING - 1);

            String base = "http://localhost:" + api.server.port();
            browser.open(base + "/signin?next=/nodes");
            browser.one("#token").sendKeys("tok-member");
            browser.one("#signin-button").click();
            browser.waitFor("document.body.dataset.ready === 'true'", Duration.ofSeconds(15));
            browser.open(base + "/queue");
            browser.waitFor("document.body.dataset.ready === 'true'", BOUND);
            long drawnMs = ((Number) browser.js("return Math.round(performance.now());")).longValue();
            String sinceData = (String) browser.js("return document.body.dataset.renderedMs;");
            int rows = ((Number) browser.js("return document.querySelectorAll('#queue tbody tr').length;")).intValue();
            browser.click("#more");
            long t1 = System.nanoTime();
            browser.waitFor("document.querySelectorAll('#queue tbody tr').length === " + (2 * rows), BOUND);
            long moreMs = (System.nanoTime() - t1) / 1_000_000;
            System.out.printf(java.util.Locale.ROOT, "queue with %,d waiting: first scheduling cycle %,d ms; GET /v1/queue"
                            + " %,d ms (%,d KiB); page ready %,d ms after navigation (%s ms after the request was"
                            + " sent, rows drawn: %d); next %d rows %,d ms%n", WAITING - 1, cycleMs, apiMs,
                    q.json().toString().length() / 1024, drawnMs, sinceData, rows, rows, moreMs);
            assertThat(browser.text("#c-waiting .v")).isEqualTo("9,999");
            assertThat(rows).isEqualTo(500);
            assertThat(Duration.ofMillis(drawnMs)).isLessThan(BOUND);
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }
}
