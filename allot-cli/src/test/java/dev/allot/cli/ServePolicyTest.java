package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.policy.PolicyOptions;
import dev.allot.server.service.Service;
import dev.allot.server.service.ServiceConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} runs the {@code policy.yaml} it is given, read as {@code simulate} reads it (same errors), shows it
 * at {@code GET /v1/policy}, and lets an administrator change it with {@code PUT /v1/policy}: validated, audited,
 * kept across a restart, applied by the loop; {@code --policy-file} wins over the stored one.
 */
class ServePolicyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BAD = "lookback: 3d\nallocation:\n  reclaim-margin: lots\n";
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void aBadPolicyFileIsRefusedWithSimulatesMessageNamingTheFileLineAndFieldBeforeAnythingIsCreated()
            throws Exception {
        // a value that does not read, and one that reads but is out of range (the policy's own check)
        for (String bad : List.of(BAD, "lookback: 3d\nallocation:\n  reclaim-margin: -1\n")) {
            Path file = Files.writeString(dir.resolve("lab-policy.yaml"), bad);
            Path data = dir.resolve("data");

            Cli.Result served = Cli.run("serve", "--port", "0", "--data-dir", data.toString(), "--backend",
                    "simulated", "--policy-file", file.toString());

            Path scenario = Files.createDirectories(dir.resolve("scenario"));
            for (String f : List.of("cluster.yaml", "allocations.yaml", "workloads.csv")) {
                Files.copy(Path.of(Cli.example("tiny")).resolve(f), scenario.resolve(f),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            Files.writeString(scenario.resolve("policy.yaml"), bad);
            Cli.Result simulated = Cli.run("simulate", scenario.toString(), "--policy", "allocation");

            assertThat(simulated.exit()).as(simulated.err()).isEqualTo(2);
            String problem = simulated.err().strip().substring("allot: policy.yaml".length());
            assertThat(problem).startsWith(":3:19: field 'allocation': setting 'reclaim-margin': ");
            assertThat(served.exit()).as(served.err()).isEqualTo(2);
            assertThat(served.err().strip()).isEqualTo("allot: " + file + problem);
            assertThat(served.err()).doesNotContain("Exception").doesNotContain("\tat ");
            assertThat(data).as("nothing created").doesNotExist();
        }
        // a file that is not there is said in words
        Cli.Result missing = Cli.run("serve", "--port", "0", "--data-dir", dir.resolve("data").toString(),
                "--backend", "simulated", "--policy-file", dir.resolve("nope.yaml").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err().strip()).isEqualTo("allot: --policy-file " + dir.resolve("nope.yaml") + ": no such"
                + " file; expected a policy.yaml (allot policy show --yaml prints the one a running service has)");
    }

    @Test
    void theDataDirectorysPolicyYamlIsReadWhenNoFileIsNamed() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        assertThat(ServePolicy.options(null, data).given().source()).isEqualTo("defaults");

        Files.writeString(data.resolve("policy.yaml"), "lookback: 2d\n");
        PolicyOptions o = ServePolicy.options(null, data);

        assertThat(o.explicit()).isFalse();
        assertThat(o.given().scheduler().lookback()).isEqualTo(Duration.ofDays(2));
        assertThat(o.given().source()).isEqualTo("file " + data.toAbsolutePath().normalize().resolve("policy.yaml")
                + " (in the data directory)");
    }

    @Test
    void anAdministratorChangesThePolicyThroughTheApiAuditedKeptAcrossARestartAndAppliedByTheLoop()
            throws Exception {
        Path file = Files.writeString(dir.resolve("policy.yaml"), "lookback: 3d\nallocation:\n  reclaim-margin: 0.2\n");
        Path data = dir.resolve("data");
        String admin;
        try (Service s = start(data, ServePolicy.options(file, data))) {
            admin = s.adminToken().orElseThrow();
            String member = member(s, admin);

            JsonNode shown = json(call(s, "GET", member, null), 200);
            assertThat(shown.path("policy").asText()).isEqualTo("allocation");
            assertThat(shown.path("source").asText()).isEqualTo("file " + file.toAbsolutePath() + " (--policy-file)");
            assertThat(shown.path("settings").path("lookback").asText()).isEqualTo("3d");
            assertThat(shown.path("settings").path("max-min-runtime").asText()).isEqualTo("8h");
            assertThat(shown.path("settings").path("allocation").path("reclaim-margin").asText()).isEqualTo("0.2");
            assertThat(shown.path("text").asText()).contains("reclaim-margin: 0.2");
            awaitLookback(s, Duration.ofDays(3));

            assertThat(call(s, "PUT", member, "lookback: 1d\n").statusCode()).isEqualTo(403);
            JsonNode refused = json(call(s, "PUT", admin, BAD), 400);
            assertThat(refused.path("error").asText()).isEqualTo("policy.yaml:3:19: field 'allocation': "
                    + problemOf(BAD));
            // a value that reads but is out of range is refused the same way, located, and nothing is kept
            JsonNode outOfRange = json(call(s, "PUT", admin, "allocation:\n  reclaim-margin: -1\n"), 400);
            assertThat(outOfRange.path("error").asText()).isEqualTo("policy.yaml:2:19: field 'allocation':"
                    + " setting 'reclaim-margin': must be a number >= 0, got -1");
            assertThat(json(call(s, "GET", member, null), 200).path("settings").path("allocation")
                    .path("reclaim-margin").asText()).isEqualTo("0.2");

            JsonNode changed = json(call(s, "PUT", admin, "lookback: 1d\nmax-min-runtime: 2h\n"), 200);
            assertThat(changed.path("settings").path("lookback").asText()).isEqualTo("1d");
            assertThat(changed.path("source").asText()).startsWith("set through the API by admin at ");
            assertThat(json(call(s, "GET", member, null), 200).path("settings").path("max-min-runtime").asText())
                    .isEqualTo("2h");
            awaitLookback(s, Duration.ofDays(1));
            JsonNode submitted = json(http.send(request(s, "/v1/workloads", admin).POST(HttpRequest.BodyPublishers
                    .ofString("{\"allocation\": \"lab/nlp/pretrain\", \"gpus\": 1, \"minRuntime\": \"3h\","
                            + " \"resumable\": false, \"priority\": \"normal\", \"command\": [\"true\"]}"))
                    .build(), HttpResponse.BodyHandlers.ofString()), 201);
            assertThat(submitted.path("minRuntime").asText()).as("capped by the new max-min-runtime").isEqualTo("2h");
            JsonNode audit = json(http.send(request(s, "/v1/audit", admin).GET().build(),
                    HttpResponse.BodyHandlers.ofString()), 200);
            assertThat(audit.path("entries").findValuesAsText("action")).containsOnlyOnce("policy.put");
        }
        try (Service s = start(data, ServePolicy.options(null, data))) {
            JsonNode kept = json(call(s, "GET", admin, null), 200);
            assertThat(kept.path("settings").path("lookback").asText()).isEqualTo("1d");
            assertThat(kept.path("source").asText()).startsWith("set through the API by admin at ");
            awaitLookback(s, Duration.ofDays(1));
        }
        try (Service s = start(data, ServePolicy.options(file, data))) {
            assertThat(json(call(s, "GET", admin, null), 200).path("settings").path("lookback").asText())
                    .as("--policy-file wins over the stored policy").isEqualTo("3d");
        }
    }

    /** The problem simulate reports for the bad reclaim-margin (after the location). */
    private String problemOf(String text) throws Exception {
        try {
            ServePolicy.reader().read(text, "x", "test");
        } catch (IllegalArgumentException e) {
            return e.getMessage().substring("x:3:19: field 'allocation': ".length());
        }
        throw new AssertionError("the reader took " + text);
    }

    private static Service start(Path data, PolicyOptions policy) {
        ServiceConfig c = ServiceConfig.defaults(data).withPort(0).withBackend(ServiceConfig.SIMULATED).withDemo(true)
                .withVirtualGpus(4).withNodeName("n1").withTick(Duration.ofMillis(50));
        return Service.start(c, Clock.systemUTC(), Map.of(), policy);
    }

    /** Waits until the loop runs with this lookback. */
    private static void awaitLookback(Service s, Duration lookback) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < until) {
            if (s.loop().inspect((state, now) -> state.config().lookback()).filter(lookback::equals).isPresent()) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the loop did not take lookback " + lookback + " within 10 s");
    }

    /** A member's token: user 'mia' made by the administrator. */
    private String member(Service s, String admin) throws Exception {
        json(http.send(request(s, "/v1/users/mia", admin).PUT(HttpRequest.BodyPublishers.ofString("{\"role\": \"user\"}"))
                .build(), HttpResponse.BodyHandlers.ofString()), 201);
        return json(http.send(request(s, "/v1/users/mia/tokens", admin).POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(), HttpResponse.BodyHandlers.ofString()), 201).path("token").asText();
    }

    private HttpResponse<String> call(Service s, String method, String token, String body) throws Exception {
        return http.send(request(s, "/v1/policy", token).method(method, body == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder request(Service s, String path, String token) {
        return HttpRequest.newBuilder(URI.create(s.url() + path)).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(20));
    }

    private static JsonNode json(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return JSON.readTree(r.body());
    }
}
