package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.service.ApiFuzzer.Call;
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

    /** What the 2xx answers say the service now holds. */
    static final class Model {
        final Set<String> workloads = new TreeSet<>();
        final Set<String> campaigns = new TreeSet<>();
        final Map<String, Double> allocations = new TreeMap<>();
        final Map<String, String> users = new TreeMap<>();
        /** Tokens per user the store was seeded with (the fuzz cannot revoke them: it never learns their ids). */
        final Map<String, Integer> seedTokens = new TreeMap<>();
        /** Tokens made by acknowledged requests and not revoked: id -> {user, secret, the secret that minted it}. */
        final Map<String, String[]> minted = new LinkedHashMap<>();
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
            ApiFuzzer fuzz = new ApiFuzzer(new Random(SEED));
            fuzz.tokens.addAll(List.of("tok-root", "tok-alice", "tok-bob"));

            List<String> fiveHundreds = new ArrayList<>();
            Map<Integer, Integer> statuses = new TreeMap<>();
            Map<String, Integer> endpoints = new TreeMap<>();
            long started = System.nanoTime();
            Call previous = null;
            for (int i = 0; i < REQUESTS; i++) {
                ApiFuzzer.Made made = fuzz.next();
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
                    + " acknowledged: %d workloads, campaigns %s, allocations %s, users %s, tokens %s, nodes %s; per"
                    + " endpoint %s%n",
                    SEED, REQUESTS, tookMillis, endpoints.size(), statuses, model.workloads.size(), model.campaigns,
                    model.allocations,
                    model.users, model.tokens(), model.nodes, endpoints);

            assertThat(fiveHundreds).as("requests answered 5xx or not at all").isEmpty();
            assertThat(endpoints.keySet()).as("every endpoint was exercised").containsAll(ApiFuzzer.ENDPOINTS);
            assertThat(statuses.keySet().stream().filter(c -> c >= 200 && c < 300).count()).isPositive();

            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/health"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);

            // Every acknowledged submission is in the queue, and nothing else is.
            // (A campaign's shards are workloads the scheduler submits for the campaigns acknowledged, and only those.)
            assertThat(queue(http, base, null)).isEqualTo(model.workloads);
            assertThat(campaignsOf(queue(http, base, "campaign"), s)).isSubsetOf(model.campaigns);
            Set<String> campaigns = new TreeSet<>();
            s.store().campaigns().campaigns(null).forEach(c -> campaigns.add(c.name()));
            assertThat(campaigns).isEqualTo(model.campaigns);
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
        doc.path("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
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

        ApiFuzzer fuzz = new ApiFuzzer(new Random(SEED));
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
        ApiFuzzer a = new ApiFuzzer(new Random(7));
        ApiFuzzer b = new ApiFuzzer(new Random(7));
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
    private static void acknowledge(Model model, ApiFuzzer fuzz, Call call, HttpResponse<String> r) {
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
        } else if (route.equals("POST /v1/campaigns")) {
            model.campaigns.add(json.path("name").asText());
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

    /** The ids of every workload of kind {@code kind} ({@code campaign}: a campaign's shard), or of the others. */
    private static Set<String> queue(HttpClient http, String base, String kind) throws Exception {
        Set<String> ids = new TreeSet<>();
        long after = 0;
        while (true) {
            JsonNode page = get(http, base, "/v1/workloads?limit=1000&after=" + after).path("workloads");
            if (page.isEmpty()) {
                return ids;
            }
            for (JsonNode w : page) {
                if (w.path("kind").asText().equals("campaign") == "campaign".equals(kind)) {
                    ids.add(w.path("id").asText());
                }
                after = Math.max(after, w.path("seq").asLong());
            }
        }
    }

    /** The campaigns the given shard workloads belong to. */
    private static Set<String> campaignsOf(Set<String> workloads, Service s) {
        Set<String> out = new TreeSet<>();
        for (String id : workloads) {
            out.add(s.store().campaigns().shardOf(id).map(x -> x.campaign()).orElse("(no campaign: " + id + ")"));
        }
        return out;
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
}
