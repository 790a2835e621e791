package dev.allot.server.service;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The requests of {@link ApiFuzzTest}, made from one {@link Random}: the same seed, the same sequence. Each aims at
 * one documented operation (a changed method or an odd path may miss it) and records the body fields it sent.
 */
final class ApiFuzzer {
    /** One request the fuzzer sends. */
    record Call(String method, String path, String contentType, String token, byte[] body) {
        String describe() {
            String b = body == null ? "" : new String(body, StandardCharsets.UTF_8);
            return method + " " + path + " [" + contentType + ", token " + token + "] "
                    + (b.length() > 200 ? b.substring(0, 200) + "..." : b);
        }
    }

    /** Every operation the served OpenAPI document lists (ApiFuzzTest checks that), and /metrics. */
    static final List<String> ENDPOINTS = List.of(
            "GET /v1/health", "GET /v1/openapi.json", "POST /v1/workloads", "POST /v1/workloads/batch",
            "GET /v1/workloads", "GET /v1/workloads/{id}", "POST /v1/workloads/{id}/cancel",
            "POST /v1/workloads/{id}/progress", "GET /v1/workloads/{id}/explain", "GET /v1/workloads/{id}/output",
            "GET /v1/allocations",
            "GET /v1/allocations/usage", "PUT /v1/allocations/{path}", "DELETE /v1/allocations/{path}",
            "GET /v1/audit", "GET /v1/me", "GET /v1/users", "PUT /v1/users/{name}", "GET /v1/users/{name}/tokens",
            "POST /v1/users/{name}/tokens", "DELETE /v1/users/{name}/tokens/{id}", "GET /v1/nodes",
            "PUT /v1/nodes/{name}", "GET /v1/brakes", "PUT /v1/brakes", "POST /v1/nodes/{name}/health",
            "GET /v1/token-policy", "PUT /v1/token-policy", "GET /metrics", "POST /v1/session", "GET /v1/session",
            "DELETE /v1/session", "GET /v1/queue", "GET /v1/drains", "GET /v1/forecasts", "GET /v1/timeline", "GET /v1/policy",
            "PUT /v1/policy", "POST /v1/campaigns", "GET /v1/campaigns", "GET /v1/campaigns/{name}",
            "PUT /v1/campaigns/{name}/brakes", "POST /v1/campaigns/{name}/retry", "DELETE /v1/campaigns/{name}",
            "POST /v1/whatif");
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

