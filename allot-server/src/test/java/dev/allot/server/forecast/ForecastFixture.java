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
 * What the forecast tests of the service share: a service with the simulated backend on one node n1 of 8 GPUs, users
 * root (administrator) and alice (member of lab/a, token tok-alice), and 8-GPU unallocated workloads submitted over
 * HTTP as alice.
 */
final class ForecastFixture {
    static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    private ForecastFixture() {
    }

    /** One node of 8 GPUs, users root (admin) and alice, the tree lab > a. */
    static void seed(Path dir) {
        try (Store store = Store.sqlite(dir)) {
            long t = T0.toEpochMilli();
            store.access().putUser(new User("root", User.Role.ADMIN));
            store.access().putUser(new User("alice", User.Role.USER));
            store.access().addToken("root", "tok-root", "test", t);
            store.access().addToken("alice", "tok-alice", "test", t);
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation("lab/a", 1, List.of(), List.of("alice")), "root", t);
            store.nodes().putNode(new Node("n1", 8, true, null, t), "root");
        }
    }

    static Service start(Path dir, MutableClock clock, Duration forecastInterval) {
        seed(dir);
        return Service.start(ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withForecastInterval(forecastInterval), clock);
    }

    static String submit(Service s, String duration) throws Exception {
        String body = "{\"allocation\":\"lab/a\",\"gpus\":8,\"minRuntime\":\"0\",\"resumable\":false,"
                + "\"priority\":\"normal\",\"command\":[\"train\"]"
                + (duration == null ? "" : ",\"duration\":\"" + duration + "\"") + "}";
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + "/v1/workloads"))
                .header("Authorization", "Bearer tok-alice").header("Content-Type", "application/json")
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
