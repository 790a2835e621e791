package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dashboard's read endpoints against a real scheduling loop: {@code GET /v1/queue} (the serving order and the
 * fair-share levels, the same as each workload's explanation), {@code GET /v1/drains}, and the usage's owed and paid
 * numbers. The story is {@link ExplainApiTest}'s: detect (8 GPUs, 1h) starts at 09:00 on gpu-01, the only healthy
 * node; pretrain (8 GPUs) waits for its protection and preempts it at 10:00.
 */
class QueueApiTest {
    private static final String DETECT = "lab/vision/detect";

    @RegisterExtension
    final LoopApiExtension fx = new LoopApiExtension();

    private String submit(String user, String body) {
        ApiFixture.Response r = fx.api.submit(user, body);
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private JsonNode get(String path, String user) {
        ApiFixture.Response r = fx.api.get(path, "tok-" + user);
        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        return r.json();
    }

    private String detect() {
        return submit("ms-member", body("allocation", "\"" + DETECT + "\"", "gpusPerNode", "0", "minRuntime", "\"1h\"",
                "duration", "\"1d\""));
    }

    @Test
    void aBatchSubmittedWithinOneSecondWaitsAndStartsInTheOrderGiven() {
        // given 12 workloads of 8 GPUs in one batch (one second on the fixture's clock), w-1 .. w-12, one 8-GPU node
        List<String> items = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            items.add(body("gpus", "8", "gpusPerNode", "0", "duration", "\"1h\"", "minRuntime", "\"1h\""));
        }
        ApiFixture.Response r = fx.api.post("/v1/workloads/batch", "tok-member",
                BatchSubmissionTest.batch(items.toArray(String[]::new)));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        List<String> given = new ArrayList<>();
        r.json().path("workloads").forEach(w -> given.add(w.path("id").asText()));
        fx.loop.runOnce();

        // then the first runs and the rest wait in the order given: w-2 before w-10 (the core's tie-break on ids
        // put "w-10" before "w-2")
        JsonNode q = get("/v1/queue", "member");
        List<String> waiting = new ArrayList<>();
        q.path("entries").forEach(e -> waiting.add(e.path("id").asText()));
        assertThat(waiting).containsExactlyElementsOf(given.subList(1, given.size()));
        assertThat(get("/v1/workloads/" + given.get(0), "member").path("workload").path("state").asText()).isEqualTo("running");
    }

    @Test
    void theQueueIsTheServingOrderWithEachAllocationsLevelsAsTheExplanationsGiveThem() {
        String running = detect();
        fx.loop.runOnce();
        String a = submit("member", body("gpus", "4", "gpusPerNode", "0"));
        String b = submit("ms-member", body("allocation", "\"" + DETECT + "\"", "gpus", "2", "gpusPerNode", "0"));
        String c = submit("owner", body("gpus", "2", "gpusPerNode", "0"));
        fx.loop.runOnce();
        String unseen = submit("owner", body("gpus", "1", "gpusPerNode", "0"));

        JsonNode q = get("/v1/queue", "outsider");
        assertThat(q.path("seenByScheduler").asBoolean()).isTrue();
        assertThat(q.path("at").asText()).isEqualTo("2026-03-01T09:00:00.000Z");
        assertThat(q.path("waiting").asInt()).isEqualTo(4);
        List<String> ids = new ArrayList<>();
        q.path("entries").forEach(e -> ids.add(e.path("id").asText()));
        assertThat(ids).containsExactlyInAnyOrder(a, b, c, unseen).doesNotContain(running).endsWith(unseen);
        for (JsonNode e : q.path("entries")) {
            if (e.path("id").asText().equals(unseen)) {
                assertThat(e.path("position").isNull()).as("not yet seen by the scheduler").isTrue();
                continue;
            }
            JsonNode x = get("/v1/workloads/" + e.path("id").asText() + "/explain", "outsider").path("data");
            assertThat(e.path("position").asInt()).isEqualTo(x.path("queue").path("position").asInt());
            assertThat(e.path("positionInAllocation").asInt()).isEqualTo(x.path("queue").path("positionInAllocation")
                    .asInt());
            assertThat(q.path("levels").path(e.path("allocation").asText())).isEqualTo(x.path("fairShare"));
        }
        assertThat(q.path("entries").get(0).path("position").asInt()).isEqualTo(1);
        assertThat(q.path("entries").toString()).doesNotContain("train.py"); // no command, for anyone

        JsonNode owner = get("/v1/queue?user=owner", "member");
        assertThat(owner.path("entries").size()).isEqualTo(2);
        assertThat(owner.path("entries").get(0).path("id").asText()).isEqualTo(c);
        assertThat(owner.path("entries").get(0).path("position").asInt())
                .as("positions stay those of the whole queue").isEqualTo(ids.indexOf(c) + 1);
        assertThat(get("/v1/queue?allocation=lab/vision", "member").path("entries").size()).isEqualTo(1);
        assertThat(get("/v1/queue?state=held", "member").path("entries").size()).isZero();
        assertThat(fx.api.get("/v1/queue?state=running", "tok-member").field()).isEqualTo("state");
        // a mistyped allocation is an error naming the tree's paths, not an empty queue
        ApiFixture.Response typo = fx.api.get("/v1/queue?allocation=lab/visoin", "tok-member");
        assertThat(typo.status()).isEqualTo(400);
        assertThat(typo.field()).isEqualTo("allocation");
        assertThat(typo.json().path("error").asText()).contains("unknown allocation 'lab/visoin'");
        assertThat(typo.json().path("hint").asText()).contains("lab/vision");
        assertThat(fx.api.get("/v1/queue?limit=3", "tok-member").field()).isEqualTo("limit");
        assertThat(fx.api.get("/v1/queue", null).status()).isEqualTo(401);
    }

