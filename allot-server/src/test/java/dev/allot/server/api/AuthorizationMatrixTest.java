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
