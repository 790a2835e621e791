package dev.allot.server.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.api.ApiServer;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.service.LoopExplainer;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.testing.MutableClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A campaign's world, run step by step: a SQLite store with users {@code root} (administrator), {@code alice} (member
 * of {@code lab/a}), {@code bob} (member of {@code lab/b}) and {@code carol} (member of neither), each with token
 * {@code tok-<name>}; the tree {@code lab} > {@code a}, {@code b} with equal shares; one node {@code n1} of
 * {@code gpus} GPUs; the real API and a real scheduling loop (the allocation policy, default settings) over a
 * {@link ManualBackend}, on a clock the test moves. {@link #cycle} runs one scheduling cycle.
 */
final class CampaignFixture implements AutoCloseable {
    static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
    static final ObjectMapper JSON = new ObjectMapper();

    final Store store;
    final MutableClock clock = new MutableClock(T0);
    final ManualBackend backend = new ManualBackend();
    final SchedulerLoop loop;
    final ApiServer api;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** An answer: status and body as JSON. */
    record Response(int status, JsonNode json) {
        String error() {
            return json.path("error").asText(null);
        }

        String field() {
            return json.path("field").isNull() ? null : json.path("field").asText(null);
        }
    }

    CampaignFixture(Path dataDir, int gpus) {
        store = Store.sqlite(dataDir);
        long t = T0.toEpochMilli();
        for (User u : List.of(new User("root", User.Role.ADMIN), new User("alice", User.Role.USER),
                new User("bob", User.Role.USER), new User("carol", User.Role.USER))) {
            store.access().putUser(u);
            store.access().addToken(u.name(), "tok-" + u.name(), "test", t);
        }
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
        store.allocations().putAllocation(new Allocation("lab/a", 1, List.of(), List.of("alice")), "root", t);
        store.allocations().putAllocation(new Allocation("lab/b", 1, List.of(), List.of("bob")), "root", t);
        store.nodes().putNode(new Node("n1", gpus, true, null, t));
        var policy = PolicyRegistry.standard().get("allocation");
        loop = new SchedulerLoop(store, backend, policy.create(Settings.defaults(policy.settings())),
                SchedulerConfig.defaults(), clock);
        api = ApiServer.start(store, 0, clock, ApiServer.Extras.none(), new LoopExplainer(loop));
    }

    void cycle() {
        loop.runOnce();
    }

    void advance(Duration d) {
        clock.advance(d);
    }

    Response get(String path, String user) {
        return send("GET", path, user, null);
    }

    Response post(String path, String user, String body) {
        return send("POST", path, user, body);
    }

    Response put(String path, String user, String body) {
        return send("PUT", path, user, body);
    }

    Response delete(String path, String user) {
        return send("DELETE", path, user, null);
    }

    /** The campaign as its owner's API shows it (fails unless 200). */
    JsonNode campaign(String name) {
        Response r = get("/v1/campaigns/" + name, "root");
        if (r.status() != 200) {
            throw new AssertionError("GET campaign " + name + ": " + r.status() + " " + r.json());
        }
        return r.json();
    }

    /** Shard {@code index} of the campaign as the API shows it. */
    JsonNode shard(String name, int index) {
        return campaign(name).path("shards").get(index);
    }

    /** Reports progress of shard {@code index}'s current workload as its owner would (fails unless 200). */
    void progress(String campaign, int index, long done) {
        JsonNode s = shard(campaign, index);
        Response r = post("/v1/workloads/" + s.path("workload").asText() + "/progress", "alice",
                "{\"done\": " + done + ", \"total\": " + s.path("units").asLong() + "}");
        if (r.status() != 200) {
            throw new AssertionError("progress of shard " + index + ": " + r.status() + " " + r.json());
        }
    }

    Response send(String method, String path, String user, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (user != null) {
            b.header("Authorization", "Bearer tok-" + user);
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(r.statusCode(), r.body().isEmpty() ? null : JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        loop.close();
        api.close();
        store.close();
    }
}
