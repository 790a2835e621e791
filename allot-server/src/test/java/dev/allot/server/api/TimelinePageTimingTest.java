package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.core.model.Priority;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Workload;
import dev.allot.server.testing.HeadlessChromium;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement more than a check: the GPU timeline page for 1,024 nodes x 8 GPUs with a day of runs (each node's
 * GPUs in two 4-GPU gangs, each running back-to-back attempts of 2 to 8 hours, the last still running), in headless
 * Chromium against a real server. Prints how long seeding took, the answer's size and how long the server took to
 * write it, when the page first painted, how long redrawing takes when zoomed and at other row heights, and how long
 * one refresh (fetch, decode, draw) takes. It asserts only generous bounds, so that it fails when the page is broken
 * or unusably slow, not on a slow machine. Seeding the store takes some 23,000 transactions (13 s on a quiet machine, minutes on a busy one), so it
 * runs only when asked: {@code mvn -B -o -q -pl allot-server -am test -Dtest=TimelinePageTimingTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtimeline.timing=true}.
 */
@EnabledIfSystemProperty(named = "timeline.timing", matches = "true")
class TimelinePageTimingTest {
    private static final int NODES = 1024;
    private static final long HOUR_MS = 3_600_000L;
    private static final Duration BOUND = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    @Test
    void aDayOfAThousandNodes() throws Exception {
        try (ApiFixture api = new ApiFixture(dataDir)) {
            long seedStart = System.nanoTime();
            int attempts = seed(api);
            long seedMs = (System.nanoTime() - seedStart) / 1_000_000;
            String origin = "http://localhost:" + api.server.port();

            HttpClient http = HttpClient.newHttpClient();
            long askStart = System.nanoTime();
            HttpResponse<byte[]> answer = http.send(HttpRequest.newBuilder(URI.create(origin + "/v1/timeline?hours=24"))
                    .header("Authorization", "Bearer tok-member").build(), HttpResponse.BodyHandlers.ofByteArray());
            long askMs = (System.nanoTime() - askStart) / 1_000_000;
            assertThat(answer.statusCode()).isEqualTo(200);

            try (HeadlessChromium browser = HeadlessChromium.launch()) {
                browser.signIn(origin, "tok-member", "/timeline");
                browser.waitFor("window.allotTimeline && (allotTimeline.ready || allotTimeline.error)", BOUND);
                assertThat(browser.js("return allotTimeline.error;")).isNull();
                assertThat(browser.consoleErrors()).isEmpty();
                assertThat(browser.number("allotTimeline.runs")).isEqualTo(attempts);
                assertThat(browser.number("allotTimeline.timeline.rows()")).isEqualTo(NODES * 8L + 16);
                long firstPaintMs = browser.number("allotTimeline.firstPaintMs");
                Object redraws = browser.js("""
                        const t = allotTimeline.timeline;
                        const times = [];
                        for (const step of [() => t.draw(), () => t.setRowHeight(1), () => t.zoom(0.25),
                                            () => t.setRowHeight(4), () => t.setRange(0, 86400), () => t.setRowHeight(0)]) {
                          const s = performance.now();
                          step();
                          times.push(Math.round(performance.now() - s));
                        }
                        return times.join('/');
                        """);
                Object refreshMs = browser.jsAsync("""
                        const done = arguments[arguments.length - 1];
                        const s = performance.now();
                        allotTimeline.refresh().then(() => done(Math.round(performance.now() - s)), (e) => done('failed: ' + e));
                        """);
                assertThat(refreshMs).isInstanceOf(Number.class);
                assertThat(((Number) refreshMs).longValue()).isLessThan(BOUND.toMillis());
                long bars = browser.number("allotTimeline.timeline.barsDrawn()");
                assertThat(bars).isPositive();
                assertThat(browser.pixels("#tl-canvas", "coloured")).isGreaterThan(100_000);
                browser.screenshot(Path.of("target", "timeline-page", "timeline-1024-nodes.png"));
                System.out.printf("timeline of %,d nodes x 8 GPUs, %,d attempts in the last day: seeded in %,d ms;"
                                + " GET /v1/timeline %,d KiB in %,d ms; page first painted %,d ms after navigation;"
                                + " %,d bars drawn at fit-all; redraws (draw/row 1/zoom/row 4/whole day/fit) %s ms;"
                                + " one refresh (fetch, decode, draw) %s ms%n",
                        NODES, attempts, seedMs, answer.body().length / 1024, askMs, firstPaintMs, bars, redraws,
                        refreshMs);
                assertThat(firstPaintMs).isLessThan(BOUND.toMillis());
            }
        }
    }

    /** Registers the nodes and writes their day of attempts; returns how many attempts ran in the window. */
    private static int seed(ApiFixture api) {
        long now = ApiFixture.NOW.toEpochMilli();
        long since = now - 24 * HOUR_MS;
        SplittableRandom random = new SplittableRandom(16);
        record Planned(String node, List<Integer> gpus, long startMillis, Long endMillis) {
        }
        List<Planned> plan = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            String node = String.format("n%04d", n);
            api.store.nodes().putNode(new Node(node, 8, true, null, since - HOUR_MS));
            for (int gang = 0; gang < 2; gang++) {
                List<Integer> gpus = gang == 0 ? List.of(0, 1, 2, 3) : List.of(4, 5, 6, 7);
                long t = since - random.nextLong(4 * HOUR_MS);
                while (t < now) {
                    long end = t + 2 * HOUR_MS + random.nextLong(6 * HOUR_MS);
                    plan.add(new Planned(node, gpus, t, end < now ? end : null));
                    t = end;
                }
            }
        }
        List<Workload> workloads = new ArrayList<>();
        for (int from = 0; from < plan.size(); from += 1000) {
            List<NewWorkload> batch = new ArrayList<>();
            for (Planned p : plan.subList(from, Math.min(plan.size(), from + 1000))) {
                batch.add(new NewWorkload(random.nextBoolean() ? ApiFixture.X : "lab/vision/detect", "member", 4, 4,
                        8 * 3600L, random.nextInt(3) == 0 ? 0 : 3600, true, Priority.NORMAL, "train", List.of("train"),
                        new TreeMap<>(), p.startMillis() - HOUR_MS, null));
            }
            workloads.addAll(api.store.workloads().submitAll(batch));
        }
        for (int i = 0; i < plan.size(); i++) {
            Planned p = plan.get(i);
            AttemptKey key = api.store.attempts().beginAttempt(workloads.get(i).id(),
                    List.of(new Launch.NodeGpus(p.node(), p.gpus())), p.startMillis());
            if (p.endMillis() != null) {
                api.store.attempts().endAttempt(key, i % 5 == 0 ? AttemptOutcome.PREEMPTED : AttemptOutcome.COMPLETED,
                        null, null, null, p.endMillis());
            }
        }
        return (int) plan.stream().filter(p -> p.endMillis() == null || p.endMillis() > since).count();
    }
}
