package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard of the whole service, as {@code allot serve --backend simulated} starts it ({@link Service#start}: the
 * store, the scheduling loop, the scripted backend, the API and the pages on one port), in headless Chromium: a
 * member signs in on the sign-in page and each page shows what the API answers that member.
 *
 * <p>The story (the tree {@code lab} > {@code a}, {@code b}; one node n1 of 8 GPUs): bob's 8-GPU job of lab/b
 * (protected 1h) starts; alice's 4-GPU job of lab/a and bob's unallocated 1-GPU job wait.
 */
@ExtendWith(HeadlessChromium.class)
class DashboardServiceBrowserTest {
    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void aMemberSeesTheQueueNodesAndTimelineTheServiceAnswers(HeadlessChromium browser) throws Exception {
        ServiceTestSupport.seed(dir);
        try (Store s = Store.sqlite(dir)) {
            s.nodes().putNode(new Node("n1", 8, true, null, T0.toEpochMilli()));
        }
        MutableClock clock = new MutableClock(T0);
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofHours(1));
        try (Service service = Service.start(config, clock)) {
            String running = submit(service, "tok-bob", "lab/b", 8, "1h");
            service.loop().runOnce();
            String waiting = submit(service, "tok-alice", "lab/a", 4, "1h");
            String free = submit(service, "tok-bob", "lab/b", 1, "0s");
            clock.advance(Duration.ofMinutes(10));
            service.loop().runOnce();

            browser.clearCookies();
            browser.signIn(service.url(), "tok-bob", "/queue");
            browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
            assertThat(browser.text("#whoami")).isEqualTo("bob (member)");
            JsonNode queue = get(service, "tok-bob", "/v1/queue");
            List<String> ids = new ArrayList<>();
            queue.path("entries").forEach(e -> ids.add(e.path("id").asText()));
            assertThat(ids).containsExactly(waiting, free);
            assertThat(browser.all("#queue tbody tr").stream().map(r -> r.getAttribute("data-id")).toList())
                    .containsExactlyElementsOf(ids);
            for (JsonNode e : queue.path("entries")) {
                String row = "#queue tbody tr[data-id='" + e.path("id").asText() + "'] ";
                assertThat(browser.text(row + ".pos")).isEqualTo(e.path("position").asText());
                assertThat(browser.text(row + ".alloc")).isEqualTo(e.path("allocation").asText());
                assertThat(browser.text(row + ".gpus")).isEqualTo(e.path("gpus").asText());
            }

            browser.open(service.url() + "/nodes");
            browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
            assertThat(browser.text("#nodes")).contains("n1");

            browser.open(service.url() + "/workloads/" + running);
            browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
            assertThat(browser.all("#attempts tbody tr")).hasSize(
                    get(service, "tok-bob", "/v1/workloads/" + running).path("attempts").size()).hasSize(1);

            browser.open(service.url() + "/timeline");
            browser.waitFor("window.allotTimeline && (allotTimeline.ready || allotTimeline.error)", WAIT);
            assertThat(browser.js("return allotTimeline.error;")).isNull();
            assertThat(browser.number("allotTimeline.runs")).isEqualTo(1);
            assertThat(browser.number("allotTimeline.timeline.barsDrawn()")).isEqualTo(8);
            // a service ten minutes old, seen over 24 hours: the first view starts shortly before its first run
            long end = browser.number("allotTimeline.timeline.range()[1]");
            long start = browser.number("allotTimeline.timeline.range()[0]");
            assertThat(end).isEqualTo(86_400);
            assertThat(start).isBetween(86_400L - 11 * 60 - 60, 86_400L - 10 * 60);
            HeadlessChromium.Screenshot shot = browser.screenshot(Path.of("target", "dashboard-service", "timeline.png"));
            assertThat(shot.distinctColours()).isGreaterThan(50);
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    private static String submit(Service service, String token, String allocation, int gpus, String minRuntime)
            throws Exception {
        String body = "{\"allocation\": \"" + allocation + "\", \"gpus\": " + gpus + ", \"minRuntime\": \"" + minRuntime
                + "\", \"resumable\": true, \"priority\": \"normal\", \"duration\": \"1d\","
                + " \"command\": [\"true\"]}";
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(service.url() + "/v1/workloads"))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return ServiceTestSupport.JSON.readTree(r.body()).path("id").asText();
    }

    private static JsonNode get(Service service, String token, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(service.url() + path))
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return ServiceTestSupport.JSON.readTree(r.body());
    }
}
