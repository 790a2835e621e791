package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.BrakeLimits;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Workload;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code GET} and {@code PUT /v1/brakes}: who may read and set the safety brakes, what a bad body is answered with
 * (400 naming the field, never a 500, nothing changed), the audit entry, and how a held workload shows (its
 * {@code heldReason}, and first in its explanation).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BrakesApiTest {
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

    @Test
    @Order(1)
    void everySignedInUserReadsTheDefaults() {
        Response r = api.get("/v1/brakes", "tok-outsider");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().toString()).isEqualTo("{\"maxRequeues\":20,\"maxGpuHoursPerWorkload\":null}");
        assertThat(api.get("/v1/brakes", null).status()).isEqualTo(401);
    }

    @Test
    @Order(2)
    void onlyAdministratorsSetThemAndTheChangeIsAudited() {
        String body = "{\"maxRequeues\": 30, \"maxGpuHoursPerWorkload\": 100.0}";
        for (String user : List.of("mp", "member", "outsider")) {
            Response r = api.put("/v1/brakes", "tok-" + user, body);
            assertThat(r.status()).as(user).isEqualTo(403);
            assertThat(r.error()).contains("may not change the brakes");
        }
        assertThat(api.put("/v1/brakes", null, body).status()).isEqualTo(401);
        assertThat(api.store.settings().brakes()).isEqualTo(BrakeLimits.DEFAULTS);

        Response r = api.put("/v1/brakes", "tok-root", body);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().toString()).isEqualTo("{\"maxRequeues\":30,\"maxGpuHoursPerWorkload\":100.0}");
        assertThat(api.get("/v1/brakes", "tok-member").json().toString()).isEqualTo(r.json().toString());
        Response audit = api.get("/v1/audit?limit=1", "tok-root");
        assertThat(audit.json().path("entries").get(0).path("action").asText()).isEqualTo("brakes.put");
        assertThat(audit.json().path("entries").get(0).path("after").toString()).isEqualTo(r.json().toString());
        assertThat(api.get("/v1/audit?limit=1", "tok-mp").json().path("entries").toString())
                .doesNotContain("brakes.put");

        Response cleared = api.put("/v1/brakes", "tok-root", "{\"maxRequeues\": 0, \"maxGpuHoursPerWorkload\": null}");
        assertThat(cleared.status()).isEqualTo(200);
        assertThat(api.store.settings().brakes()).isEqualTo(new BrakeLimits(0, null));
    }

    static Stream<Arguments> badBodies() {
        return Stream.of(
                //        what is wrong                      body                                                                 field named
                arguments("not JSON",                        "maxRequeues=3",                                                     null),
                arguments("empty",                           "",                                                                  null),
                arguments("an array",                        "[{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": null}]",          null),
                arguments("trailing content",                "{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": null} 1",          null),
                arguments("unknown field",                   "{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": null, \"x\": 1}",  "x"),
                arguments("wrong case",                      "{\"MaxRequeues\": 3, \"maxGpuHoursPerWorkload\": null}",            "MaxRequeues"),
                arguments("given twice",                     "{\"maxRequeues\": 3, \"maxRequeues\": 4, \"maxGpuHoursPerWorkload\": null}", "maxRequeues"),
                arguments("requeues missing",                "{\"maxGpuHoursPerWorkload\": null}",                                "maxRequeues"),
                arguments("requeues null",                   "{\"maxRequeues\": null, \"maxGpuHoursPerWorkload\": null}",         "maxRequeues"),
                arguments("requeues negative",               "{\"maxRequeues\": -1, \"maxGpuHoursPerWorkload\": null}",           "maxRequeues"),
                arguments("requeues fractional",             "{\"maxRequeues\": 2.5, \"maxGpuHoursPerWorkload\": null}",          "maxRequeues"),
                arguments("requeues a string",               "{\"maxRequeues\": \"3\", \"maxGpuHoursPerWorkload\": null}",        "maxRequeues"),
                arguments("requeues too large",              "{\"maxRequeues\": 99999999999, \"maxGpuHoursPerWorkload\": null}",  "maxRequeues"),
                arguments("requeues a boolean",              "{\"maxRequeues\": true, \"maxGpuHoursPerWorkload\": null}",         "maxRequeues"),
                arguments("cap missing",                     "{\"maxRequeues\": 3}",                                              "maxGpuHoursPerWorkload"),
                arguments("cap negative",                    "{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": -0.5}",            "maxGpuHoursPerWorkload"),
                arguments("cap a string",                    "{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": \"none\"}",        "maxGpuHoursPerWorkload"),
                arguments("cap an object",                   "{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": {}}",              "maxGpuHoursPerWorkload"),
                arguments("cap beyond double",               "{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": 1e999}",           "maxGpuHoursPerWorkload"),
                arguments("cap NaN",                         "{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": NaN}",             null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBodies")
    @Order(3)
    void aBadBodyIs400NamingTheFieldAndChangesNothing(String what, String body, String field) {
        BrakeLimits before = api.store.settings().brakes();
        Response r = api.put("/v1/brakes", "tok-root", body);
        assertThat(r.status()).as(what).isEqualTo(400);
        assertThat(r.error()).as(what).isNotBlank();
        assertThat(r.field()).as(what).isEqualTo(field);
        assertThat(api.store.settings().brakes()).isEqualTo(before);
    }

    @Test
    @Order(3)
    void aCapBeyondTheLargestNumberIsNamedAsWrittenNotAsTheStringInfinity() {
        // Jackson reads 1e400 as Infinity: it said 'got a number ("Infinity")'
        for (String written : List.of("1e400", "-1E400", "123456789e999")) {
            Response r = api.put("/v1/brakes", "tok-root", "{\"maxRequeues\": 3, \"maxGpuHoursPerWorkload\": " + written
                    + "}");
            assertThat(r.status()).as(written).isEqualTo(400);
            assertThat(r.field()).as(written).isEqualTo("maxGpuHoursPerWorkload");
            assertThat(r.error()).as(written).isEqualTo("field 'maxGpuHoursPerWorkload': expected a finite number, got "
                    + written + " (beyond the largest number, about 1.8e308)");
        }
    }

    @Test
    @Order(4)
    void fuzzedBodiesAreNeverA500() {
        Random random = new Random(42);
        String[] pieces = {"{", "}", "[", "]", ",", ":", "\"maxRequeues\"", "\"maxGpuHoursPerWorkload\"", "null", "-1",
                "0", "3", "1e308", "1e309", "2.5", "\"x\"", "true", " ", "\\u0000", "99999999999999999999"};
        for (int i = 0; i < 300; i++) {
            StringBuilder sb = new StringBuilder(random.nextBoolean() ? "{" : "");
            for (int n = random.nextInt(10); n > 0; n--) {
                sb.append(pieces[random.nextInt(pieces.length)]);
            }
            Response r = api.put("/v1/brakes", "tok-root", sb.toString());
            assertThat(r.status()).as(sb.toString()).isIn(200, 400);
        }
        api.store.settings().putBrakes(new BrakeLimits(0, null), "root", 0);
    }

    @Test
    @Order(5)
    void aHeldWorkloadShowsItsReasonAndItsExplanationSaysSoFirst() {
        Workload w = api.store.workloads().submit(NewWorkload.builder(ApiFixture.X, "member").gpus(8)
                .resumable(true).command(List.of("train.py")).submittedAtMillis(0).build());
        api.store.attempts().endAttempt(api.store.attempts().beginAttempt(w.id(),
                List.of(new dev.allot.core.backend.Launch.NodeGpus("gpu-01", List.of(0, 1, 2, 3, 4, 5, 6, 7))), 0),
                AttemptOutcome.LOST, "node died", null, null, 3_600_000);
        String reason = "held: requeued 1 time, more than the limit of 0 (brakes.maxRequeues); raise it to release";
        api.store.workloads().setHeld(w.id(), reason); // as the loop does

        Response shown = api.get("/v1/workloads/" + w.id(), "tok-member");
        assertThat(shown.json().path("workload").path("heldReason").asText()).isEqualTo(reason);
        assertThat(shown.json().path("workload").path("state").asText()).isEqualTo("requeued");
        Response listed = api.get("/v1/workloads?state=requeued", "tok-member");
        assertThat(listed.json().path("workloads").get(0).path("heldReason").asText()).isEqualTo(reason);
        Response explained = api.get("/v1/workloads/" + w.id() + "/explain", "tok-member");
        assertThat(explained.json().path("summary").get(0).asText()).startsWith(w.id() + " is " + reason);
        assertThat(explained.json().path("summary").toString()).doesNotContain("not yet seen by the scheduler");

        Response cancelled = api.post("/v1/workloads/" + w.id() + "/cancel", "tok-member", null);
        assertThat(cancelled.json().path("state").asText()).isEqualTo("cancelled");
        assertThat(cancelled.json().path("heldReason").isNull()).isTrue();
    }
}
