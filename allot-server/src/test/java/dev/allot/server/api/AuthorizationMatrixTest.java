package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.allot.server.api.ApiFixture.Response;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Who may do what, as a table: each role (see {@link ApiFixture} for the tree) against each action on allocation
 * X = {@code lab/nlp/pretrain}. The workload to cancel is always a fresh one of user {@code owner}, so "cancel"
 * means cancelling someone else's workload; reporting its progress follows the same rule.
 */
class AuthorizationMatrixTest {
    static final int OK = 200;
    static final int CREATED = 201;
    static final int DENIED = 403;
    static final int NO_TOKEN = 401;

    @TempDir
    static Path dataDir;

    static ApiFixture api;

    @BeforeAll
    static void start() {
        api = new ApiFixture(dataDir);
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    static Stream<Arguments> matrix() {
        return Stream.of(
                //        role                                       token           submit to X  cancel other's in X  list
                arguments("admin",                                   "tok-root",     CREATED,     OK,                  OK),
                arguments("manager of the parent program (lab/nlp)", "tok-mp",       CREATED,     OK,                  OK),
                arguments("manager of a sibling subtree (lab/vision)", "tok-ms",     DENIED,      DENIED,              OK),
                arguments("member of X",                             "tok-member",   CREATED,     DENIED,              OK),
                arguments("member of another allocation only",       "tok-ms-member", DENIED,     DENIED,              OK),
                arguments("non-member",                              "tok-outsider", DENIED,      DENIED,              OK),
                arguments("no token",                                null,           NO_TOKEN,    NO_TOKEN,            NO_TOKEN));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("matrix")
    void roleAgainstActions(String role, String token, int submit, int cancel, int list) {
        Response submitted = api.post("/v1/workloads", token, body());
        String othersWorkload = api.submit("owner", body()).json().path("id").asText();
        Response progressed = api.post("/v1/workloads/" + othersWorkload + "/progress", token,
                "{\"done\": 5, \"total\": 10}");
        Response cancelled = api.post("/v1/workloads/" + othersWorkload + "/cancel", token, null);
        Response listed = api.get("/v1/workloads", token);

        assertThat(submitted.status()).as("%s submits to X: %s", role, submitted.json()).isEqualTo(submit);
        assertThat(cancelled.status()).as("%s cancels another's workload in X: %s", role, cancelled.json())
                .isEqualTo(cancel);
        assertThat(listed.status()).as("%s lists the queue", role).isEqualTo(list);
        assertThat(progressed.status()).as("%s reports progress of another's workload in X (the cancel rule): %s", role,
                progressed.json()).isEqualTo(cancel);
        String state = api.store.workloads().workload(othersWorkload).orElseThrow().state().label();
        assertThat(state).as("the workload was cancelled exactly when allowed").isEqualTo(cancel == OK ? "cancelled" : "pending");
        if (submit == DENIED || cancel == DENIED) {
            assertThat(submit == DENIED ? submitted.error() : cancelled.error()).isNotBlank();
        }
    }

    static final String SECRET_COMMAND = "[\"python\", \"train.py\", \"--api-key=sk-live-123\"]";
    static final String SECRET_ENVIRONMENT = "{\"HF_TOKEN\": \"hf_secret_456\"}";

    static Stream<Arguments> viewers() {
        return Stream.of(
                //        role                                         token            sees command and environment
                arguments("admin",                                     "tok-root",      true),
                arguments("the submitter",                             "tok-owner",     true),
                arguments("manager of the parent program (lab/nlp)",   "tok-mp",        true),
                arguments("manager of a sibling subtree (lab/vision)", "tok-ms",        false),
                arguments("another member of X",                       "tok-member",    false),
                arguments("member of another allocation only",         "tok-ms-member", false),
                arguments("non-member",                                "tok-outsider",  false));
    }

    /**
     * Given a workload of {@code owner} in X whose command and environment hold secrets and whose idempotency key names
     * the owner's pipeline, when each role reads it through every view (the queue, the queue filtered by user, the
     * workload, its explanation), then the submitter, the managers above X and admins see the command, environment
     * and key, everyone else sees who, where, how many GPUs, its state and its explanation, but neither the command,
     * the environment nor the key; without a token, nothing.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("viewers")
    void roleAgainstWorkloadViews(String role, String token, boolean seesDetails) {
        String id = api.submit("owner", body("command", SECRET_COMMAND, "environment", SECRET_ENVIRONMENT,
                "idempotencyKey", "\"nightly-merger-eval-42\"")).json().path("id").asText();

        Response listed = api.get("/v1/workloads", token);
        Response filtered = api.get("/v1/workloads?user=owner&limit=1000", token);
        Response shown = api.get("/v1/workloads/" + id, token);
        Response explained = api.get("/v1/workloads/" + id + "/explain", token);

        for (Response r : java.util.List.of(listed, filtered, shown, explained)) {
            assertThat(r.status()).as("%s reads a view: %s", role, r.json()).isEqualTo(OK);
        }
        java.util.List<com.fasterxml.jackson.databind.JsonNode> views = new java.util.ArrayList<>();
        for (Response list : java.util.List.of(listed, filtered)) {
            list.json().path("workloads").forEach(w -> {
                if (w.path("id").asText().equals(id)) {
                    views.add(w);
                }
            });
        }
        views.add(shown.json().path("workload"));
        assertThat(views).as("the workload in both lists and on its own").hasSize(3);
        for (com.fasterxml.jackson.databind.JsonNode w : views) {
            assertThat(w.path("user").asText()).isEqualTo("owner");
            assertThat(w.path("allocation").asText()).isEqualTo(X);
            assertThat(w.path("gpus").asInt()).isEqualTo(8);
            assertThat(w.path("state").asText()).isEqualTo("pending");
            assertThat(w.path("redacted").asBoolean()).as("%s: redacted", role).isEqualTo(!seesDetails);
            if (seesDetails) {
                assertThat(w.path("command").toString()).contains("--api-key=sk-live-123");
                assertThat(w.path("environment").path("HF_TOKEN").asText()).isEqualTo("hf_secret_456");
                assertThat(w.path("idempotencyKey").asText()).isEqualTo("nightly-merger-eval-42");
            } else {
                assertThat(w.path("command").isNull()).as("%s sees no command", role).isTrue();
                assertThat(w.path("environment").isNull()).as("%s sees no environment", role).isTrue();
                assertThat(w.path("idempotencyKey").isNull()).as("%s sees no idempotency key", role).isTrue();
            }
        }
        assertThat(explained.json().path("state").asText()).isEqualTo("pending");
        assertThat(explained.json().path("summary")).isNotEmpty();
        String everything = listed.json().toString() + filtered.json() + shown.json() + explained.json();
        if (!seesDetails) {
            assertThat(everything).as("%s finds no secret anywhere", role).doesNotContain("sk-live-123", "hf_secret_456",
                    "nightly-merger-eval");
        }
        assertThat(explained.json().toString()).as("an explanation never carries them").doesNotContain("sk-live-123",
                "hf_secret_456");
        for (String path : java.util.List.of("/v1/workloads", "/v1/workloads/" + id, "/v1/workloads/" + id + "/explain")) {
            assertThat(api.get(path, null).status()).as("no token: %s", path).isEqualTo(NO_TOKEN);
        }
    }

    @Test
    void ownersMayCancelTheirOwnAndManagersOfTheSiblingMaySubmitThere() {
        String own = api.submit("owner", body()).json().path("id").asText();
        assertThat(api.post("/v1/workloads/" + own + "/cancel", "tok-owner", null).status()).isEqualTo(OK);
        assertThat(api.post("/v1/workloads", "tok-ms", body("allocation", "\"lab/vision/detect\"")).status())
                .as("a manager manages the subtree below it").isEqualTo(CREATED);
        Response inner = api.post("/v1/workloads", "tok-ms", body("allocation", "\"lab/vision\""));
        assertThat(inner.status()).as("but work runs in leaves, not in the node itself").isEqualTo(400);
        assertThat(inner.field()).isEqualTo("allocation");
        assertThat(api.post("/v1/workloads", "tok-member", body("allocation", "\"lab/nlp\"")).status())
                .as("membership of X is not membership of its parent").isEqualTo(DENIED);
        assertThat(X).startsWith("lab/nlp/");
    }
}
