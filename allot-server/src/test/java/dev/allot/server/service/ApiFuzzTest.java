package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance's seeded API fuzz test: a real service (simulated backend) takes {@value #REQUESTS} requests over
 * every operation the server documents in {@code /v1/openapi.json} (and {@code /metrics}), built from one seed
 * (same seed, same requests): malformed and boundary bodies (bad JSON, huge and negative numbers, unicode, empty,
 * wrong types, deep nesting), wrong methods (lowercase, unknown), wrong content types, bad, missing, revoked, expired
 * and disabled users' tokens, odd paths and query parameters. Then: no answer was a 5xx; the server still answers {@code /v1/health}; every acknowledged (2xx)
 * submission is in the queue ({@code GET /v1/workloads}); and nothing a rejected request could have created exists:
 * the workloads, allocations, users (roles and disabled flags), tokens, nodes and token policy in the service are
 * exactly those the 2xx answers account for.
 */
class ApiFuzzTest {
    static final int REQUESTS = 10_000;
    /** The seed; {@code ALLOT_FUZZ_SEED} replays another. */
    static final long SEED = System.getenv("ALLOT_FUZZ_SEED") == null ? 20_261_201L
            : Long.parseLong(System.getenv("ALLOT_FUZZ_SEED").trim());
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dataDir;

    /** One request the fuzzer sends. */
    record Call(String method, String path, String contentType, String token, byte[] body) {
        String describe() {
            String b = body == null ? "" : new String(body, StandardCharsets.UTF_8);
            return method + " " + path + " [" + contentType + ", token " + token + "] "
                    + (b.length() > 200 ? b.substring(0, 200) + "..." : b);
        }
    }

    /** What the 2xx answers say the service now holds. */
    static final class Model {
        final Set<String> workloads = new TreeSet<>();
        final Map<String, Double> allocations = new TreeMap<>();
        final Map<String, String> users = new TreeMap<>();
        /** Tokens per user the store was seeded with (the fuzz cannot revoke them: it never learns their ids). */
        final Map<String, Integer> seedTokens = new TreeMap<>();
        /** Tokens made by acknowledged requests and not revoked: id -> {user, secret, the secret that minted it}. */
        final Map<String, String[]> minted = new java.util.LinkedHashMap<>();
        final Map<String, Integer> nodes = new TreeMap<>();
        /** The token policy, as {@code defaultLifetimeSeconds/maxLifetimeSeconds}. */
        String tokenPolicy;

        /** Revoking a token revokes the tokens minted with it, transitively. */
        void revoke(String id) {
            String[] gone = minted.remove(id);
            if (gone == null) {
                return;
            }
            List<String> children = minted.entrySet().stream()
                    .filter(e -> ("Bearer " + gone[1]).equals(e.getValue()[2])).map(Map.Entry::getKey).toList();
            children.forEach(this::revoke);
        }

        Map<String, Integer> tokens() {
            Map<String, Integer> count = new TreeMap<>(seedTokens);
            minted.values().forEach(t -> count.merge(t[0], 1, Integer::sum));
            return count;
        }
    }

