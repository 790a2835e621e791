package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.NOW;
import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.backend.Launch;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AuditEntry;
import dev.allot.server.store.Node;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The budget endpoints' happy paths, 404s and 409s, each against a fresh store (see {@link ApiFixture} for the
 * tree): editing allocations, the audit trail, usage against entitlement, and nodes.
 */
class BudgetApiTest {
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

    static String allocation(double share, String managers, String members) {
        return "{\"share\": " + share + ", \"managers\": " + managers + ", \"members\": " + members + "}";
    }

    @Test
    void aManagerCreatesAChildUnderTheirProgramAndItIsStoredAndAudited() {
        Response r = api.put("/v1/allocations/lab/nlp/finetune", "tok-mp", allocation(3, "[\"owner\"]", "[\"member\"]"));

        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        assertThat(r.json().path("path").asText()).isEqualTo("lab/nlp/finetune");
        assertThat(r.json().path("parent").asText()).isEqualTo("lab/nlp");
        assertThat(r.json().path("share").asDouble()).isEqualTo(3.0);
        assertThat(r.json().path("managers").toString()).isEqualTo("[\"owner\"]");
        assertThat(r.json().path("members").toString()).isEqualTo("[\"member\"]");
        assertThat(api.store.allocations().allocations()).contains(
                new Allocation("lab/nlp/finetune", 3, List.of("owner"), List.of("member")));
        AuditEntry e = api.store.allocations().audit(1).get(0);
        assertThat(e.actor()).isEqualTo("mp");
        assertThat(e.action()).isEqualTo("allocation.put");
        assertThat(e.subject()).isEqualTo("lab/nlp/finetune");
        assertThat(e.atMillis()).isEqualTo(NOW.toEpochMilli());
        assertThat(e.beforeJson()).isNull();
    }

    @Test
    void anUpdateThroughTheApiShowsInTheAuditWithWhoWhenBeforeAndAfter() {
        Response r = api.put("/v1/allocations/" + X, "tok-mp", allocation(4, "[]", "[\"member\"]"));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);

        Response audit = api.get("/v1/audit?limit=1", "tok-root");

