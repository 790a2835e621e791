package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /v1/whatif} against a real scheduling loop: who may try what (managers shares strictly below what they
 * manage, administrators also the policy's settings, others nothing), bad input named by field, 409 before the
 * scheduler has loaded, and a change of shares that moves waits from one allocation to the other while nothing live
 * changes. The lab is {@link ApiFixture}'s: one healthy node of 8 GPUs; lab/nlp (share 2, managed by mp) holds X,
 * lab/vision (share 1, managed by ms) holds detect.
 */
class WhatIfApiTest {
    private static final String DETECT = "lab/vision/detect";

    @RegisterExtension
    final LoopApiExtension fx = new LoopApiExtension();

    /** Four one-hour jobs of the whole node in each leaf, submitted now; the loop starts one. */
    private void backlog() {
        for (int i = 0; i < 4; i++) {
            assertThat(fx.api.submit("member", body("gpus", "8", "gpusPerNode", "0", "minRuntime", "\"1h\"", "duration",
                    "\"1h\"")).status()).isEqualTo(201);
            assertThat(fx.api.submit("ms-member", body("allocation", "\"" + DETECT + "\"", "gpus", "8", "gpusPerNode",
                    "0", "minRuntime", "\"1h\"", "duration", "\"1h\"")).status()).isEqualTo(201);
        }
        fx.loop.runOnce();
    }

    private ApiFixture.Response whatIf(String user, String json) {
        return fx.api.post("/v1/whatif", "tok-" + user, json);
    }

    private static JsonNode row(JsonNode answer, String name) {
        for (JsonNode a : answer.path("allocations")) {
            if (a.path("name").asText().equals(name)) {
                return a;
            }
        }
        throw new AssertionError("no row " + name + " in " + answer);
    }

    @Test
    void raisingVisionsShareMovesWaitsFromVisionToNlpAndChangesNothingLive() {
        backlog();
        JsonNode treeBefore = fx.api.get("/v1/allocations", "tok-root").json();
        JsonNode policyBefore = fx.api.get("/v1/policy", "tok-root").json();

        ApiFixture.Response r = whatIf("root", "{\"shares\": {\"lab/vision\": 4}, \"horizon\": \"1d\", \"runs\": 2}");

        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        JsonNode a = r.json();
        assertThat(a.path("from").asText()).isEqualTo("2026-03-01T09:00:00.000Z");
        assertThat(a.path("until").asText()).isEqualTo("2026-03-02T09:00:00.000Z");
        assertThat(a.path("runs").asInt()).isEqualTo(2);
        assertThat(a.path("policy").asText()).isEqualTo("allocation");
        assertThat(a.path("durations").asText()).contains("declared (8 workloads)");
        assertThat(a.path("newWork").asText()).contains("no new work");
        assertThat(a.path("shares").path("lab/vision").asDouble()).isEqualTo(4.0);
        JsonNode detect = row(a, DETECT);
        JsonNode x = row(a, X);
        assertThat(detect.path("base").path("entitlement").asDouble()).isEqualTo(0.333333);
        assertThat(detect.path("variant").path("entitlement").asDouble()).isEqualTo(0.666667);
        assertThat(detect.path("delta").path("waitP50Seconds").asLong()).isNegative();
        assertThat(x.path("delta").path("waitP50Seconds").asLong()).isPositive();
        // all 8 hours of work run within the day on both sides
        assertThat(row(a, "lab").path("base").path("chargedGpuHours").asDouble()).isEqualTo(64.0);
        assertThat(row(a, "lab").path("delta").path("chargedGpuHours").asDouble()).isEqualTo(0.0);
        assertThat(detect.path("base").path("paidFraction").isNumber()).isTrue();

        assertThat(fx.api.get("/v1/allocations", "tok-root").json()).isEqualTo(treeBefore);
        assertThat(fx.api.get("/v1/policy", "tok-root").json()).isEqualTo(policyBefore);
        assertThat(fx.api.get("/v1/audit", "tok-root").json().path("entries").toString()).doesNotContain("whatif");
    }

    @Test
    void aManagerTriesSharesBelowWhatTheyManageAndAChangeThatChangesNothingPredictsTheSame() {
        backlog();
        // detect is vision's only child: its share is its whole parent's whatever it is, so trying one is refused
        ApiFixture.Response only = whatIf("ms", "{\"shares\": {\"" + DETECT + "\": 3}}");
        assertThat(only.status()).as("%s", only.json()).isEqualTo(400);
        assertThat(only.error()).contains("'" + DETECT + "' has no siblings, and shares are relative among siblings");
        // vision's share as it is already
        ApiFixture.Response r = whatIf("root", "{\"shares\": {\"lab/vision\": 1}, \"runs\": 1, \"horizon\": \"12h\"}");
        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        // asked for as it already is, it came back in no field at all
        assertThat(r.json().path("shares").size()).isZero();
        assertThat(r.json().path("unchangedShares").path("lab/vision").asDouble()).isEqualTo(1.0);
        for (JsonNode row : r.json().path("allocations")) {
            assertThat(row.path("variant")).as(row.path("name").asText()).isEqualTo(row.path("base"));
        }

        ApiFixture.Response own = whatIf("ms", "{\"shares\": {\"lab/vision\": 3}}");
        assertThat(own.status()).isEqualTo(403);
        assertThat(own.error()).contains("may not try shares of allocation 'lab/vision'");
        assertThat(whatIf("ms", "{\"shares\": {\"" + X + "\": 3}}").status()).isEqualTo(403);
        assertThat(whatIf("mp", "{\"settings\": {\"allocation.reservation\": \"false\"}}").status()).isEqualTo(403);
        assertThat(whatIf("member", "{}").status()).isEqualTo(403);
        assertThat(whatIf("outsider", "{\"shares\": {\"" + X + "\": 3}}").status()).isEqualTo(403);
        assertThat(fx.api.post("/v1/whatif", null, "{}").status()).isEqualTo(401);
        ApiFixture.Response admin = whatIf("root", "{\"settings\": {\"allocation.reservation\": \"false\"},"
                + " \"runs\": 1, \"horizon\": \"1h\"}");
        assertThat(admin.status()).as("%s", admin.json()).isEqualTo(200);
        assertThat(admin.json().path("settings").path("allocation.reservation").asText()).isEqualTo("false");
    }

    @Test
    void badInputIsNamedByFieldAndBeforeTheSchedulerLoadedTheAnswerIs409() {
        assertThat(whatIf("root", "{}").status()).isEqualTo(409);
        backlog();
        String[][] cases = {
                {"{\"shares\": {\"lab/none\": 1}}", "shares", "no allocation 'lab/none'"},
                {"{\"shares\": {\"lab/vision\": -1}}", "shares", "a finite number >= 0"},
                {"{\"shares\": {\"lab//x\": 1}}", "shares", "not an allocation path"},
                // the only root: its share meant nothing, and the what-if showed an unchanged table
                {"{\"shares\": {\"lab\": 2}}", "shares",
                        "'lab' has no siblings, and shares are relative among siblings: its share changes nothing"},
                {"{\"shares\": {\"lab/vision\": 0, \"lab/nlp\": 0}}", "shares",
                        "expected at least one positive share among the children of 'lab'"},
                {"{\"shares\": [1]}", "shares", "expected an object"},
                // named as written: it said 'got a number ("Infinity")'
                {"{\"shares\": {\"lab/vision\": 1e400}}", "shares", "field 'shares': 'lab/vision': expected a finite"
                        + " number, got 1e400 (beyond the largest number, about 1.8e308)"},
                {"{\"runs\": 1e400}", "runs", "field 'runs': expected a finite number, got 1e400 (beyond"},
                {"{\"settings\": {\"lookback\": \"3d\"}}", "settings", "shared by every policy"},
                {"{\"settings\": {\"kueue.x\": \"1\"}}", "settings", "expected allocation.<setting>"},
                {"{\"settings\": {\"allocation.reservation\": \"maybe\"}}", "settings", "reservation"},
                {"{\"settings\": {\"allocation.nope\": \"1\"}}", "settings", "unknown setting 'allocation.nope';"
                        + " valid settings: allocation.burst-reserve, allocation.burst-short-protection,"},
                {"{\"settings\": {\"allocation.reclaim-margin\": \"-1\"}}", "settings",
                        // the setting named once: it said "setting 'allocation.reclaim-margin': reclaim-margin must ..."
                        "field 'settings': setting 'allocation.reclaim-margin': must be a number >= 0, got -1"},
                {"{\"settings\": {\"allocation.max-reservations\": \"100000\"}}", "settings", "max-reservations"},
                {"{\"settings\": {\"allocation.fairshare-recheck\": \"0s\"}}", "settings", "fairshare-recheck"},
                {"{\"settings\": {\"allocation.waste-limit\": \"-1\", \"allocation.reservation\": \"true\"}}",
                        "settings", "field 'settings': setting 'allocation.waste-limit': must be a number >= 0"},
                {"{\"horizon\": \"8d\"}", "horizon", "from 1h to 7d"},
                {"{\"horizon\": 3}", "horizon", "expected a duration as text"},
                {"{\"runs\": 0}", "runs", "from 1 to 20"},
                {"{\"runs\": 2.5}", "runs", "from 1 to 20"},
                {"{\"share\": {}}", "share", "unknown field"},
        };
        for (String[] c : cases) {
            ApiFixture.Response r = whatIf("root", c[0]);
            assertThat(r.status()).as(c[0] + " -> %s", r.json()).isEqualTo(400);
            assertThat(r.field()).as(c[0]).isEqualTo(c[1]);
            assertThat(r.error()).as(c[0]).contains(c[2]);
        }
        assertThat(whatIf("root", "[]").status()).isEqualTo(400);
        // the field was named twice, the API's and the tree's: "field 'shares': field 'share': expected ..."
        assertThat(whatIf("root", "{\"shares\": {\"lab/vision\": 0, \"lab/nlp\": 0}}").error()).isEqualTo("field"
                + " 'shares': expected at least one positive share among the children of 'lab', got shares summing to 0");
        // the hint about the scheduler's tree lagging an edit came with shares that sum to nothing too
        assertThat(whatIf("root", "{\"shares\": {\"lab/vision\": 0, \"lab/nlp\": 0}}").json().path("hint").asText())
                .isEqualTo("GET /v1/allocations shows the shares");
        assertThat(whatIf("root", "{\"settings\": {\"allocation.nope\": \"1\"}}").json().path("hint").asText())
                .as("the valid keys are in the message; the hint points to the settings in force")
                .isEqualTo("GET /v1/policy shows the settings in force");
    }
}
