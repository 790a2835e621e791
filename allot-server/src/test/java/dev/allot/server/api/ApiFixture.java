package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.service.LoopExplainer;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/**
 * A running API over a fresh SQLite store with a small lab seeded through the store, and an HTTP client to call
 * it. The tree:
 *
 * <pre>
 * lab                      (no managers)
 * lab/nlp                  managed by mp          (the parent program of X)
 * lab/nlp/pretrain    = X  members member, owner
 * lab/vision               managed by ms          (a sibling subtree)
 * lab/vision/detect        members ms-member
 * </pre>
 *
 * Users: root (admin), mp, ms, member, owner, outsider, ms-member; each has the token {@code tok-<name>}. The clock
 * is fixed at {@link #NOW}, or one the test moves; {@link #withSchedulingLoop} adds a real scheduling loop.
 */
final class ApiFixture implements AutoCloseable {
    static final Instant NOW = Instant.parse("2026-03-01T09:00:00Z");
    static final String X = "lab/nlp/pretrain";

    static final ObjectMapper JSON = new ObjectMapper();

    final Store store;
    final ApiServer server;
    /** The scheduling loop the API explains through, made by {@link #withSchedulingLoop}; else null. */
    final SchedulerLoop loop;
    /** The local backend {@link #onTheLocalBackend} made, closed with the fixture; null otherwise. */
    private dev.allot.server.backend.LocalBackend localBackend;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** An answer: its status and its body parsed as JSON (null when the body is empty). */
    record Response(int status, JsonNode json, String contentType) {
        String error() {
            return json.path("error").asText(null);
        }

        String field() {
            return json.path("field").isNull() ? null : json.path("field").asText(null);
        }
    }

    ApiFixture(Path dataDir) {
        this(dataDir, Clock.fixed(NOW, ZoneOffset.UTC), store -> WorkloadExplainer.NONE);
    }

    /** The same lab, with the API on {@code clock} and explaining through what {@code explainer} makes of the store. */
    ApiFixture(Path dataDir, Clock clock, java.util.function.Function<Store, WorkloadExplainer> explainer) {
        this.store = lab(dataDir);
        this.loop = null;
        this.server = ApiServer.start(store, 0, clock, ApiServer.Extras.none(), explainer.apply(store));
    }

    /**
     * A store of the test's own instead of the lab (a fresh one that {@code seed} fills: users, tokens, allocations,
     * nodes) behind an API with {@code extras} (e.g. an identity gate, or nodes that come from a backend), on the
     * fixed clock, explaining nothing.
     */
    ApiFixture(Path dataDir, java.util.function.Consumer<Store> seed, ApiServer.Extras extras) {
        this.store = Store.sqlite(dataDir);
        this.loop = null;
        try {
            seed.accept(store);
            this.server = ApiServer.start(store, 0, Clock.fixed(NOW, ZoneOffset.UTC), extras, WorkloadExplainer.NONE);
        } catch (RuntimeException | Error e) {
            store.close();
            throw e;
        }
    }

    private ApiFixture(Path dataDir, Clock clock, PolicyFactory policy,
                       java.util.function.UnaryOperator<dev.allot.core.backend.Backend> backend) {
        this(lab(dataDir), clock, policy, backend);
    }

    private ApiFixture(Store store, Clock clock, PolicyFactory policy,
                       java.util.function.UnaryOperator<dev.allot.core.backend.Backend> backend) {
        this.store = store;
        dev.allot.core.backend.Backend used = backend.apply(new SimulatedBackend(clock));
        this.loop = new SchedulerLoop(store, used,
                policy.create(Settings.defaults(policy.settings())), SchedulerConfig.defaults(), clock);
        // the API reads attempts' output from the loop's backend, as the service's does
        this.server = ApiServer.start(store, 0, clock, new ApiServer.Extras(List.of(), () -> { }, () -> { }, () -> { },
                () -> { }, IdentityGate.OPEN, ServiceHealth.OK, null, AttemptOutputs.of(used)),
                new LoopExplainer(loop, store, null));
    }

    /**
     * The lab with a real scheduling loop ({@link #loop}: the core's allocation policy with its default settings, the
     * simulated backend, {@code clock}), run one cycle at a time by the test ({@code loop.runOnce()}); the API explains
     * workloads through it. Closing the fixture closes the loop.
     */
    static ApiFixture withSchedulingLoop(Path dataDir, Clock clock) {
        return withSchedulingLoop(dataDir, clock, java.util.function.UnaryOperator.identity());
    }

    /** The same, the simulated backend seen through {@code backend} (e.g. one that makes some attempts fail). */
    static ApiFixture withSchedulingLoop(Path dataDir, Clock clock,
                                         java.util.function.UnaryOperator<dev.allot.core.backend.Backend> backend) {
        return new ApiFixture(dataDir, clock, PolicyRegistry.standard().get("allocation"), backend);
    }

    /**
     * The lab's users, tokens and allocations with no node registered (a simulated backend nobody has given a node
     * yet), with a real scheduling loop as {@link #withSchedulingLoop}.
     */
    static ApiFixture withSchedulingLoopAndNoNodes(Path dataDir, Clock clock) {
        return new ApiFixture(labWithoutNodes(dataDir), clock, PolicyRegistry.standard().get("allocation"),
                java.util.function.UnaryOperator.identity());
    }

