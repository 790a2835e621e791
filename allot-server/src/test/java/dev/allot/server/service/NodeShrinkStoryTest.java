package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.WorkloadState;
import dev.allot.server.testing.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault as it was found, through the API of a whole service: given 16 one-GPU workloads running on node n2, when
 * an admin sets n2 to 1 GPU ({@code PUT /v1/nodes/n2 {"gpus": 1}}), then the 15 on GPUs that no longer exist end as
 * lost (requeued: they are resumable) with a reason naming the node and its new count, the service stays healthy,
 * and scheduling goes on (a node added afterwards takes the requeued work).
 */
class NodeShrinkStoryTest {
    static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void givenSixteenWorkloadsOnN2WhenAnAdminSetsItToOneGpuTheRestAreLostAndSchedulingGoesOn() throws Exception {
        try (Store s = Store.sqlite(dir)) {
            s.allocations().putAllocation(new Allocation("a", 1, List.of(), List.of()), "test", T0.toEpochMilli());
            s.nodes().putNode(new Node("n2", 16, true, null, T0.toEpochMilli()));
        }
        MutableClock clock = new MutableClock(T0);
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofHours(1));
        try (Service service = Service.start(config, clock)) {
            String token = service.adminToken().orElseThrow();
            for (int i = 0; i < 16; i++) {
                ServiceMetricsTest.submit(service, token, "a", 1, "10m", "10h");
            }
            service.loop().runOnce();
            assertThat(service.store().workloads().workload("w-16").orElseThrow().state())
                    .isEqualTo(WorkloadState.RUNNING);

            clock.advance(Duration.ofMinutes(1));
            HttpResponse<String> put = send(service, token, "PUT", "/v1/nodes/n2", "{\"gpus\": 1}");
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            service.loop().runOnce();
            service.loop().runOnce();

            int lost = 0;
            for (int i = 1; i <= 16; i++) {
                Attempt first = service.store().attempts().attempts("w-" + i).get(0);
                if (first.outcome() == null) {
                    continue;
                }
                lost++;
                assertThat(first.outcome()).isEqualTo(AttemptOutcome.LOST);
                assertThat(first.reason()).contains("of node n2, which now has 1 GPU");
                assertThat(service.store().workloads().workload("w-" + i).orElseThrow().state())
                        .isEqualTo(WorkloadState.REQUEUED);
            }
            assertThat(lost).isEqualTo(15);
            HttpResponse<String> health = send(service, null, "GET", "/v1/health", null);
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);

            clock.advance(Duration.ofMinutes(1));
            send(service, token, "PUT", "/v1/nodes/n3", "{\"gpus\": 8}");
            service.loop().runOnce();
            JsonNode running = JSON.readTree(send(service, token, "GET", "/v1/workloads?state=running", null).body());
            assertThat(running.path("workloads").size()).isEqualTo(1 + 8);
        }
    }

    @Test
    void onTheLocalBackendANodeItDoesNotRunIsNotRegisteredByHand() throws Exception {
        // given the local backend, which runs this machine's node n1 only
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.LOCAL)
                .withNodeName("n1").withVirtualGpus(2).withTick(Duration.ofHours(1));
        try (Service service = Service.start(config, new MutableClock(T0))) {
            String token = service.adminToken().orElseThrow();
            // when an administrator registers another node, then it is refused: work placed there would fail
            HttpResponse<String> other = send(service, token, "PUT", "/v1/nodes/newnode", "{\"gpus\": 4}");
            assertThat(other.statusCode()).as(other.body()).isEqualTo(409);
            assertThat(other.body()).contains("the local backend runs no node 'newnode'");
            assertThat(service.store().nodes().nodes()).extracting(Node::name).containsExactly("n1");
            // and its own node's GPU count may still be set
            HttpResponse<String> own = send(service, token, "PUT", "/v1/nodes/n1", "{\"gpus\": 1}");
            assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
        }
    }

    private static HttpResponse<String> send(Service service, String token, String method, String path, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(service.url() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
