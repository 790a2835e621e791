package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.CapturedLog;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A waiting workload whose shape no longer fits the cluster (an administrator set a node's GPUs lower under it) is
 * refused by the scheduler, which logged why. Its explanation said it was "not yet seen by the scheduler (it is taken
 * in at the scheduler's next cycle)", and could show a forecast start: it now says it cannot fit the cluster as it is
 * now, with the numbers, and what would let it run; the queue lists it so too ({@code cannotRun}), and so does the
 * workload ({@code GET /v1/workloads/{id}}'s {@code cannotRun}, which {@code allot show} prints).
 */
class ShrunkClusterExplainTest {
    @TempDir
    Path dataDir;

    private ApiFixture api;

    @AfterEach
    void stop() {
        if (api != null) {
            api.close();
        }
    }

    @Test
    void givenAWaitingWorkloadOf8Gpus_whenItsNodeIsSetTo4Gpus_thenItsExplanationSaysItCannotFitWithTheNumbersAndTheWayOut() {
        // given the lab's nodes gpu-01 and gpu-02 (unhealthy) of 8 GPUs, 6 GPUs running and 8 GPUs on one node waiting
        api = ApiFixture.withSchedulingLoop(dataDir, new MutableClock(ApiFixture.NOW));
        api.loop.runOnce();
        Response six = api.submit("member", ApiFixture.body("gpus", "6", "gpusPerNode", "0"));
        Response eight = api.submit("member", ApiFixture.body("gpus", "8", "gpusPerNode", "8"));
        assertThat(eight.status()).as("%s", eight.json()).isEqualTo(201);
        String id = eight.json().get("id").asText();
        api.loop.runOnce();

        // when an administrator sets both nodes to 4 GPUs
        assertThat(api.put("/v1/nodes/gpu-01", "tok-root", "{\"gpus\": 4}").status()).isEqualTo(200);
        assertThat(api.put("/v1/nodes/gpu-02", "tok-root", "{\"gpus\": 4}").status()).isEqualTo(200);
        api.loop.topologyChanged(); // as the service's API tells its loop
        api.loop.runOnce();

        // then the 8-GPU workload's explanation says it cannot fit, with the numbers and what would let it run
        Response r = api.get("/v1/workloads/" + id + "/explain", "tok-member");
        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        JsonNode summary = r.json().get("summary");
        String text = summary.toString();
        assertThat(text).doesNotContain("not yet seen by the scheduler").doesNotContain("next cycle");
        assertThat(summary.get(0).asText()).isEqualTo(id + " is pending; the scheduler cannot take it in, so it has no"
                + " queue position and will not start.");
        assertThat(summary.get(1).asText()).isEqualTo("It cannot fit the cluster as it is now: it asks for 8 GPUs as 1"
                + " whole node of 8, and the cluster has 8 GPUs on 2 nodes (the largest node has 4), 0 nodes with at"
                + " least 8 GPUs. It can run once the cluster has 1 node with 8 GPUs or more, or if it is resubmitted"
                + " asking for at most 4 GPUs per node.");
        assertThat(r.json().get("forecast").isNull()).isTrue();
        assertThat(six.status()).isEqualTo(201);
        // and the queue lists it without a position, saying the same, with no forecast start
        JsonNode entry = null;
        for (JsonNode e : api.get("/v1/queue", "tok-member").json().get("entries")) {
            if (e.get("id").asText().equals(id)) {
                entry = e;
            }
        }
        assertThat(entry).isNotNull();
        assertThat(entry.get("position").isNull()).isTrue();
        assertThat(entry.get("cannotRun").asText()).isEqualTo(summary.get(1).asText());
        assertThat(entry.path("forecast").isMissingNode() || entry.get("forecast").isNull()).isTrue();
        // and the workload itself says the same (allot show said nothing of it); the 6 GPUs, which still fit, nothing
        Response shown = api.get("/v1/workloads/" + id, "tok-member");
        assertThat(shown.json().get("cannotRun").asText()).isEqualTo(summary.get(1).asText());
        Response fits = api.get("/v1/workloads/" + six.json().get("id").asText(), "tok-member");
        assertThat(fits.json().get("cannotRun").isNull()).as("%s", fits.json()).isTrue();
    }

    @Test
    void givenAWaitingWorkloadOf8Gpus_whenItsNodesAreSetTo4Gpus_thenItsRefusalIsLoggedOnce() {
        // the rebuild logged "cannot be scheduled after the change", then took the refused in again and logged
        // "cannot be scheduled" for the same workload and reason
        api = ApiFixture.withSchedulingLoop(dataDir, new MutableClock(ApiFixture.NOW));
        api.loop.runOnce();
        assertThat(api.submit("member", ApiFixture.body("gpus", "6", "gpusPerNode", "0")).status()).isEqualTo(201);
        Response eight = api.submit("member", ApiFixture.body("gpus", "8", "gpusPerNode", "8"));
        assertThat(eight.status()).as("%s", eight.json()).isEqualTo(201);
        String id = eight.json().get("id").asText();
        api.loop.runOnce();

        try (CapturedLog log = CapturedLog.of(dev.allot.server.sched.SchedulerLoop.class)) {
            assertThat(api.put("/v1/nodes/gpu-01", "tok-root", "{\"gpus\": 4}").status()).isEqualTo(200);
            assertThat(api.put("/v1/nodes/gpu-02", "tok-root", "{\"gpus\": 4}").status()).isEqualTo(200);
            api.loop.topologyChanged();
            api.loop.runOnce();
            api.loop.runOnce();

            List<String> warnings = log.events().stream().filter(e -> e.getLevel() == Level.WARN)
                    .map(e -> e.getFormattedMessage()).filter(m -> m.contains("workload " + id + " cannot be scheduled"))
                    .toList();
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0)).startsWith("workload " + id + " cannot be scheduled after the change: workload "
                    + id + " asks for 8 GPUs as 1 whole node of 8");
        }
        // and it is still refused, as the queue says
        assertThat(api.get("/v1/workloads/" + id, "tok-member").json().get("cannotRun").isNull()).isFalse();
    }
}