    @Test
    void givenTenThousandSeededMalformedRequestsThenNo5xxTheServerAnswersAndOnlyAcknowledgedChangesExist()
            throws Exception {
        ServiceTestSupport.seed(dataDir);
        ServiceConfig config = ServiceConfig.defaults(dataDir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofMillis(200)).withTimeScale(600);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        try (Service s = Service.start(config, Clock.systemUTC())) {
            String base = s.url();
            Model model = new Model();
            model.allocations.putAll(Map.of("lab", 1.0, "lab/a", 1.0, "lab/b", 1.0));
            model.users.putAll(Map.of("root", "admin", "alice", "user", "bob", "user"));
            model.tokenPolicy = policy(s.store().settings().tokenPolicy());
            model.seedTokens.putAll(Map.of("root", 1, "alice", 1, "bob", 1));
            Fuzzer fuzz = new Fuzzer(new Random(SEED));
            fuzz.tokens.addAll(List.of("tok-root", "tok-alice", "tok-bob"));

            List<String> fiveHundreds = new ArrayList<>();
            Map<Integer, Integer> statuses = new TreeMap<>();
            Map<String, Integer> endpoints = new TreeMap<>();
            long started = System.nanoTime();
            Call previous = null;
            for (int i = 0; i < REQUESTS; i++) {
                Fuzzer.Made made = fuzz.next();
                Call call = made.call();
                endpoints.merge(made.endpoint(), 1, Integer::sum);
                HttpResponse<String> r = send(http, base, call);
                Call before = previous;
                previous = call;
                int status = r == null ? -1 : r.statusCode();
                statuses.merge(status, 1, Integer::sum);
                if (status >= 500 || status < 0) {
                    fiveHundreds.add(status + " for " + call.describe() + " -> " + (r == null ? "no answer"
                            : r.body()) + " (after " + (before == null ? "none" : before.describe()) + ")");
                    continue;
                }
                if (status >= 200 && status < 300) {
                    acknowledge(model, fuzz, call, r);
                }
            }
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            System.out.printf("ApiFuzzTest seed %d: %d requests in %d ms over %d endpoints; statuses %s;"
                    + " acknowledged: %d workloads, allocations %s, users %s, tokens %s, nodes %s; per endpoint %s%n",
                    SEED, REQUESTS, tookMillis, endpoints.size(), statuses, model.workloads.size(), model.allocations,
                    model.users, model.tokens(), model.nodes, endpoints);

            assertThat(fiveHundreds).as("requests answered 5xx or not at all").isEmpty();
            assertThat(endpoints.keySet()).as("every endpoint was exercised").containsAll(Fuzzer.ENDPOINTS);
            assertThat(statuses.keySet().stream().filter(c -> c >= 200 && c < 300).count()).isPositive();

            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/health"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);

            // Every acknowledged submission is in the queue, and nothing else is.
            assertThat(queue(http, base)).isEqualTo(model.workloads);
            // Allocations, users, tokens, nodes and the token policy are exactly what the 2xx answers account for.
            Map<String, Double> allocations = new TreeMap<>();
            s.store().allocations().allocations().forEach(a -> allocations.put(a.path(), a.share()));
            assertThat(allocations).isEqualTo(model.allocations);
            Map<String, String> users = new TreeMap<>();
            s.store().access().users().forEach(u -> users.put(u.name(), u.role().label()
                    + (u.disabled() ? " disabled" : "")));
            assertThat(users).isEqualTo(model.users);
            Map<String, Integer> tokens = new TreeMap<>();
            for (String user : users.keySet()) {
                int n = s.store().access().tokens(user).size();
                if (n > 0 || model.tokens().containsKey(user)) {
                    tokens.put(user, n);
                }
            }
            assertThat(tokens).isEqualTo(model.tokens());
            Map<String, Integer> nodes = new TreeMap<>();
            s.store().nodes().nodes().forEach(n -> nodes.put(n.name(), n.gpus()));
            assertThat(nodes).isEqualTo(model.nodes);
            assertThat(policy(s.store().settings().tokenPolicy())).isEqualTo(model.tokenPolicy);
        }
    }

    private static String policy(dev.allot.server.store.TokenPolicy p) {
        return p.defaultLifetimeSeconds() + "/" + p.maxLifetimeSeconds();
    }