    /**
     * The lab's users and tokens alone: no allocation, no node (a service just set up, before an administrator has
     * made the tree or registered a node), with a real scheduling loop as {@link #withSchedulingLoop}.
     */
    static ApiFixture withSchedulingLoopAndUsersOnly(Path dataDir, Clock clock) {
        return new ApiFixture(users(dataDir), clock, PolicyRegistry.standard().get("allocation"),
                java.util.function.UnaryOperator.identity());
    }

    /** A fresh SQLite store in {@code dataDir} seeded with the lab's users, tokens, allocations and nodes. */
    private static Store lab(Path dataDir) {
        Store store = labWithoutNodes(dataDir);
        long t = NOW.toEpochMilli();
        store.nodes().putNode(new Node("gpu-02", 8, false, "fan failure", t));
        store.nodes().putNode(new Node("gpu-01", 8, true, null, t));
        return store;
    }

    private static Store users(Path dataDir) {
        Store store = Store.sqlite(dataDir);
        long t = NOW.toEpochMilli();
        for (User u : List.of(new User("root", User.Role.ADMIN), new User("mp", User.Role.USER),
                new User("ms", User.Role.USER), new User("member", User.Role.USER), new User("owner", User.Role.USER),
                new User("outsider", User.Role.USER), new User("ms-member", User.Role.USER))) {
            store.access().putUser(u);
            store.access().addToken(u.name(), "tok-" + u.name(), "test", t);
        }
        return store;
    }

    private static Store labWithoutNodes(Path dataDir) {
        Store store = users(dataDir);
        long t = NOW.toEpochMilli();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
        store.allocations().putAllocation(new Allocation("lab/nlp", 2, List.of("mp"), List.of()), "root", t);
        store.allocations().putAllocation(new Allocation(X, 1, List.of(), List.of("member", "owner")), "root", t);
        store.allocations().putAllocation(new Allocation("lab/vision", 1, List.of("ms"), List.of()), "root", t);
        store.allocations().putAllocation(new Allocation("lab/vision/detect", 1, List.of(), List.of("ms-member")),
                "root", t);
        return store;
    }

    /** A valid submission body to X with the given extra or replaced fields (raw JSON values). */
    static String body(String... fieldsAndRawValues) {
        java.util.LinkedHashMap<String, String> m = new java.util.LinkedHashMap<>();
        m.put("allocation", "\"" + X + "\"");
        m.put("gpus", "8");
        m.put("gpusPerNode", "4");
        m.put("minRuntime", "\"2h\"");
        m.put("resumable", "true");
        m.put("priority", "\"normal\"");
        m.put("kind", "\"train\"");
        m.put("duration", "\"6h\"");
        m.put("command", "[\"python\", \"train.py\", \"--lr\", \"3e-4\"]");
        m.put("environment", "{\"SEED\": \"7\"}");
        for (int i = 0; i < fieldsAndRawValues.length; i += 2) {
            if (fieldsAndRawValues[i + 1] == null) {
                m.remove(fieldsAndRawValues[i]);
            } else {
                m.put(fieldsAndRawValues[i], fieldsAndRawValues[i + 1]);
            }
        }
        StringBuilder sb = new StringBuilder("{");
        m.forEach((k, v) -> sb.append(sb.length() > 1 ? ", " : "").append('"').append(k).append("\": ").append(v));
        return sb.append('}').toString();
    }

    Response get(String path, String token) {
        return send("GET", path, token, null);
    }

    Response post(String path, String token, String body) {
        return send("POST", path, token, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    Response put(String path, String token, String body) {
        return send("PUT", path, token, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    Response delete(String path, String token) {
        return send("DELETE", path, token, null);
    }

    /** Submits {@code body(...)} as the user with token {@code tok-<user>}; expects nothing of the answer. */
    Response submit(String user, String body) {
        return post("/v1/workloads", "tok-" + user, body);
    }

    Response send(String method, String path, String token, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return sendRaw(b.build());
    }

    Response sendRaw(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            JsonNode json = r.body().isEmpty() ? null : JSON.readTree(r.body());
            return new Response(r.statusCode(), json, r.headers().firstValue("Content-Type").orElse(null));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    URI uri(String path) {
        return URI.create("http://localhost:" + server.port() + path);
    }

    @Override
    public void close() {
        if (loop != null) {
            loop.close();
        }
        server.close();
        store.close();
        if (localBackend != null) {
            localBackend.close();
        }
    }

    /**
     * The lab with a scheduling loop over the real local backend on gpu-01 (in {@code dataDir/backend}, workloads run
     * as the service's own account, root allowed as in the tests' machines); closing the fixture closes the backend.
     */
    static ApiFixture onTheLocalBackend(Path dataDir, Clock clock) {
        dev.allot.server.backend.LocalBackend backend = new dev.allot.server.backend.LocalBackend(
                dataDir.resolve("backend"), "gpu-01", new dev.allot.server.identity.UnixAccounts(), true);
        ApiFixture api = withSchedulingLoop(dataDir.resolve("api"), clock, simulated -> backend);
        api.localBackend = backend;
        return api;
    }
}
