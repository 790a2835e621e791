package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new service on the simulated backend, whose nodes nobody has registered yet: the scheduling loop cannot load
 * (nothing to schedule on), so submitted work waits without a place. The user who asks why must be told what the
 * scheduler waits for and how it comes, not that the work "is taken in at the scheduler's next cycle", which never
 * comes; once an administrator registers a node, the work gets its place and the note goes.
 */
class ClusterWithoutNodesStoryTest {
    @TempDir
    Path dataDir;

    final MutableClock clock = new MutableClock(ApiFixture.NOW);
    ApiFixture api;

    @BeforeEach
    void aServiceWhoseNodesAreNotRegisteredYet() {
        api = ApiFixture.withSchedulingLoopAndNoNodes(dataDir, clock);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private JsonNode get(String path) {
        ApiFixture.Response r = api.get(path, "tok-member");
        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        return r.json();
    }

    @Test
    void workSubmittedBeforeAnyNodeIsToldTheSchedulerWaitsForANodeUntilOneIsRegistered() {
        // given member's workload, submitted while no node is registered, and a few scheduling cycles
        ApiFixture.Response submitted = api.submit("member", body("gpusPerNode", "0"));
        assertThat(submitted.status()).as("%s", submitted.json()).isEqualTo(201);
        String id = submitted.json().path("id").asText();
        api.loop.runOnce();
        api.loop.runOnce();

        // then its explanation says what the scheduler waits for and how a node comes, not "the next cycle"
        String why = get("/v1/workloads/" + id + "/explain").path("summary").get(0).asText();
        assertThat(why).startsWith(id + " is pending; the scheduler has not started: it waits for a node: none is"
                + " registered yet").contains("PUT /v1/nodes/NAME", "allot nodes").doesNotContain("next cycle");
        // and the queue (the dashboard's queue page, allot queue) says it once for all its waiting work
        JsonNode queue = get("/v1/queue");
        assertThat(queue.path("seenByScheduler").asBoolean()).isFalse();
        assertThat(queue.path("entries").get(0).path("position").isNull()).isTrue();
        assertThat(queue.path("schedulerAwaits").asText()).startsWith("the scheduler has not started: it waits for a"
                + " node: none is registered yet");

        // when an administrator registers a node, the next cycle loads and the work has its place
        ApiFixture.Response node = api.put("/v1/nodes/gpu-01", "tok-root", "{\"gpus\": 8}");
        assertThat(node.status()).as("%s", node.json()).isEqualTo(201);
        api.loop.runOnce();
        queue = get("/v1/queue");
        assertThat(queue.path("seenByScheduler").asBoolean()).isTrue();
        assertThat(queue.path("schedulerAwaits").isNull()).isTrue();
        assertThat(get("/v1/workloads/" + id + "/explain").path("summary").get(0).asText())
                .doesNotContain("has not started");
    }
}