        assertThat(audit.status()).isEqualTo(200);
        JsonNode entries = audit.json().path("entries");
        assertThat(entries.size()).isEqualTo(1);
        JsonNode e = entries.get(0);
        assertThat(e.path("actor").asText()).isEqualTo("mp");
        assertThat(e.path("at").asText()).isEqualTo("2026-03-01T09:00:00.000Z");
        assertThat(e.path("action").asText()).isEqualTo("allocation.put");
        assertThat(e.path("subject").asText()).isEqualTo(X);
        assertThat(e.path("before").path("share").asDouble()).isEqualTo(1.0);
        assertThat(e.path("before").path("members").toString()).isEqualTo("[\"member\",\"owner\"]");
        assertThat(e.path("after").path("share").asDouble()).isEqualTo(4.0);
        assertThat(e.path("after").path("members").toString()).isEqualTo("[\"member\"]");
        assertThat(e.path("id").asLong()).isPositive();
    }

    @Test
    void theAuditIsNewestFirstAndAManagerSeesOnlyTheirSubtrees() {
        api.put("/v1/allocations/lab/vision/detect", "tok-root", allocation(2, "[]", "[]"));
        api.put("/v1/allocations/" + X, "tok-root", allocation(2, "[]", "[]"));

        List<String> all = subjects(api.get("/v1/audit", "tok-root"));
        List<String> mps = subjects(api.get("/v1/audit", "tok-mp"));
        List<String> mss = subjects(api.get("/v1/audit?limit=1", "tok-ms"));

        assertThat(all).startsWith(X, "lab/vision/detect").contains("lab", "lab/nlp", "lab/vision");
        assertThat(mps).as("the manager of lab/nlp sees its subtree only").containsExactly(X, X, "lab/nlp");
        assertThat(mss).as("limit counts what the manager may see").containsExactly("lab/vision/detect");
    }

    @Test
    void deleteRemovesALeafAndAuditsIt() {
        api.store.allocations().putAllocation(new Allocation("lab/nlp/old", 1, List.of(), List.of()), "root", 1);

        Response r = api.delete("/v1/allocations/lab/nlp/old", "tok-mp");

        assertThat(r.status()).isEqualTo(204);
        assertThat(api.store.allocations().allocations()).noneMatch(a -> a.path().equals("lab/nlp/old"));
        AuditEntry e = api.store.allocations().audit(1).get(0);
        assertThat(e.action()).isEqualTo("allocation.remove");
        assertThat(e.actor()).isEqualTo("mp");
        assertThat(e.afterJson()).isNull();
        assertThat(e.beforeJson()).contains("lab/nlp/old");
    }

    @Test
    void anAdminCreatesARoot() {
        Response r = api.put("/v1/allocations/ops", "tok-root", allocation(1, "[\"ms\"]", "[]"));
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.json().path("parent").isNull()).isTrue();
    }

    @Test
    void unknownAllocationsAndMissingParentsAre404() {
        Response noParent = api.put("/v1/allocations/lab/nlp/nope/deeper", "tok-mp", allocation(1, "[]", "[]"));
        Response noNode = api.delete("/v1/allocations/lab/nlp/nope", "tok-root");

        assertThat(noParent.status()).isEqualTo(404);
        assertThat(noParent.error()).contains("lab/nlp/nope");
        assertThat(noNode.status()).isEqualTo(404);
        assertThat(noNode.error()).contains("lab/nlp/nope");
    }

    @Test
    void removingANodeWithChildrenOrUnfinishedWorkIs409WithTheStoresMessage() {
        Response parent = api.delete("/v1/allocations/lab/nlp", "tok-root");
        assertThat(api.submit("member", body()).status()).isEqualTo(201);
        Response busy = api.delete("/v1/allocations/" + X, "tok-mp");

        assertThat(parent.status()).isEqualTo(409);
        assertThat(parent.error()).contains("has 1 child").contains(X);
        assertThat(busy.status()).isEqualTo(409);
        assertThat(busy.error()).contains("not ended");
        assertThat(api.store.allocations().allocations()).hasSize(5);
    }

    @Test
    void usageSumsLeavesIntoInnerNodesAgainstTheEntitlementFromTheTree() {
        String nlp = api.submit("member", body()).json().path("id").asText();
        String vision = api.submit("ms-member", body("allocation", "\"lab/vision/detect\"", "gpus", "2",
                "gpusPerNode", null)).json().path("id").asText();
        long now = NOW.toEpochMilli();
        api.store.attempts().beginAttempt(nlp, List.of(new Launch.NodeGpus("gpu-01", List.of(0, 1, 2, 3, 4, 5, 6, 7))),
                now - 3_600_000);
        api.store.attempts().beginAttempt(vision, List.of(new Launch.NodeGpus("gpu-02", List.of(0, 1))), now - 1_800_000);

        Response week = api.get("/v1/allocations/usage?since=7d", "tok-outsider");
        Response half = api.get("/v1/allocations/usage?since=2026-03-01T08:30:00Z", "tok-outsider");
        Response byDefault = api.get("/v1/allocations/usage", "tok-outsider");

        assertThat(week.status()).as("%s", week.json()).isEqualTo(200);
        assertThat(week.json().path("windowSeconds").asLong()).isEqualTo(7 * 86_400);
        assertThat(week.json().path("since").asText()).isEqualTo("2026-02-22T09:00:00.000Z");
        assertThat(week.json().path("until").asText()).isEqualTo("2026-03-01T09:00:00.000Z");
        assertThat(week.json().path("totalGpuSeconds").asDouble()).isEqualTo(32_400.0);
        Map<String, JsonNode> rows = rows(week);
        assertThat(rows.keySet()).containsExactly("lab", "lab/nlp", X, "lab/vision", "lab/vision/detect");
        assertThat(rows.get("lab").path("entitlement").asDouble()).isEqualTo(1.0);
        assertThat(rows.get("lab/nlp").path("entitlement").asDouble()).isCloseTo(2.0 / 3, within(1e-12));
        assertThat(rows.get(X).path("entitlement").asDouble()).isCloseTo(2.0 / 3, within(1e-12));
        assertThat(rows.get("lab/vision/detect").path("entitlement").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(rows.get("lab").path("gpuSeconds").asDouble()).isEqualTo(32_400.0);
        assertThat(rows.get("lab/nlp").path("gpuSeconds").asDouble()).isEqualTo(28_800.0);
        assertThat(rows.get(X).path("gpuSeconds").asDouble()).isEqualTo(28_800.0);
        assertThat(rows.get("lab/vision").path("gpuSeconds").asDouble()).isEqualTo(3_600.0);
        assertThat(rows.get("lab/vision").path("usedFraction").asDouble()).isCloseTo(1.0 / 9, within(1e-12));

        assertThat(half.status()).isEqualTo(200);
        assertThat(half.json().path("windowSeconds").asLong()).isEqualTo(1_800);
        assertThat(rows(half).get(X).path("gpuSeconds").asDouble()).isEqualTo(14_400.0);
        assertThat(rows(half).get("lab/vision/detect").path("gpuSeconds").asDouble()).isEqualTo(3_600.0);
        assertThat(byDefault.json().path("windowSeconds").asLong()).as("7d by default").isEqualTo(7 * 86_400);
    }

    @Test
    void usageOverTimeIsASeriesPerNodeAgainstWhatTheEntitlementBuysInEachStep() {
        String nlp = api.submit("member", body()).json().path("id").asText();
        String vision = api.submit("ms-member", body("allocation", "\"lab/vision/detect\"", "gpus", "2",
                "gpusPerNode", null)).json().path("id").asText();
        long now = NOW.toEpochMilli();
        api.store.attempts().beginAttempt(nlp, List.of(new Launch.NodeGpus("gpu-01", List.of(0, 1, 2, 3, 4, 5, 6, 7))),
                now - 3_600_000);
        api.store.attempts().beginAttempt(vision, List.of(new Launch.NodeGpus("gpu-02", List.of(0, 1))), now - 1_800_000);

        Response r = api.get("/v1/allocations/usage?since=2h&step=1h", "tok-outsider");

        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        assertThat(r.json().path("clusterGpus").asInt()).isEqualTo(16);
        assertThat(r.json().path("step").asText()).isEqualTo("1h");
        Map<String, JsonNode> rows = rows(r);
        JsonNode x = rows.get(X);
        assertThat(x.path("entitledGpuSeconds").asDouble()).isCloseTo(2.0 / 3 * 16 * 7200, within(1e-6));
        assertThat(x.path("series")).hasSize(2);
        assertThat(x.path("series").get(0).path("start").asText()).isEqualTo("2026-03-01T07:00:00.000Z");
        assertThat(x.path("series").get(0).path("gpuSeconds").asDouble()).isZero();
        assertThat(x.path("series").get(1).path("gpuSeconds").asDouble()).isEqualTo(28_800.0);
        assertThat(x.path("series").get(1).path("entitledGpuSeconds").asDouble()).isCloseTo(2.0 / 3 * 16 * 3600,
                within(1e-6));
        assertThat(rows.get("lab").path("series").get(1).path("gpuSeconds").asDouble()).isEqualTo(32_400.0);
        assertThat(rows.get("lab/vision").path("series").get(1).path("gpuSeconds").asDouble()).isEqualTo(3_600.0);
        assertThat(rows(api.get("/v1/allocations/usage?since=2h", "tok-outsider")).get(X).path("series").isNull())
                .as("no step, no series").isTrue();

        for (String bad : List.of("0s", "soon", "1s")) {
            Response refused = api.get("/v1/allocations/usage?since=7d&step=" + bad, "tok-outsider");
            assertThat(refused.status()).as(bad).isEqualTo(400);
            assertThat(refused.field()).as(bad).isEqualTo("step");
        }
    }

    @Test
    void usageWithNothingUsedHasZeroesAndNoFraction() {
        api.store.allocations().putAllocation(new Allocation("lab/nlp/eval", 1, List.of(), List.of()), "root", 1);

        Response r = api.get("/v1/allocations/usage?since=1h", "tok-member");

        assertThat(r.status()).isEqualTo(200);
        assertThat(rows(r).get(X).path("entitlement").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(rows(r).get(X).path("gpuSeconds").asDouble()).isZero();
        assertThat(rows(r).get(X).path("usedFraction").isNull()).isTrue();
    }

    @Test
    void anAdminSetsANodesHealthAndRegistersNodes() {
        Response down = api.post("/v1/nodes/gpu-01/health", "tok-root", "{\"healthy\": false, \"reason\": \"ECC errors\"}");
        Response up = api.post("/v1/nodes/gpu-02/health", "tok-root", "{\"healthy\": true}");
        Response added = api.put("/v1/nodes/gpu-03", "tok-root", "{\"gpus\": 4}");
        Response resized = api.put("/v1/nodes/gpu-01", "tok-root", "{\"gpus\": 6}");

        assertThat(down.status()).isEqualTo(200);
        assertThat(down.json().path("healthy").asBoolean()).isFalse();
        assertThat(down.json().path("reason").asText()).isEqualTo("ECC errors");
        assertThat(up.json().path("healthy").asBoolean()).isTrue();
        assertThat(up.json().path("reason").isNull()).isTrue();
        assertThat(added.status()).isEqualTo(201);
        assertThat(added.json().path("healthy").asBoolean()).isTrue();
        assertThat(resized.status()).isEqualTo(200);
        assertThat(api.store.nodes().nodes()).containsExactly(
                new Node("gpu-01", 6, false, "ECC errors", NOW.toEpochMilli()),
                new Node("gpu-02", 8, true, null, NOW.toEpochMilli()),
                new Node("gpu-03", 4, true, null, NOW.toEpochMilli()));
    }

    @Test
    void theHealthOfAnUnknownNodeIs404() {
        Response r = api.post("/v1/nodes/gpu-99/health", "tok-root", "{\"healthy\": false}");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.error()).contains("gpu-99");
    }

    private static List<String> subjects(Response r) {
        assertThat(r.status()).as("audit answered %s", r.json()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        r.json().path("entries").forEach(e -> out.add(e.path("subject").asText()));
        return out;
    }

    private static Map<String, JsonNode> rows(Response r) {
        Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        r.json().path("allocations").forEach(row -> out.put(row.path("path").asText(), row));
        return out;
    }
}