    @Test
    void beforeTheSchedulerLoadsTheQueueHasNoPositions() {
        String w = submit("member", body());
        JsonNode q = get("/v1/queue", "member");
        assertThat(q.path("seenByScheduler").asBoolean()).isFalse();
        assertThat(q.path("entries").get(0).path("id").asText()).isEqualTo(w);
        assertThat(q.path("entries").get(0).path("position").isNull()).isTrue();
        assertThat(get("/v1/drains", "member").path("seenByScheduler").asBoolean()).isFalse();
    }

    @Test
    void drainsTellWhatStillRunsOnAnUnhealthyNodeAndWhenItsProtectionEnds() {
        String running = detect();
        fx.loop.runOnce();
        fx.clock.advance(Duration.ofMinutes(20));
        assertThat(fx.api.post("/v1/nodes/gpu-01/health", "tok-root", "{\"healthy\": false, \"reason\": \"ECC\"}").status())
                .isEqualTo(200);
        fx.loop.runOnce();
        JsonNode d = get("/v1/drains", "member");
        assertThat(d.path("seenByScheduler").asBoolean()).isTrue();
        assertThat(d.path("nodes").toString()).isEqualTo("[{\"node\":\"gpu-01\",\"status\":\"draining\",\"reason\":\"ECC\","
                + "\"gpus\":8,\"workloads\":[\"" + running + "\"],\"completesAt\":\"2026-03-01T10:00:00.000Z\"},"
                + "{\"node\":\"gpu-02\",\"status\":\"drained\",\"reason\":\"fan failure\",\"gpus\":8,\"workloads\":[],"
                + "\"completesAt\":null}]");
        assertThat(fx.api.get("/v1/drains?x=1", "tok-member").status()).isEqualTo(400);
    }

    @Test
    void usageTellsWhatEachAllocationWasOwedHourByHourAndHowMuchOfItWasPaid() {
        detect();
        fx.loop.runOnce();
        submit("member", body("gpusPerNode", "0", "minRuntime", "\"2h\"", "duration", "\"1d\""));
        fx.loop.runOnce();
        fx.clock.advance(Duration.ofHours(1));
        fx.loop.runOnce(); // pretrain preempts detect at 10:00
        fx.clock.advance(Duration.ofHours(1));
        JsonNode usage = get("/v1/allocations/usage?since=2h&step=1h", "member");
        // 16 registered GPUs; detect is entitled to 1/3 (5.33 GPUs), pretrain to 2/3 (10.67); both asked for 8 all along
        JsonNode detect = row(usage, DETECT);
        assertThat(detect.path("gpuSeconds").asDouble()).isEqualTo(8 * 3600.0);
        assertThat(detect.path("owedGpuSeconds").asDouble()).isCloseTo(2 * 16 * 3600 / 3.0, within(1e-6));
        assertThat(detect.path("paidFraction").asDouble()).isCloseTo(0.5, within(1e-12)); // paid its quota, then nothing
        assertThat(detect.path("series").get(0).path("owedGpuSeconds").asDouble()).isCloseTo(16 * 3600 / 3.0,
                within(1e-6));
        assertThat(detect.path("unallocatedGpuSeconds").asDouble()).isZero();
        JsonNode pretrain = row(usage, X);
        assertThat(pretrain.path("owedGpuSeconds").asDouble()).as("capped by what it asked for: 8 GPUs")
                .isEqualTo(2 * 8 * 3600.0);
        assertThat(pretrain.path("paidFraction").asDouble()).isCloseTo(0.5, within(1e-12)); // nothing, then all
        assertThat(pretrain.path("series").get(1).path("gpuSeconds").asDouble()).isEqualTo(8 * 3600.0);
        assertThat(row(usage, "lab").path("paidFraction").asDouble()).isCloseTo(0.5, within(1e-12));
        JsonNode windowOnly = get("/v1/allocations/usage?since=2h", "member");
        assertThat(row(windowOnly, X).path("series").isNull()).isTrue();
        assertThat(row(windowOnly, X).path("owedGpuSeconds").asDouble()).isEqualTo(2 * 8 * 3600.0);
    }

    @Test
    void unallocatedWorkIsReceivedButNeverOwedNorCharged() {
        submit("member", body("gpus", "1", "gpusPerNode", "0", "minRuntime", "\"0s\""));
        fx.loop.runOnce(); // starts at 09:00 on the idle gpu-01
        fx.clock.advance(Duration.ofMinutes(30));
        JsonNode usage = get("/v1/allocations/usage?since=1h&step=1h", "member");
        for (String path : List.of(X, "lab/nlp", "lab")) {
            JsonNode r = row(usage, path);
            assertThat(r.path("unallocatedGpuSeconds").asDouble()).as(path).isEqualTo(1800.0);
            assertThat(r.path("series").get(0).path("unallocatedGpuSeconds").asDouble()).isEqualTo(1800.0);
            assertThat(r.path("gpuSeconds").asDouble()).isZero();
            assertThat(r.path("owedGpuSeconds").asDouble()).isZero();
            assertThat(r.path("paidFraction").isNull()).as("nothing owed, nothing to pay").isTrue();
        }
        assertThat(row(usage, DETECT).path("unallocatedGpuSeconds").asDouble()).isZero();
    }

    private static JsonNode row(JsonNode usage, String path) {
        for (JsonNode r : usage.path("allocations")) {
            if (r.path("path").asText().equals(path)) {
                return r;
            }
        }
        throw new AssertionError("no row " + path);
    }
}
