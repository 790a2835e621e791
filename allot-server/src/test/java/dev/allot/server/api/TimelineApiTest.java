package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.NOW;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.AttemptOutcome;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v1/timeline} and the page that draws it, against a real server over the fixture's lab, with attempts
 * and changes of node health written through the store at chosen times (the clock is fixed at {@link ApiFixture#NOW};
 * the default window is the 24 hours before it).
 *
 * <p>The story, in hours before now: w-1 (8 GPUs, 2h minimum runtime) ran on gpu-01 from 30 to 26, before the
 * window, and was requeued; again from 25 to 10, when it was preempted for w-2; w-2 (unallocated) has run there since 10. gpu-02,
 * unhealthy at the window's start, was healthy from 20 to 14; w-3 (4 GPUs, 1h minimum runtime) ran on its GPUs 2-5
 * from 19 to 12, past the node turning unhealthy at 14, so the node counts as drained from 12.
 */
class TimelineApiTest {
    private static final long HOUR_MS = 3_600_000L;
    private static final long DAY = 86_400;

    @TempDir
    Path dataDir;

    ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture(dataDir);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static long hoursAgo(double h) {
        return NOW.toEpochMilli() - Math.round(h * HOUR_MS);
    }

    private String submit(String... fields) {
        Response r = api.submit("member", body(fields));
        assertThat(r.status()).as(r.json().toString()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private void run(String id, String node, List<Integer> gpus, double fromHoursAgo, Double toHoursAgo,
                     AttemptOutcome outcome, String preemptor) {
        AttemptKey key = api.store.attempts().beginAttempt(id, List.of(new Launch.NodeGpus(node, gpus)),
                hoursAgo(fromHoursAgo));
        if (toHoursAgo != null) {
            api.store.attempts().endAttempt(key, outcome, outcome == AttemptOutcome.PREEMPTED ? "stopped: fair share" : null,
                    preemptor, null, hoursAgo(toHoursAgo));
        }
    }

    private void story() {
        String w1 = submit("gpus", "8", "gpusPerNode", "8", "minRuntime", "\"2h\"");
        String w2 = submit("gpus", "8", "gpusPerNode", "8", "minRuntime", "\"0s\"", "duration", null, "kind", "\"sweep\"");
        String w3 = submit("gpus", "4", "gpusPerNode", "4", "minRuntime", "\"1h\"");
        List<Integer> all = List.of(0, 1, 2, 3, 4, 5, 6, 7);
        run(w1, "gpu-01", all, 30, 26.0, AttemptOutcome.REQUEUED, w2);
        run(w1, "gpu-01", all, 25, 10.0, AttemptOutcome.PREEMPTED, w2);
        run(w2, "gpu-01", all, 10, null, null, null);
        api.store.nodes().setHealth("gpu-02", true, null, hoursAgo(20), "root");
        run(w3, "gpu-02", List.of(5, 2, 3, 4), 19, 12.0, AttemptOutcome.COMPLETED, null);
        api.store.nodes().setHealth("gpu-02", false, "fan failure", hoursAgo(14), "root");
    }

    /** The runs of an answer decoded: workload id, start, end, protected seconds, end kind, preemptor id, slots. */
    private static List<String> runs(JsonNode v) {
        JsonNode t = v.path("timeline");
        JsonNode ids = v.path("workloads").path("ids");
        List<String> out = new ArrayList<>();
        long start = 0;
        int slot = 0;
        for (int r = 0; r < t.path("runs").asInt(); r++) {
            start += t.path("startDelta").get(r).asLong();
            StringBuilder where = new StringBuilder();
            for (int p = 0; p < t.path("parts").get(r).asInt(); p++, slot += 3) {
                where.append(t.path("slots").get(slot).asInt()).append(':').append(t.path("slots").get(slot + 1).asInt())
                        .append('+').append(t.path("slots").get(slot + 2).asInt()).append(' ');
            }
            int preemptor = t.path("preemptor").get(r).asInt();
            out.add(ids.get(t.path("workload").get(r).asInt()).asText() + " " + start + "-"
                    + (start + t.path("durationSeconds").get(r).asLong()) + " protected " + t.path("protectedSeconds").get(r)
                    + " " + List.of("completed", "preempted", "requeued", "running", "failed", "cancelled", "lost")
                    .get(t.path("end").get(r).asInt()) + (preemptor < 0 ? "" : " for " + ids.get(preemptor).asText())
                    + " on " + where.toString().trim());
        }
        return out;
    }

    private static List<String> periods(JsonNode v) {
        JsonNode t = v.path("timeline");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < t.path("periodNode").size(); i++) {
            out.add(v.path("nodes").path("names").get(t.path("periodNode").get(i).asInt()).asText() + " "
                    + (t.path("periodState").get(i).asInt() == 0 ? "unhealthy" : "drained") + " "
                    + t.path("periodFromSeconds").get(i).asLong() / 3600 + "h-" + t.path("periodToSeconds").get(i).asLong() / 3600 + "h");
        }
        return out;
    }

    @Test
    void theLastDayOfTheClusterInTheReportsFormat() {
        story();
        Response r = api.get("/v1/timeline", "tok-outsider");
        assertThat(r.status()).as(r.json().toString()).isEqualTo(200);
        JsonNode v = r.json();
        assertThat(v.path("originSeconds").asLong()).isEqualTo(NOW.getEpochSecond() - DAY);
        assertThat(v.path("endSeconds").asLong()).isEqualTo(DAY);
        assertThat(v.path("since").asText()).isEqualTo("2026-02-28T09:00:00.000Z");
        assertThat(v.path("nodes").path("names").toString()).isEqualTo("[\"gpu-01\",\"gpu-02\"]");
        assertThat(v.path("nodes").path("gpus").toString()).isEqualTo("[8,8]");
        assertThat(v.path("workloads").path("ids").toString()).isEqualTo("[\"w-1\",\"w-3\",\"w-2\"]");
        // Leaves in path order: lab/nlp/pretrain is leaf 0, lab/vision/detect leaf 1.
        assertThat(v.path("workloads").path("allocation").toString()).isEqualTo("[0,0,0]");
        assertThat(v.path("workloads").path("durationSeconds").toString()).isEqualTo("[21600,21600,-1]");
        assertThat(v.path("workloads").path("submitSeconds").toString()).isEqualTo("[86400,86400,86400]");
        assertThat(v.path("workloads").path("kinds").toString()).isEqualTo("[\"sweep\",\"train\"]");

        // Clipped to the window: w-1's run from 25h ago starts at 0, still protected for the hour left of its 2h.
        assertThat(runs(v)).containsExactly(
                "w-1 0-50400 protected 3600 preempted for w-2 on 0:0+8",
                "w-3 18000-43200 protected 3600 completed on 1:2+4",
                "w-2 50400-86400 protected 0 running on 0:0+8");
        assertThat(v.path("notes").toString()).isEqualTo(
                "[\"attempt 2, preempted: stopped: fair share (for w-2)\",\"attempt 1, completed\",\"attempt 1, launching\"]");
        assertThat(v.path("timeline").path("cause").toString()).isEqualTo("[-1,-1,-1]");

        assertThat(periods(v)).containsExactly(
                "gpu-02 unhealthy 0h-4h", "gpu-02 drained 0h-4h", "gpu-02 unhealthy 10h-24h", "gpu-02 drained 12h-24h");

        JsonNode tree = v.path("allocations");
        assertThat(tree.get(0).path("path").asText()).isEqualTo("lab");
        assertThat(tree.get(0).path("leaf").asBoolean()).isFalse();
        assertThat(tree.findValuesAsText("name")).containsExactly("lab", "nlp", "pretrain", "vision", "detect");
        assertThat(tree.get(2).path("entitlement").asDouble()).isCloseTo(2.0 / 3, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void aShorterWindowLeavesOutWhatEndedBeforeIt() {
        story();
        JsonNode v = api.get("/v1/timeline?hours=11", "tok-member").json();
        assertThat(v.path("endSeconds").asLong()).isEqualTo(11 * 3600);
        assertThat(runs(v)).containsExactly(
                "w-1 0-3600 protected 0 preempted for w-2 on 0:0+8",
                "w-2 3600-39600 protected 0 running on 0:0+8");
        // No change of gpu-02's health in the window: unhealthy all along, as it is now, and empty.
        assertThat(periods(v)).containsExactly("gpu-02 unhealthy 0h-11h", "gpu-02 drained 0h-11h");
    }

    @Test
    void aRunInsideItsMinimumRuntimeIsProtectedThroughout() {
        String w = submit("minRuntime", "\"2h\"", "gpus", "8", "gpusPerNode", "8");
        run(w, "gpu-01", List.of(0, 1, 2, 3, 4, 5, 6, 7), 1, null, null, null);
        assertThat(runs(api.get("/v1/timeline?hours=1", "tok-member").json()))
                .containsExactly("w-1 0-3600 protected -1 running on 0:0+8");
        assertThat(runs(api.get("/v1/timeline?hours=3", "tok-member").json()))
                .containsExactly("w-1 7200-10800 protected -1 running on 0:0+8");
    }

    @Test
    void anEmptyClusterHasAnEmptyTimeline() {
        JsonNode v = api.get("/v1/timeline?hours=168", "tok-member").json();
        assertThat(v.path("endSeconds").asLong()).isEqualTo(7 * DAY);
        assertThat(v.path("timeline").path("runs").asInt()).isZero();
        assertThat(v.path("workloads").path("ids").size()).isZero();
        // gpu-02 was made unhealthy unaudited, before the window: unhealthy (and empty) all along.
        assertThat(periods(v)).containsExactly("gpu-02 unhealthy 0h-168h", "gpu-02 drained 0h-168h");
    }

    @Test
    void badWindowsAreRefusedNamingTheParameter() {
        for (String q : List.of("hours=0", "hours=745", "hours=-1", "hours=x", "hours=1.5", "hours=", "hours=1&hours=2",
                "hours=99999999999999999999")) {
            Response r = api.get("/v1/timeline?" + q, "tok-member");
            assertThat(r.status()).as(q).isEqualTo(400);
            assertThat(r.field()).as(q).isEqualTo("hours");
        }
        Response r = api.get("/v1/timeline?since=1d", "tok-member");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.field()).isEqualTo("since");
        assertThat(api.get("/v1/timeline", null).status()).isEqualTo(401);
        assertThat(api.get("/v1/timeline", "tok-nobody").status()).isEqualTo(401);
    }

    @Test
    void thePageItsStylesAndItsScriptAreServedWithoutSignIn() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        Map<String, List<String>> typeAndContent = Map.of(
                "/timeline", List.of("text/html", "<canvas id=\"tl-canvas\">", "<link rel=\"stylesheet\" href=\"/timeline.css\">"),
                "/timeline.css", List.of("text/css", "#tl-canvas {", ".tip {"),
                "/timeline.js", List.of("text/javascript", "createTimeline(M, P)"));
        for (String path : List.of("/timeline", "/timeline.css", "/timeline.js")) {
            java.net.http.HttpResponse<String> page = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://localhost:" + api.server.port() + path)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).as(path).isEqualTo(200);
            List<String> expected = typeAndContent.get(path);
            assertThat(page.headers().firstValue("Content-Type").orElse("")).as(path).startsWith(expected.get(0));
            assertThat(page.headers().firstValue("Content-Security-Policy").orElse("")).contains("script-src 'self'");
            assertThat(page.body()).as(path).contains(expected.subList(1, expected.size())).doesNotContain("{{");
        }
        String js = TimelinePage.script();
        assertThat(js).contains("function createTimeline(", "function readModel(", "Allot.signedIn()",
                "Allot.api('/v1/timeline?hours='");
        assertThat(js).startsWith("(function () {").endsWith("})();\n");
    }
}