    /**
     * The fuzz aims at every operation the server documents in {@code /v1/openapi.json} (and {@code /metrics}) and
     * sends every field of every documented request body: an endpoint or a field added to the API without being
     * added here fails this test, instead of going unfuzzed.
     */
    @Test
    void theRequestsAimAtEveryOperationAndEveryBodyFieldTheServerDocuments() throws IOException {
        JsonNode doc;
        try (java.io.InputStream in = ApiFuzzTest.class.getResourceAsStream("/dev/allot/server/api/openapi.json")) {
            assertThat(in).as("the OpenAPI document on the class path").isNotNull();
            doc = JSON.readTree(in);
        }
        Set<String> operations = new TreeSet<>(Set.of("GET /metrics"));
        Map<String, Set<String>> documentedFields = new TreeMap<>();
        Set<String> methods = Set.of("get", "put", "post", "delete", "patch", "head", "options");
        doc.path("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
            if (!methods.contains(op.getKey())) {
                return; // "parameters" shared by the path's operations
            }
            String operation = op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey();
            operations.add(operation);
            JsonNode schema = op.getValue().path("requestBody").path("content").path("application/json")
                    .path("schema");
            if (schema.has("$ref")) {
                schema = doc.at(schema.path("$ref").asText().substring(1));
            }
            Set<String> fields = new TreeSet<>();
            schema.path("properties").fieldNames().forEachRemaining(fields::add);
            if (!fields.isEmpty()) {
                documentedFields.put(operation, fields);
            }
        }));
        assertThat(operations).as("the document's operations").contains("PUT /v1/token-policy")
                .hasSizeGreaterThan(20);

        Fuzzer fuzz = new Fuzzer(new Random(SEED));
        Set<String> aimed = new TreeSet<>();
        for (int i = 0; i < REQUESTS; i++) {
            aimed.add(fuzz.next().endpoint());
        }

        assertThat(aimed).as("the operations the fuzz aims at").isEqualTo(operations);
        documentedFields.forEach((operation, fields) -> assertThat(fuzz.fieldsSent.getOrDefault(operation, Set.of()))
                .as("the body fields the fuzz sends to %s", operation).containsAll(fields));
    }

    @Test
    void theSameSeedMakesTheSameRequests() {
        Fuzzer a = new Fuzzer(new Random(7));
        Fuzzer b = new Fuzzer(new Random(7));
        for (int i = 0; i < 500; i++) {
            Call x = a.next().call();
            Call y = b.next().call();
            assertThat(y.describe()).isEqualTo(x.describe());
        }
    }

    /**
     * Records what a 2xx answer changed, by the route the request actually took (its method and path as sent: a
     * changed method or an odd path may still be a valid request) and what the answer says was stored.
     */
    private static void acknowledge(Model model, Fuzzer fuzz, Call call, HttpResponse<String> r) {
        JsonNode json;
        try {
            json = r.body().isBlank() ? JSON.nullNode() : JSON.readTree(r.body());
        } catch (IOException notJson) { // /metrics, or HEAD
            json = JSON.nullNode();
        }
        String path = call.path().contains("?") ? call.path().substring(0, call.path().indexOf('?')) : call.path();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        String route = call.method() + " " + path;
        java.util.regex.Matcher m;
        if (route.equals("POST /v1/workloads")) {
            model.workloads.add(json.path("id").asText());
            fuzz.workloadIds.add(json.path("id").asText());
        } else if (route.equals("POST /v1/workloads/batch")) {
            json.path("workloads").forEach(w -> {
                model.workloads.add(w.path("id").asText());
                fuzz.workloadIds.add(w.path("id").asText());
            });
        } else if (route.startsWith("PUT /v1/allocations/")) {
            model.allocations.put(json.path("path").asText(), json.path("share").asDouble());
        } else if ((m = java.util.regex.Pattern.compile("DELETE /v1/allocations/(.+)").matcher(route)).matches()) {
            model.allocations.remove(java.net.URLDecoder.decode(m.group(1), StandardCharsets.UTF_8));
        } else if (route.matches("PUT /v1/users/[^/]+")) {
            model.users.put(json.path("name").asText(), json.path("role").asText()
                    + (json.path("disabled").asBoolean() ? " disabled" : ""));
        } else if (route.equals("PUT /v1/token-policy")) {
            model.tokenPolicy = json.path("defaultLifetimeSeconds").asLong() + "/"
                    + json.path("maxLifetimeSeconds").asLong();
        } else if (route.matches("POST /v1/users/[^/]+/tokens")) {
            model.minted.put(json.path("id").asText(), new String[]{json.path("user").asText(),
                    json.path("token").asText(), call.token()});
            fuzz.tokens.add("" + json.path("token").asText());
            fuzz.tokenIds.add(new String[]{json.path("user").asText(), json.path("id").asText(),
                    json.path("token").asText()});
        } else if ((m = java.util.regex.Pattern.compile("DELETE /v1/users/[^/]+/tokens/([^/]+)").matcher(route))
                .matches()) {
            model.revoke(java.net.URLDecoder.decode(m.group(1), StandardCharsets.UTF_8));
        } else if (route.matches("PUT /v1/nodes/[^/]+")) {
            model.nodes.put(json.path("name").asText(), json.path("gpus").asInt());
        }
        // anything else (reads, cancellations, progress, health, brakes) creates nothing
    }

    private static HttpResponse<String> send(HttpClient http, String base, Call c) throws InterruptedException {
        HttpRequest.Builder b;
        try {
            b = HttpRequest.newBuilder(URI.create(base + c.path()));
        } catch (IllegalArgumentException notAUri) {
            return RawResponse.of(base, c); // paths java.net.URI refuses go raw
        }
        b.timeout(Duration.ofSeconds(20)).method(c.method(), c.body() == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(c.body()));
        if (c.contentType() != null) {
            b.header("Content-Type", c.contentType());
        }
        if (c.token() != null) {
            b.header("Authorization", c.token());
        }
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Answered(-1, "no answer: " + e);
        }
    }

    private static Set<String> queue(HttpClient http, String base) throws Exception {
        Set<String> ids = new TreeSet<>();
        long after = 0;
        while (true) {
            JsonNode page = get(http, base, "/v1/workloads?limit=1000&after=" + after).path("workloads");
            if (page.isEmpty()) {
                return ids;
            }
            for (JsonNode w : page) {
                ids.add(w.path("id").asText());
                after = Math.max(after, w.path("seq").asLong());
            }
        }
    }

    private static JsonNode get(HttpClient http, String base, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer tok-root").timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** Sends what java.net.URI will not build (a malformed percent-encoding, a space) as bytes on a socket. */
    static final class RawResponse {
        static HttpResponse<String> of(String base, Call c) {
            URI u = URI.create(base);
            StringBuilder head = new StringBuilder(c.method() + " " + c.path() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            if (c.token() != null) {
                head.append("Authorization: ").append(c.token()).append("\r\n");
            }
            if (c.contentType() != null) {
                head.append("Content-Type: ").append(c.contentType()).append("\r\n");
            }
            byte[] body = c.body() == null ? new byte[0] : c.body();
            head.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
            try (java.net.Socket s = new java.net.Socket(u.getHost(), u.getPort())) {
                s.setSoTimeout(20_000);
                s.getOutputStream().write(head.toString().getBytes(StandardCharsets.UTF_8));
                try {
                    s.getOutputStream().write(body);
                } catch (java.net.SocketException closedEarly) {
                    // the server answered and closed before the whole body was sent: read its answer below
                }
                // Read what arrives until the end or a reset: a server that answers a request it refuses early
                // and closes may reset the connection while the client still sends the body; the answer that
                // arrived before the reset is the answer.
                java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
                byte[] buffer = new byte[8192];
                try {
                    for (int n; (n = s.getInputStream().read(buffer)) >= 0; ) {
                        got.write(buffer, 0, n);
                    }
                } catch (java.net.SocketException reset) {
                    if (got.size() == 0) {
                        throw reset;
                    }
                }
                String text = got.toString(StandardCharsets.UTF_8);
                int status = text.startsWith("HTTP/1.1 ") ? Integer.parseInt(text.substring(9, 12)) : -1;
                int end = text.indexOf("\r\n\r\n");
                return new Answered(status, end < 0 ? "" : text.substring(end + 4));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }

    /** A raw answer as an HttpResponse (status and body only). */
    record Answered(int statusCode, String body) implements HttpResponse<String> {
        @Override
        public HttpRequest request() {
            return null;
        }

        @Override
        public java.util.Optional<HttpResponse<String>> previousResponse() {
            return java.util.Optional.empty();
        }

        @Override
        public java.net.http.HttpHeaders headers() {
            return java.net.http.HttpHeaders.of(Map.of(), (a, b) -> true);
        }

        @Override
        public java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
            return java.util.Optional.empty();
        }

        @Override
        public URI uri() {
            return null;
        }

        @Override
        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }
    }

    /** Makes the requests from one {@link Random}: the same seed, the same sequence. */
    static final class Fuzzer {
        /** Every route of ApiServer.configure, and /metrics. */
        static final List<String> ENDPOINTS = List.of(
                "GET /v1/health", "GET /v1/openapi.json", "POST /v1/workloads", "POST /v1/workloads/batch",
                "GET /v1/workloads", "GET /v1/workloads/{id}", "POST /v1/workloads/{id}/cancel",
                "POST /v1/workloads/{id}/progress", "GET /v1/workloads/{id}/explain", "GET /v1/allocations",
                "GET /v1/allocations/usage", "PUT /v1/allocations/{path}", "DELETE /v1/allocations/{path}",
                "GET /v1/audit", "GET /v1/me", "GET /v1/users", "PUT /v1/users/{name}", "GET /v1/users/{name}/tokens",
                "POST /v1/users/{name}/tokens", "DELETE /v1/users/{name}/tokens/{id}", "GET /v1/nodes",
                "PUT /v1/nodes/{name}", "GET /v1/brakes", "PUT /v1/brakes", "POST /v1/nodes/{name}/health",
                "GET /v1/token-policy", "PUT /v1/token-policy", "GET /metrics");
        static final List<String> USERS = List.of("alice", "bob", "carol", "dave");
        static final List<String> ALLOCATIONS = List.of("lab", "lab/a", "lab/b", "lab/a/x", "lab/b/y", "lab/c",
                "other", "lab/a/x/deep");
        static final List<String> NODES = List.of("gpu-01", "gpu-02", "n3");

        private final Random random;
        final List<String> tokens = new ArrayList<>();
        final List<String[]> tokenIds = new ArrayList<>();
        final List<String> workloadIds = new ArrayList<>();
        /** The body fields sent so far, per endpoint aimed at (a batch's nested submissions count for the batch). */
        final Map<String, Set<String>> fieldsSent = new TreeMap<>();
        private String aiming;

        /** A request and the route it aims at (which a changed method or an odd path may miss). */
        record Made(String endpoint, Call call) {
        }

        Fuzzer(Random random) {
            this.random = random;
        }

        Made next() {
            String endpoint = ENDPOINTS.get(random.nextInt(ENDPOINTS.size()));
            aiming = endpoint;
            String method = endpoint.substring(0, endpoint.indexOf(' '));
            String path;
            byte[] body = null;
            switch (endpoint) {
                case "GET /v1/workloads" -> path = "/v1/workloads" + query(Map.of("state", List.of("pending",
                        "running", "bogus", "pending,done", ""), "allocation", List.of("lab", "lab/a", "x/../y", ""),
                        "user", List.of("alice", "nobody", ""), "limit", numbers(), "after", numbers()));
                case "GET /v1/workloads/{id}" -> path = "/v1/workloads/" + workloadId();
                case "POST /v1/workloads/{id}/cancel" -> path = "/v1/workloads/" + workloadId() + "/cancel";
                case "POST /v1/workloads/{id}/progress" -> {
                    path = "/v1/workloads/" + workloadId() + "/progress";
                    body = body(Map.of("done", numberValues(), "total", numberValues()));
                }
                case "GET /v1/workloads/{id}/explain" -> path = "/v1/workloads/" + workloadId() + "/explain";
                case "POST /v1/workloads" -> {
                    path = "/v1/workloads";
                    body = submission();
                }
                case "POST /v1/workloads/batch" -> {
                    path = "/v1/workloads/batch";
                    body = batch();
                }
                case "GET /v1/allocations/usage" -> path = "/v1/allocations/usage" + query(Map.of("since",
                        List.of("7d", "1h", "0", "-1d", "2026-01-01T00:00:00Z", "9999999999d", "T", "1e9"), "step",
                        List.of("1h", "1d", "0", "-1h", "9223372036854775807", "1s", "9223372036854775s", "x")));
                case "PUT /v1/allocations/{path}" -> {
                    path = "/v1/allocations/" + pick(ALLOCATIONS);
                    body = body(Map.of("share", numberValues(), "managers", userLists(), "members", userLists()));
                }
                case "DELETE /v1/allocations/{path}" -> // not the leaves submissions go to, mostly
                        path = "/v1/allocations/" + pick(random.nextInt(10) == 0 ? ALLOCATIONS
                                : ALLOCATIONS.subList(3, ALLOCATIONS.size()));
                case "GET /v1/audit" -> path = "/v1/audit" + query(Map.of("limit", numbers()));
                case "PUT /v1/users/{name}" -> {
                    path = "/v1/users/" + name(USERS);
                    body = body(Map.of("role", List.of("\"admin\"", "\"user\"", "\"root\"", "1", "null", "[]",
                            "\"ADMIN\""), "disabled", List.of("false", "true", "\"true\"", "null", "1", "[]")));
                }
                case "GET /v1/users/{name}/tokens" -> path = "/v1/users/" + name(USERS) + "/tokens";
                case "POST /v1/users/{name}/tokens" -> {
                    path = "/v1/users/" + name(USERS) + "/tokens";
                    body = random.nextInt(4) == 0 ? null : body(Map.of("label", strings(), "lifetime", lifetimes()));
                }
                case "DELETE /v1/users/{name}/tokens/{id}" -> {
                    if (!tokenIds.isEmpty() && random.nextBoolean()) {
                        String[] t = tokenIds.get(random.nextInt(tokenIds.size()));
                        path = "/v1/users/" + t[0] + "/tokens/" + t[1];
                    } else {
                        path = "/v1/users/" + pick(USERS) + "/tokens/" + pick(List.of("0".repeat(64), "abc", "..", "%2e",
                                "f".repeat(65), "é"));
                    }
                }
                case "PUT /v1/nodes/{name}" -> {
                    path = "/v1/nodes/" + name(NODES);
                    body = body(Map.of("gpus", numberValues()));
                }
                case "POST /v1/nodes/{name}/health" -> {
                    path = "/v1/nodes/" + name(NODES) + "/health";
                    body = body(Map.of("healthy", List.of("true", "false", "\"yes\"", "0", "null"), "reason",
                            strings()));
                }
                case "PUT /v1/token-policy" -> {
                    path = "/v1/token-policy";
                    body = body(Map.of("defaultLifetime", lifetimes(), "maxLifetime", List.of("\"365d\"", "\"30d\"",
                            "\"3650d\"", "\"3651d\"", "\"1s\"", "\"0s\"", "\"-1d\"", "\"9999999999999d\"", "365",
                            "null")));
                }
                case "PUT /v1/brakes" -> {
                    path = "/v1/brakes";
                    body = body(Map.of("maxRequeues", numberValues(), "maxGpuHoursPerWorkload", numberValues()));
                }
                default -> path = endpoint.substring(endpoint.indexOf(' ') + 1);
            }
            if (random.nextInt(12) == 0) {
                path = oddPath(path);
            }
            if (random.nextInt(8) == 0) {
                method = pick(List.of(method.toLowerCase(), "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD",
                        "FOO", "Get", "TRACE"));
            }
            if (body == null && random.nextInt(10) == 0) {
                body = garbage();
            } else if (body != null && random.nextInt(6) == 0) {
                body = garbage();
            }
            String contentType = body == null && random.nextBoolean() ? null : pick(List.of("application/json",
                    "application/json", "application/json", "application/json; charset=utf-8", "text/plain",
                    "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "",
                    "application/json; charset=latin1"));
            return new Made(endpoint, new Call(method, path, contentType, token(), body));
        }

        private String token() {
            int r = random.nextInt(20);
            if (r == 0) {
                return null;
            }
            if (r == 1) {
                return pick(List.of("Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "bearer tok-root", "Bearer tok-nobody",
                        "Bearer " + "x".repeat(5_000), "Bearer tok-root tok-alice", "Bearer \u00e9\u00e9"));
            }
            if (r == 2 && !tokenIds.isEmpty()) {
                return "Bearer " + tokenIds.get(random.nextInt(tokenIds.size()))[2]; // perhaps revoked by now
            }
            return "Bearer " + (r < 12 || tokens.isEmpty() ? "tok-root" : pick(tokens));
        }

        private String workloadId() {
            if (!workloadIds.isEmpty() && random.nextInt(3) > 0) {
                return workloadIds.get(random.nextInt(workloadIds.size()));
            }
            return pick(List.of("w-1", "w-0", "w--1", "w-99999999999999999999", "x", "%20", "w-1.5", "W-1",
                    "\u0660", "w-9223372036854775807"));
        }

        private String name(List<String> known) {
            return random.nextInt(6) == 0 ? pick(List.of("%20", "a%2Fb", "..", "", "\u00e9t\u00e9", "x".repeat(300),
                    "a b", "%00", "%ZZ")) : pick(known);
        }

        private String oddPath(String path) {
            return switch (random.nextInt(9)) {
                case 0 -> path.replaceFirst("/v1/", "/v1//");
                case 1 -> path + "/../health";
                case 2 -> path.replace("/v1/", "/v1/%2e/");
                case 3 -> path + "/";
                case 4 -> path + "%2F..";
                case 5 -> path.toUpperCase();
                case 6 -> path + "?" + "q=".repeat(3_000);
                case 7 -> path + ";jsessionid=1";
                default -> path + "/extra";
            };
        }

        private byte[] submission() {
            Map<String, List<String>> fields = new LinkedHashMap<>();
            fields.put("allocation", List.of("\"lab/a\"", "\"lab/b\"", "\"lab\"", "\"lab/a/x\"", "\"nope\"", "1",
                    "\"lab/../lab/a\"", "null"));
            fields.put("gpus", numberValues());
            fields.put("gpusPerNode", List.of("0", "1", "2", "-1", "1.5", "\"2\""));
            fields.put("minRuntime", List.of("\"0\"", "\"10m\"", "\"1h\"", "\"-1h\"", "\"99999999999999999999d\"",
                    "\"\"", "0", "\"1h1h\""));
            fields.put("duration", List.of("\"1h\"", "\"30s\"", "\"0\"", "\"9223372036854775807\"", "true"));
            fields.put("resumable", List.of("true", "false", "\"true\"", "null"));
            fields.put("priority", List.of("\"normal\"", "\"high\"", "\"low\"", "\"urgent\"", "7"));
            fields.put("kind", List.of("\"train\"", "\"eval\"", "\"interactive\"", "\"x\""));
            fields.put("command", List.of("[\"sleep\", \"1\"]", "[\"true\"]", "[]", "\"sleep 1\"", "[1, 2]",
                    "[\"\\u0000\"]", "[\"\u00e9\u6f22\ud83d\ude00\"]", "[\"" + "a".repeat(10_000) + "\"]", "null"));
            fields.put("environment", List.of("{}", "{\"A\": \"1\"}", "{\"\": \"x\"}", "{\"A\": 1}", "[]",
                    "{\"PATH\": \"/tmp\"}", "{\"A=B\": \"c\"}"));
            fields.put("idempotencyKey", List.of("\"k-" + random.nextInt(1_000) + "\"", "\"k1\"", "\"\"", "5",
                    "\"" + "k".repeat(1_000) + "\""));
            return body(fields);
        }

        private byte[] batch() {
            int n = pick(List.of(0, 1, 2, 3, 1_001));
            fieldsSent.computeIfAbsent(aiming, e -> new TreeSet<>()).add("workloads");
            StringBuilder sb = new StringBuilder("{\"workloads\": [");
            for (int i = 0; i < n; i++) {
                sb.append(i == 0 ? "" : ", ").append(n > 10 ? "{}" : new String(submission(), StandardCharsets.UTF_8));
            }
            sb.append("]").append(random.nextInt(10) == 0 ? ", \"extra\": 1" : "").append("}");
            return sb.toString().getBytes(StandardCharsets.UTF_8);
        }

        /** A JSON object of the fields, each with one of its candidate raw values; sometimes missing or extra. */
        private byte[] body(Map<String, List<String>> fields) {
            StringBuilder sb = new StringBuilder("{");
            List<String> names = new ArrayList<>(new TreeMap<>(fields).keySet());
            // Half the bodies are valid (each field one of its first two values), so requests get acknowledged;
            // the other half take any value, or none, for each field.
            boolean valid = random.nextBoolean();
            for (String name : names) {
                if (!valid && random.nextInt(10) == 0) {
                    continue; // missing
                }
                List<String> values = fields.get(name);
                String v = valid ? values.get(random.nextInt(Math.min(2, values.size())))
                        : values.get(random.nextInt(values.size()));
                sb.append(sb.length() > 1 ? ", " : "").append('"').append(name).append("\": ").append(v);
                fieldsSent.computeIfAbsent(aiming, e -> new TreeSet<>()).add(name);
            }
            if (!valid && random.nextInt(8) == 0) {
                sb.append(sb.length() > 1 ? ", " : "").append("\"unknownField\": 1");
            }
            return sb.append('}').toString().getBytes(StandardCharsets.UTF_8);
        }

        private byte[] garbage() {
            return switch (random.nextInt(12)) {
                case 0 -> new byte[0];
                case 1 -> "{".getBytes(StandardCharsets.UTF_8);
                case 2 -> "[]".getBytes(StandardCharsets.UTF_8);
                case 3 -> "null".getBytes(StandardCharsets.UTF_8);
                case 4 -> "\"just a string\"".getBytes(StandardCharsets.UTF_8);
                case 5 -> "[".repeat(5_000).getBytes(StandardCharsets.UTF_8);
                case 6 -> "{\"a\": 1e999999}".getBytes(StandardCharsets.UTF_8);
                case 7 -> {
                    byte[] b = new byte[random.nextInt(200) + 1];
                    random.nextBytes(b);
                    yield b;
                }
                case 8 -> "{\"a\": 1, \"a\": 2}".getBytes(StandardCharsets.UTF_8);
                case 9 -> "{} {}".getBytes(StandardCharsets.UTF_8);
                case 10 -> "{\"\\ud800\": \"\\udfff\"}".getBytes(StandardCharsets.UTF_8);
                default -> ("{\"x\": \"" + "y".repeat(200_000) + "\"}").getBytes(StandardCharsets.UTF_8);
            };
        }

        private String query(Map<String, List<String>> params) {
            StringBuilder sb = new StringBuilder();
            for (String name : new TreeMap<>(params).keySet()) {
                if (random.nextInt(3) == 0) {
                    List<String> values = params.get(name);
                    sb.append(sb.length() == 0 ? "?" : "&").append(name).append('=')
                            .append(java.net.URLEncoder.encode(values.get(random.nextInt(values.size())),
                                    StandardCharsets.UTF_8));
                }
            }
            if (random.nextInt(10) == 0) {
                sb.append(sb.length() == 0 ? "?" : "&").append(pick(List.of("bogus=1", "limit=1&limit=2", "=", "&&",
                        "%ZZ=1", "limit")));
            }
            return sb.toString();
        }

        private static List<String> numbers() {
            return List.of("1", "10", "0", "-1", "9223372036854775807", "99999999999999999999", "1.5", "x", "",
                    "1e3");
        }

        private static List<String> numberValues() {
            return List.of("1", "2", "0", "-1", "9223372036854775807", "99999999999999999999", "1.5", "1e308",
                    "-0", "\"1\"", "null", "true");
        }

        /** Token lifetimes: the first two valid under the default policy, then boundary and malformed ones. */
        private static List<String> lifetimes() {
            return List.of("\"30d\"", "\"1h\"", "\"1s\"", "\"0s\"", "\"-1d\"", "\"366d\"", "\"99999999999999d\"",
                    "\"1x\"", "\"\"", "3600", "null");
        }

        private static List<String> userLists() {
            return List.of("[]", "[\"alice\"]", "[\"nobody\"]", "\"alice\"", "[1]", "null", "[\"alice\", \"alice\"]");
        }

        private static List<String> strings() {
            return List.of("\"ci\"", "\"\"", "\"\u00e9\u6f22\ud83d\ude00\"", "\"\\u0000\"", "1",
                    "\"" + "l".repeat(5_000) + "\"", "null");
        }

        private <T> T pick(List<T> values) {
            return values.get(random.nextInt(values.size()));
        }
    }
}
