package dev.allot.server.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.service.Service;
import dev.allot.server.service.ServiceConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.testing.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What the forecast tests of the service share: a service with the simulated backend on nodes of 8 GPUs (its own
 * loop's tick an hour: the tests run the cycles), users root (administrator), alice (member of lab/a) and bob (lab/b),
 * each with token tok-name, and workloads submitted over HTTP.
 */
final class ForecastFixture {
    static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    private ForecastFixture() {
    }

    /** Nodes n1.. of 8 GPUs, users root (admin), alice and bob, the tree lab > a (alice), b (bob). */
    static void seed(Path dir, int nodes) {
        try (Store store = Store.sqlite(dir)) {
            long t = T0.toEpochMilli();
            store.access().putUser(new User("root", User.Role.ADMIN));
            store.access().putUser(new User("alice", User.Role.USER));
            store.access().putUser(new User("bob", User.Role.USER));
            store.access().addToken("root", "tok-root", "test", t);
            store.access().addToken("alice", "tok-alice", "test", t);
            store.access().addToken("bob", "tok-bob", "test", t);
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation("lab/a", 1, List.of(), List.of("alice")), "root", t);
            store.allocations().putAllocation(new Allocation("lab/b", 1, List.of(), List.of("bob")), "root", t);
            for (int n = 1; n <= nodes; n++) {
                store.nodes().putNode(new Node("n" + n, 8, true, null, t), "root");
            }
        }
    }

    /** A service on one node of 8 GPUs. */
    static Service start(Path dir, MutableClock clock, Duration forecastInterval) {
        return start(dir, clock, forecastInterval, 1);
    }

    static Service start(Path dir, MutableClock clock, Duration forecastInterval, int nodes) {
        seed(dir, nodes);
        return Service.start(ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofHours(1)).withForecastInterval(forecastInterval), clock);
    }

    /** Alice submits an unallocated 8-GPU workload to lab/a ({@code duration} null: none declared). */
    static String submit(Service s, String duration) throws Exception {
        return submit(s, "alice", "lab/a", 8, "0", duration);
    }

    static String submit(Service s, String user, String allocation, int gpus, String minRuntime, String duration)
            throws Exception {
        String body = "{\"allocation\":\"" + allocation + "\",\"gpus\":" + gpus + ",\"minRuntime\":\"" + minRuntime
                + "\",\"resumable\":false,\"priority\":\"normal\",\"command\":[\"train\"]"
                + (duration == null ? "" : ",\"duration\":\"" + duration + "\"") + "}";
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + "/v1/workloads"))
                .header("Authorization", "Bearer tok-" + user).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return JSON.readTree(r.body()).path("id").asText();
    }

    static JsonNode get(Service s, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + path))
                .header("Authorization", "Bearer tok-alice").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }
}
