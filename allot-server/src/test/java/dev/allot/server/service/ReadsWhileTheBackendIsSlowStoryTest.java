package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.testing.GatedBackend;
import dev.allot.server.testing.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's promise that the service's reads never wait for the backend: while a cycle waits for a backend that
 * does not answer (Slurm's commands while {@code slurmctld} is down take their timeout, and are retried: 36-90 s were
 * seen), the queue, an explanation, {@code /metrics}, the health answer and a workload answer at once from the state
 * the loop published last, and a submission and a cancellation are taken; once the backend answers, the loop goes on
 * as before. A whole service on a {@link GatedBackend} (a simulated backend that blocks when told), one 4-GPU node;
 * cycles are run by the test.
 */
class ReadsWhileTheBackendIsSlowStoryTest {
    static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
    /**
     * What "at once" means here: the backend holds its call for {@link GatedBackend#HOLD_AT_MOST} (20 s), so an answer
     * within 5 s did not wait for it (2 s was too short for the first requests of a cold service on a loaded machine).
     */
    static final Duration AT_ONCE = Duration.ofSeconds(5);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path dir;

    @Test
    void whileACycleWaitsForTheBackendTheQueueExplanationsMetricsAndHealthAnswerAtOnce() throws Exception {
        try (Store s = Store.sqlite(dir)) {
            s.allocations().putAllocation(new Allocation("a", 1, List.of(), List.of()), "test", T0.toEpochMilli());
            s.nodes().putNode(new Node("n1", 4, true, null, T0.toEpochMilli()));
        }
        MutableClock clock = new MutableClock(T0);
        GatedBackend backend = new GatedBackend(new SimulatedBackend(clock));
        // (in place of the built-in simulated backend: its workloads run as nobody's account)
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofHours(1));
        try (Service service = Service.start(config, clock, Map.of(ServiceConfig.SIMULATED, (c, store) -> backend))) {
            String token = service.adminToken().orElseThrow();
            // Given one workload runs on the whole node and another waits behind it
            String running = submit(service, token, 4);
            service.loop().runOnce();
            String waiting = submit(service, token, 2);
            service.loop().runOnce();
            assertThat(queuePositionOf(get(service, token, "/v1/queue"), waiting)).isEqualTo(1);
            Map<String, Double> before = ServiceMetricsTest.scrape(service);
            assertThat(before).containsEntry("allot_gpus{state=\"busy\"}", 4.0);

            // When the backend stops answering in the middle of a cycle (its listing of the attempts)
            backend.close(GatedBackend.Call.OBSERVE);
            clock.advance(Duration.ofMinutes(5));
            CompletableFuture<Void> cycle = CompletableFuture.runAsync(() -> service.loop().runOnce());
            assertThat(backend.awaitHeld(Duration.ofSeconds(10))).as("the cycle reached the backend").isTrue();

            // Then the reads answer at once, from the state the loop published last
            JsonNode queue = get(service, token, "/v1/queue");
            assertThat(queue.path("seenByScheduler").asBoolean()).isTrue();
            assertThat(queuePositionOf(queue, waiting)).isEqualTo(1);
            JsonNode explained = get(service, token, "/v1/workloads/" + waiting + "/explain");
            assertThat(explained.path("state").asText()).isEqualTo("pending");
            assertThat(explained.path("data").path("seenByScheduler").asBoolean()).isTrue();
            assertThat(explained.path("data").path("queue").path("position").asInt()).isEqualTo(1);
            String metrics = read(service, HttpRequest.newBuilder(URI.create(service.url() + "/metrics")), 200);
            assertThat(metrics).contains("allot_gpus{state=\"busy\"} 4.0", "allot_queue_pending{allocation=\"a\"} 1.0");
            assertThat(ServiceTestSupport.JSON.readTree(read(service,
                    HttpRequest.newBuilder(URI.create(service.url() + "/v1/health")), 200)).path("status").asText())
                    .isEqualTo("ok");
            assertThat(get(service, token, "/v1/workloads/" + running).path("workload").path("state").asText())
                    .isEqualTo("running");
            // ... and the writes are taken, for the cycles after this one
            String late = submit(service, token, 1);
            assertThat(ServiceTestSupport.JSON.readTree(read(service, HttpRequest.newBuilder(
                            URI.create(service.url() + "/v1/workloads/" + waiting + "/cancel"))
                    .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.noBody()), 200))
                    .path("id").asText()).isEqualTo(waiting);
            assertThat(cycle).as("the cycle still waits for the backend").isNotDone();

            // And once the backend answers, the loop goes on: the cancellation and the submission are taken in
            backend.open();
            cycle.get(10, TimeUnit.SECONDS);
            service.loop().runOnce();
            assertThat(get(service, token, "/v1/workloads/" + waiting).path("workload").path("state").asText())
                    .isEqualTo("cancelled");
            JsonNode after = get(service, token, "/v1/queue");
            assertThat(queuePositionOf(after, late)).isEqualTo(1);
            assertThat(queuePositionOf(after, waiting)).isNull();
            assertThat(service.loop().counters().starts()).isEqualTo(1);
        }
    }

    private static Integer queuePositionOf(JsonNode queue, String id) {
        for (JsonNode e : queue.path("entries")) {
            if (e.path("id").asText().equals(id)) {
                return e.path("position").isNumber() ? e.path("position").asInt() : null;
            }
        }
        return null;
    }

    private String submit(Service service, String token, int gpus) throws Exception {
        String body = ServiceMetricsTest.body("a", gpus, "1h", "2h");
        return ServiceTestSupport.JSON.readTree(read(service, HttpRequest.newBuilder(URI.create(service.url()
                        + "/v1/workloads")).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)), 201))
                .path("id").asText();
    }

    private JsonNode get(Service service, String token, String path) throws Exception {
        return ServiceTestSupport.JSON.readTree(read(service, HttpRequest.newBuilder(URI.create(service.url() + path))
                .header("Authorization", "Bearer " + token), 200));
    }

    /** Sends the request; it must be answered {@link #AT_ONCE}, with {@code status}. */
    private String read(Service service, HttpRequest.Builder request, int status) throws Exception {
        HttpRequest r = request.timeout(AT_ONCE).build();
        try {
            HttpResponse<String> answer = http.send(r, HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(r.method() + " " + r.uri().getPath() + ": " + answer.body())
                    .isEqualTo(status);
            return answer.body();
        } catch (HttpTimeoutException e) {
            throw new AssertionError(r.method() + " " + r.uri().getPath() + " was not answered within " + AT_ONCE
                    + ": it waits for the cycle that waits for the backend", e);
        }
    }
}