    ApiFuzzer(Random random) {
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
            case "GET /v1/workloads/{id}/output" -> path = "/v1/workloads/" + workloadId() + "/output" + query(Map.of(
                    "attempt", numbers(), "tailBytes", List.of("1", "65536", "1048576", "1048577", "0", "-5", "x")));
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
            case "GET /v1/timeline" -> path = "/v1/timeline" + query(Map.of("hours", List.of("1", "24", "168", "744", "745",
                    "0", "-1", "9223372036854775807", "1.5", "x", "")));
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
            case "POST /v1/session" -> {
                path = "/v1/session";
                body = body(Map.of("token", List.of("\"tok-root\"", "\"tok-alice\"", "\"nope\"", "\"\"", "1", "null",
                        "[]")));
            }
            case "GET /v1/queue" -> path = "/v1/queue" + query(Map.of("allocation", List.of("lab", "lab/a", "x/../y",
                    ""), "user", List.of("alice", "nobody", ""), "state", List.of("pending", "held", "running", "")));
            case "GET /v1/drains" -> path = "/v1/drains" + (random.nextInt(4) == 0 ? "?x=1" : "");
            case "GET /v1/forecasts" -> path = "/v1/forecasts" + (random.nextInt(4) == 0 ? "?x=1" : "");
            case "PUT /v1/policy" -> {
                path = "/v1/policy";
                body = pick(List.of("", "lookback: 3d\n", "lookback: -1\n", "allocation:\n  nope: 1\n", "{\"a\": 1}",
                        "\t\u0000")).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            }
            case "POST /v1/campaigns" -> {
                path = "/v1/campaigns";
                body = campaign();
            }
            case "GET /v1/campaigns/{name}" -> path = "/v1/campaigns/" + campaignName();
            case "DELETE /v1/campaigns/{name}" -> path = "/v1/campaigns/" + campaignName();
            case "PUT /v1/campaigns/{name}/brakes" -> {
                path = "/v1/campaigns/" + campaignName() + "/brakes";
                body = body(brakeFields());
            }
            case "POST /v1/campaigns/{name}/retry" -> {
                path = "/v1/campaigns/" + campaignName() + "/retry";
                body = random.nextInt(3) == 0 ? null : body(Map.of("shards", List.of("[0]", "[1, 0]", "[]", "[-1]",
                        "[99]", "[0.5]", "[\"0\"]", "null", "{}", "[9223372036854775807]")));
            }
            case "POST /v1/whatif" -> {
                path = "/v1/whatif";
                body = body(Map.of("shares", List.of("{\"lab/a\": 2}", "{}", "{\"/lab/b\": 0.5, \"lab/a\": 1}",
                        "{\"lab\": 2}", "{\"nope\": 1}", "{\"lab/a\": -1}", "{\"lab/a\": \"x\"}", "[]", "null",
                        "{\"\": 1}", "{\"lab/a\": 1e400}"), "settings", List.of("{}", "null",
                        "{\"lookback\": \"3d\"}", "{\"allocation.nope\": \"1\"}", "{\"kueue.x\": 1}", "[]",
                        "{\"allocation.x\": {}}"), "horizon", List.of("\"1h\"", "\"2h\"", "\"8d\"", "\"0s\"",
                        "\"-1d\"", "\"x\"", "1", "null", "\"9999999999999d\""), "runs", List.of("1", "2", "0",
                        "21", "-1", "1.5", "\"3\"", "null", "9223372036854775807")));
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

    /** Campaign names: mostly ones the fuzz may have made, some malformed. */
    private String campaignName() {
        return random.nextInt(5) == 0 ? pick(List.of("%20", "..", "a%2Fb", "x".repeat(70), "-x", "\u00e9"))
                : "c-" + random.nextInt(4);
    }

    private Map<String, List<String>> brakeFields() {
        return Map.of("shardGpuHours", numberValues(), "shardRequeues", numberValues(), "campaignGpuHours",
                numberValues(), "campaignCost", List.of("null", "10", "-1", "\"5\"", "1e308"), "pricePerGpuHour",
                List.of("null", "2.5", "0", "-2", "true"));
    }

    private byte[] campaign() {
        Map<String, List<String>> fields = new LinkedHashMap<>();
        fields.put("name", List.of("\"c-" + random.nextInt(4) + "\"", "\"c-0\"", "\"\"", "\"-x\"", "\"a/b\"", "1",
                "\"" + "n".repeat(65) + "\""));
        fields.put("allocation", List.of("\"lab/a\"", "\"lab/b\"", "\"lab\"", "\"nope\"", "null"));
        fields.put("command", List.of("[\"sleep\", \"{shard}\"]", "[\"true\"]", "[]", "\"x\"", "[1]"));
        fields.put("environment", List.of("{}", "{\"A\": \"1\"}", "{\"ALLOT_SHARD\": \"1\"}", "[]", "{\"A\": 1}"));
        fields.put("gpus", List.of("1", "2", "0", "-1", "1.5", "999999999"));
        fields.put("minRuntime", List.of("\"1h\"", "\"10m\"", "\"0\"", "\"-1h\"", "\"9999d\"", "3600"));
        fields.put("protectedShards", List.of("1", "0", "-1", "1.5", "null"));
        fields.put("protectedGpus", List.of("2", "0", "-1", "\"2\""));
        fields.put("secondsPerUnit", List.of("60", "0.5", "0", "-1", "1e308", "\"x\""));
        fields.put("priority", List.of("\"normal\"", "\"high\"", "\"x\"", "1"));
        fields.put("shards", List.of("[{\"units\": 4}]", "[{\"units\": 10, \"family\": \"a\"}, {\"units\": 3}]", "[]",
                "[{\"units\": 0}]", "[{\"rows\": 1}]", "[1]", "{}"));
        fields.put("brakes", List.of("{}", "{\"shardGpuHours\": 10}", "{\"campaignCost\": 5}", "[]",
                "{\"shardRequeues\": -1}", "null"));
        fields.put("failureRetries", List.of("0", "2", "100", "101", "-1", "1.5", "\"2\"", "null"));
        byte[] b = body(fields);
        // A campaign takes one of protectedShards and protectedGpus: mostly only one is kept, so that some are valid.
        if (random.nextInt(4) > 0) {
            try {
                var o = (com.fasterxml.jackson.databind.node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(b);
                o.remove(random.nextBoolean() ? "protectedShards" : "protectedGpus");
                b = o.toString().getBytes(StandardCharsets.UTF_8);
            } catch (java.io.IOException | ClassCastException e) {
                // not an object: sent as it is
            }
        }
        return b;
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
