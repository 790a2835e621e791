package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.backend.Launch;
import dev.allot.server.CapturedLog;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.AttemptOutcome;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The endpoints' happy paths, 404s and 401s, and idempotent submission, each against a fresh store. */
class ApiTest {
    @TempDir
    Path dataDir;

    ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture(dataDir);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void submitStoresThePendingWorkloadAndAnswersWithIt() {
        Response r = api.submit("member", body("idempotencyKey", "\"run-1\""));

        assertThat(r.status()).isEqualTo(201);
        assertThat(r.contentType()).startsWith("application/json");
        JsonNode w = r.json();
        assertThat(w.path("id").asText()).matches("w-\\d+");
        assertThat(w.path("allocation").asText()).isEqualTo(X);
        assertThat(w.path("user").asText()).isEqualTo("member");
        assertThat(w.path("gpus").asInt()).isEqualTo(8);
        assertThat(w.path("gpusPerNode").asInt()).isEqualTo(4);
        assertThat(w.path("minRuntime").asText()).isEqualTo("2h");
        assertThat(w.path("allocated").asBoolean()).isTrue();
        assertThat(w.path("duration").asText()).isEqualTo("6h");
        assertThat(w.path("resumable").asBoolean()).isTrue();
        assertThat(w.path("priority").asText()).isEqualTo("normal");
        assertThat(w.path("kind").asText()).isEqualTo("train");
        assertThat(w.path("command").toString()).isEqualTo("[\"python\",\"train.py\",\"--lr\",\"3e-4\"]");
        assertThat(w.path("environment").toString()).isEqualTo("{\"SEED\":\"7\"}");
        assertThat(w.path("state").asText()).isEqualTo("pending");
        assertThat(w.path("submittedAt").asText()).isEqualTo("2026-03-01T09:00:00.000Z");
        assertThat(w.path("idempotencyKey").asText()).isEqualTo("run-1");

        var stored = api.store.workloads().workload(w.path("id").asText()).orElseThrow();
        assertThat(stored.minRuntimeSeconds()).isEqualTo(7200);
        assertThat(stored.durationSeconds()).isEqualTo(21_600L);
        assertThat(stored.submittedAtMillis()).isEqualTo(ApiFixture.NOW.toEpochMilli());
        assertThat(stored.idempotencyKey()).isEqualTo("6:member:run-1");
    }

    @Test
    void optionalFieldsTakeTheirDefaultsAndZeroMinRuntimeIsUnallocated() {
        Response r = api.submit("member", body("gpusPerNode", null, "kind", null, "duration", null,
                "environment", null, "minRuntime", "\"0\"", "priority", "\"HIGH\""));

        assertThat(r.status()).isEqualTo(201);
        assertThat(r.json().path("gpusPerNode").asInt()).isZero();
        assertThat(r.json().path("kind").asText()).isEqualTo("train");
        assertThat(r.json().path("duration").isNull()).isTrue();
        assertThat(r.json().path("environment").size()).isZero();
        assertThat(r.json().path("minRuntime").asText()).isEqualTo("0s");
        assertThat(r.json().path("allocated").asBoolean()).isFalse();
        assertThat(r.json().path("priority").asText()).isEqualTo("high");
        assertThat(r.json().path("idempotencyKey").isNull()).isTrue();
    }

    @Test
    void listIsInSubmissionOrderAndFiltersByStateAllocationUserAndLimit() {
        String a = id(api.submit("member", body()));
        String b = id(api.submit("owner", body()));
        String c = id(api.submit("ms-member", body("allocation", "\"lab/vision/detect\"")));
        String d = id(api.submit("member", body()));
        assertThat(api.post("/v1/workloads/" + b + "/cancel", "tok-owner", null).status()).isEqualTo(200);

        assertThat(ids(api.get("/v1/workloads", "tok-outsider"))).containsExactly(a, b, c, d);
        assertThat(ids(api.get("/v1/workloads?state=cancelled", "tok-member"))).containsExactly(b);
        assertThat(ids(api.get("/v1/workloads?state=pending", "tok-member"))).containsExactly(a, c, d);
        assertThat(ids(api.get("/v1/workloads?state=pending,cancelled", "tok-member"))).containsExactly(a, b, c, d);
        assertThat(ids(api.get("/v1/workloads?state=cancelled&state=running", "tok-member"))).containsExactly(b);
        assertThat(ids(api.get("/v1/workloads?allocation=lab/nlp", "tok-member"))).containsExactly(a, b, d);
        assertThat(ids(api.get("/v1/workloads?allocation=lab/vision", "tok-member"))).containsExactly(c);
        // a path is matched by whole names: lab/nl is no prefix of lab/nlp (and, being no allocation, it is refused)
        assertThat(api.get("/v1/workloads?allocation=lab/nl", "tok-member").error())
                .contains("unknown allocation 'lab/nl'");
        assertThat(ids(api.get("/v1/workloads?user=member", "tok-member"))).containsExactly(a, d);
        assertThat(ids(api.get("/v1/workloads?limit=2", "tok-member"))).containsExactly(a, b);
        long seqOfB = api.get("/v1/workloads/" + b, "tok-member").json().path("workload").path("seq").asLong();
        assertThat(ids(api.get("/v1/workloads?after=" + seqOfB + "&limit=1", "tok-member"))).containsExactly(c);
    }

    @Test
    void listRefusesBadFiltersNamingTheParameter() {
        assertThat(api.get("/v1/workloads?state=sleeping", "tok-member")).satisfies(r -> {
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.field()).isEqualTo("state");
            assertThat(r.json().path("hint").asText()).contains("pending");
        });
        assertThat(api.get("/v1/workloads?limit=0", "tok-member").field()).isEqualTo("limit");
        assertThat(api.get("/v1/workloads?limit=ten", "tok-member").field()).isEqualTo("limit");
        assertThat(api.get("/v1/workloads?allocation=lab//nlp", "tok-member").field()).isEqualTo("allocation");
        assertThat(api.get("/v1/workloads?owner=member", "tok-member")).satisfies(r -> {
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.field()).isEqualTo("owner");
        });
    }

    @Test
    void showGivesTheWorkloadWithItsAttempts() {
        String id = id(api.submit("member", body()));
        api.store.attempts().beginAttempt(id, List.of(new Launch.NodeGpus("gpu-01", List.of(0, 1, 2, 3)),
                new Launch.NodeGpus("gpu-02", List.of(4, 5, 6, 7))), ApiFixture.NOW.toEpochMilli() + 60_000);

        Response r = api.get("/v1/workloads/" + id, "tok-outsider");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("workload").path("id").asText()).isEqualTo(id);
        assertThat(r.json().path("workload").path("state").asText()).isEqualTo("running");
        JsonNode attempts = r.json().path("attempts");
        assertThat(attempts.size()).isEqualTo(1);
        assertThat(attempts.get(0).path("attempt").asInt()).isEqualTo(1);
        assertThat(attempts.get(0).path("gpus").asInt()).isEqualTo(8);
        assertThat(attempts.get(0).path("placement").get(1).path("node").asText()).isEqualTo("gpu-02");
        assertThat(attempts.get(0).path("startedAt").asText()).isEqualTo("2026-03-01T09:01:00.000Z");
        assertThat(attempts.get(0).path("endedAt").isNull()).isTrue();
    }

    @Test
    void cancelCancelsAWaitingWorkloadAndMarksARunningOne() {
        String waiting = id(api.submit("member", body()));
        String running = id(api.submit("member", body("gpus", "1", "gpusPerNode", null)));
        api.store.attempts().beginAttempt(running, List.of(new Launch.NodeGpus("gpu-01", List.of(0))), 1);

        Response w = api.post("/v1/workloads/" + waiting + "/cancel", "tok-member", null);
        Response r = api.post("/v1/workloads/" + running + "/cancel", "tok-member", null);

        assertThat(w.status()).isEqualTo(200);
        assertThat(w.json().path("state").asText()).isEqualTo("cancelled");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("state").asText()).isEqualTo("running");
        assertThat(r.json().path("cancelRequested").asBoolean()).isTrue();
        assertThat(api.post("/v1/workloads/" + waiting + "/cancel", "tok-member", null).status())
                .as("cancelling twice is harmless").isEqualTo(200);
    }

    @Test
    void progressIsRecordedAndShownAndBadReportsAreClear400s() {
        String w = id(api.submit("member", body()));
        Response ok = api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 1200, \"total\": 10000}");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(api.get("/v1/workloads/" + w, "tok-member").json().path("workload").path("progress").toString())
                .isEqualTo("{\"done\":1200,\"total\":10000}");

        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 3, \"total\": 2}").error())
                .isEqualTo("field 'done': expected at most total (2), got 3");
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": -1, \"total\": 2}").status())
                .isEqualTo(400);
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": \"1\", \"total\": 2}").field())
                .isEqualTo("done");
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"total\": 2}").field()).isEqualTo("done");
        // a total of 0 is the total's fault, not the done's ("expected at most total (0)")
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 5, \"total\": 0}").error())
                .isEqualTo("field 'total': expected a whole number >= 1 (the units of the whole work), got 0");
        // and a negative total is told the total's rule (it said ">= 0", the done's)
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 0, \"total\": -1}").error())
                .isEqualTo("field 'total': expected a whole number >= 1 (the units of the whole work), got -1");
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 1, \"total\": 2, \"eta\": 3}")
                .field()).isEqualTo("eta");
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "[1, 2]").status()).isEqualTo(400);
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 1,").status()).isEqualTo(400);
        assertThat(api.post("/v1/workloads/w-999999/progress", "tok-member", "{\"done\": 1, \"total\": 2}").status())
                .isEqualTo(404);
        assertThat(api.get("/v1/workloads/" + w, "tok-member").json().path("workload").path("progress").path("done")
                .asLong()).as("a refused report changes nothing").isEqualTo(1200);
    }

    @Test
    void aReportThatArrivesAfterTheWorkloadEndedIsRefusedAs409AndChangesNothing() {
        // given a workload that ran, reported half its work, and completed
        String w = id(api.submit("member", body("gpus", "1", "gpusPerNode", null)));
        var attempt = api.store.attempts().beginAttempt(w, List.of(new Launch.NodeGpus("gpu-01", List.of(0))), 1);
        assertThat(api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 5, \"total\": 10}").status())
                .isEqualTo(200);
        api.store.attempts().endAttempt(attempt, AttemptOutcome.COMPLETED, null, null, null, 2);

        // when a late report comes for it
        Response late = api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 7, \"total\": 10}");

        // then it is refused, naming the workload, its state and the states that take a report; nothing is stored
        assertThat(late.status()).isEqualTo(409);
        assertThat(late.error()).isEqualTo("workload " + w + " is completed: progress is taken only from a workload"
                + " that runs or waits to run (pending, running, requeued); nothing was recorded");
        assertThat(api.get("/v1/workloads/" + w, "tok-member").json().path("workload").path("progress").toString())
                .isEqualTo("{\"done\":5,\"total\":10}");
    }

    @Test
    void aCheckpointReportedAsTheAttemptIsPreemptedIsStillTakenForTheRequeuedWorkload() {
        // given a running workload preempted and requeued while its report was on the way
        String w = id(api.submit("member", body("gpus", "1", "gpusPerNode", null)));
        var attempt = api.store.attempts().beginAttempt(w, List.of(new Launch.NodeGpus("gpu-01", List.of(0))), 1);
        api.store.attempts().endAttempt(attempt, AttemptOutcome.REQUEUED, "preempted", null, null, 2);

        // when the report arrives, it is taken: the next attempt resumes from it
        Response r = api.post("/v1/workloads/" + w + "/progress", "tok-member", "{\"done\": 6, \"total\": 10}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("state").asText()).isEqualTo("requeued");
        assertThat(r.json().path("progress").toString()).isEqualTo("{\"done\":6,\"total\":10}");
    }

    @Test
    void allocationsAreTheTreeOrderedByPath() {
        Response r = api.get("/v1/allocations", "tok-outsider");

        assertThat(r.status()).isEqualTo(200);
        List<String> paths = new ArrayList<>();
        r.json().path("allocations").forEach(a -> paths.add(a.path("path").asText()));
        assertThat(paths).containsExactly("lab", "lab/nlp", X, "lab/vision", "lab/vision/detect");
        JsonNode nlp = r.json().path("allocations").get(1);
        assertThat(nlp.path("parent").asText()).isEqualTo("lab");
        assertThat(nlp.path("share").asDouble()).isEqualTo(2.0);
        assertThat(nlp.path("managers").toString()).isEqualTo("[\"mp\"]");
        assertThat(r.json().path("allocations").get(0).path("parent").isNull()).isTrue();
    }

    @Test
    void nodesAreListedByName() {
        Response r = api.get("/v1/nodes", "tok-outsider");

        assertThat(r.status()).isEqualTo(200);
        JsonNode nodes = r.json().path("nodes");
        assertThat(nodes.size()).isEqualTo(2);
        assertThat(nodes.get(0).path("name").asText()).isEqualTo("gpu-01");
        assertThat(nodes.get(0).path("healthy").asBoolean()).isTrue();
        assertThat(nodes.get(1).path("healthy").asBoolean()).isFalse();
        assertThat(nodes.get(1).path("reason").asText()).isEqualTo("fan failure");
        assertThat(nodes.get(1).path("gpus").asInt()).isEqualTo(8);
    }

    @Test
    void healthAndTheOpenApiDocumentNeedNoToken() {
        Response health = api.get("/v1/health", null);
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("status").asText()).isEqualTo("ok");

        Response doc = api.get("/v1/openapi.json", null);
        assertThat(doc.status()).isEqualTo(200);
        assertThat(doc.json().path("openapi").asText()).startsWith("3.");
        List<String> paths = new ArrayList<>();
        doc.json().path("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths).containsExactlyInAnyOrder("/v1/workloads", "/v1/workloads/{id}",
                "/v1/workloads/{id}/cancel", "/v1/workloads/{id}/progress", "/v1/workloads/{id}/explain", "/v1/workloads/{id}/output", "/v1/workloads/batch", "/v1/allocations",
                "/v1/nodes", "/v1/openapi.json", "/v1/health",
                "/v1/allocations/usage", "/v1/allocations/{path}", "/v1/audit", "/v1/nodes/{name}",
                "/v1/nodes/{name}/health", "/v1/me", "/v1/users", "/v1/users/{name}", "/v1/users/{name}/tokens",
                "/v1/users/{name}/tokens/{id}", "/v1/brakes", "/v1/token-policy", "/v1/session", "/v1/queue",
                "/v1/drains", "/v1/forecasts", "/v1/timeline", "/v1/policy", "/v1/campaigns", "/v1/campaigns/{name}",
                "/v1/campaigns/{name}/brakes", "/v1/campaigns/{name}/retry", "/v1/whatif");
        List<String> submitFields = new ArrayList<>();
        doc.json().path("components").path("schemas").path("Submission").path("properties").fieldNames()
                .forEachRemaining(submitFields::add);
        assertThat(submitFields).as("the document describes every field the server accepts")
                .containsExactlyInAnyOrderElementsOf(Submission.FIELDS);
        List<String> editFields = new ArrayList<>();
        doc.json().path("components").path("schemas").path("AllocationEdit").path("properties").fieldNames()
                .forEachRemaining(editFields::add);
        assertThat(editFields).containsExactlyInAnyOrderElementsOf(Edits.AllocationEdit.FIELDS);
        List<String> campaignFields = new ArrayList<>();
        doc.json().path("components").path("schemas").path("NewCampaign").path("properties").fieldNames()
                .forEachRemaining(campaignFields::add);
        assertThat(campaignFields).containsExactlyInAnyOrderElementsOf(CampaignRequest.FIELDS);
        List<String> capFields = new ArrayList<>();
        doc.json().path("components").path("schemas").path("CampaignBrakes").path("properties").fieldNames()
                .forEachRemaining(capFields::add);
        assertThat(capFields).containsExactlyInAnyOrderElementsOf(CampaignRequest.BRAKE_FIELDS);
        assertThat(doc.json().path("components").path("schemas").path("Error").path("required").toString())
                .isEqualTo("[\"error\",\"field\",\"hint\"]");
    }

    @Test
    void unknownIdsAndRoutesAre404WithTheErrorShape() {
        for (Response r : List.of(api.get("/v1/workloads/w-999", "tok-member"),
                api.post("/v1/workloads/w-999/cancel", "tok-root", null),
                api.get("/v1/nothing-here", "tok-member"))) {
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.error()).isNotBlank();
            assertThat(r.json().has("field")).isTrue();
            assertThat(r.json().has("hint")).isTrue();
        }
        assertThat(api.get("/v1/workloads/w-999", "tok-member").error()).contains("w-999");
    }

    @Test
    void withoutAValidTokenEveryProtectedEndpointIs401() {
        List<String> tokens = new ArrayList<>();
        tokens.add(null);
        tokens.add("tok-nobody");
        tokens.add("");
        for (String token : tokens) {
            assertThat(api.get("/v1/workloads", token).status()).isEqualTo(401);
            assertThat(api.get("/v1/workloads/w-1", token).status()).isEqualTo(401);
            assertThat(api.post("/v1/workloads", token, body()).status()).isEqualTo(401);
            assertThat(api.post("/v1/workloads/w-1/cancel", token, null).status()).isEqualTo(401);
            assertThat(api.get("/v1/allocations", token).status()).isEqualTo(401);
            assertThat(api.get("/v1/nodes", token).status()).isEqualTo(401);
        }
        Response basic = api.sendRaw(HttpRequest.newBuilder(api.uri("/v1/nodes"))
                .header("Authorization", "Basic dG9rLXJvb3Q6").GET().build());
        assertThat(basic.status()).isEqualTo(401);
        assertThat(basic.json().path("hint").asText()).contains("Bearer");
        assertThat(api.store.workloads().workloads(dev.allot.server.store.WorkloadFilter.all()))
                .as("nothing was submitted").isEmpty();
    }

    /**
     * Given a submission with a key, when it is sent again, then the answer is the same workload, still 201, and only
     * the retry carries {@code Idempotent-Replayed: true} (the client said "submitted" for a retry that stored nothing).
     */
    @Test
    void aRetryUnderTheSameKeyIsAnsweredWithTheReplayedHeaderAndTheFirstSubmissionIsNot() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.util.function.Supplier<java.net.http.HttpResponse<String>> send = () -> {
            try {
                return http.send(java.net.http.HttpRequest.newBuilder(api.uri("/v1/workloads"))
                        .header("Authorization", "Bearer tok-member").header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body("idempotencyKey", "\"r-1\"")))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };

        java.net.http.HttpResponse<String> first = send.get();
        java.net.http.HttpResponse<String> retry = send.get();

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        assertThat(json.readTree(retry.body()).path("id").asText()).isEqualTo(json.readTree(first.body()).path("id").asText());
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
    }

    @Test
    void theSameUserAndKeyGiveTheSameWorkload() {
        String first = id(api.submit("member", body("idempotencyKey", "\"k-1\"")));
        String again = id(api.submit("member", body("idempotencyKey", "\"k-1\"")));
        String other = id(api.submit("member", body("idempotencyKey", "\"k-2\"")));

        assertThat(again).isEqualTo(first);
        assertThat(other).isNotEqualTo(first);
        assertThat(ids(api.get("/v1/workloads", "tok-member"))).containsExactly(first, other);
    }

    @Test
    void aKeyReusedForAnotherSubmissionIsRefusedNotAnsweredWithTheFirst() {
        String first = id(api.submit("member", body("idempotencyKey", "\"k-1\"")));

        // the same key with 4 GPUs instead of 8: it was answered 201 with the 8-GPU workload, and nothing of it stored
        Response other = api.submit("member", body("idempotencyKey", "\"k-1\"", "gpus", "4"));

        assertThat(other.status()).isEqualTo(409);
        assertThat(other.field()).isEqualTo("idempotencyKey");
        assertThat(other.error()).isEqualTo("field 'idempotencyKey': the key was used by " + first + ", a different"
                + " submission (its gpus is 8, not 4); nothing was submitted");
        assertThat(other.json().path("hint").asText()).contains("give a new idempotencyKey");
        Response command = api.submit("member", body("idempotencyKey", "\"k-1\"", "command", "[\"python\", \"eval.py\"]"));
        assertThat(command.status()).isEqualTo(409);
        assertThat(command.error()).contains("its command is python train.py --lr 3e-4, not python eval.py");
        // and a true retry is still answered the first
        assertThat(id(api.submit("member", body("idempotencyKey", "\"k-1\"")))).isEqualTo(first);
        assertThat(ids(api.get("/v1/workloads", "tok-member"))).containsExactly(first);
    }

    @Test
    void aKeyIsScopedToItsUser() {
        String members = id(api.submit("member", body("idempotencyKey", "\"k-1\"")));
        Response owners = api.submit("owner", body("idempotencyKey", "\"k-1\""));

        assertThat(owners.status()).isEqualTo(201);
        assertThat(owners.json().path("id").asText()).isNotEqualTo(members);
        assertThat(owners.json().path("user").asText()).isEqualTo("owner");
        assertThat(owners.json().path("idempotencyKey").asText()).isEqualTo("k-1");
    }

    @Test
    void aFaultOfTheServerIs500WithAGenericMessageThatLeaksNothing() {
        api.store.close(); // every store call now fails: the server's fault, not the client's

        Response r;
        List<ILoggingEvent> logged;
        try (CapturedLog log = CapturedLog.of(ApiServer.class)) {
            r = api.get("/v1/nodes", "tok-member");
            logged = log.events();
        }

        assertThat(logged).as("the server logged the details (kept out of the build's output)").singleElement()
                .satisfies(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                    assertThat(e.getFormattedMessage()).isEqualTo("unexpected error answering GET /v1/nodes");
                    assertThat(e.getThrowableProxy().getMessage()).isEqualTo("the store is closed");
                });
        assertThat(r.status()).isEqualTo(500);
        assertThat(r.error()).isEqualTo("internal server error; the server logged the details");
        assertThat(r.json().toString()).doesNotContain("closed", "Exception");
        assertThat(api.get("/v1/health", null).status()).as("the server still answers").isEqualTo(200);
    }

    private static String id(Response r) {
        assertThat(r.status()).as("submission answered %s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private static List<String> ids(Response r) {
        assertThat(r.status()).as("list answered %s", r.json()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        r.json().path("workloads").forEach(w -> out.add(w.path("id").asText()));
        return out;
    }
}
