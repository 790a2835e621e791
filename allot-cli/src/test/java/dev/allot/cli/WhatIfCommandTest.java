package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.model.Durations;
import dev.allot.server.store.Allocation;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot whatif} against a real scheduling loop: one node of 8 GPUs, lab/a (share 3, alice's work) and lab/b
 * (share 1, bob's work), each with four one-hour jobs of the whole node waiting. Raising lab/b's share to lab/a's
 * makes b's waits fall and a's rise; the table says so, before -> after, with what it assumed. Managers try shares
 * only below what they manage; bad options are the caller's fault (exit 2) and name the option or field.
 */
class WhatIfCommandTest {
    @TempDir
    static Path dataDir;

    static LoopApi api;

    @BeforeAll
    static void start() {
        api = LoopApi.start(dataDir, List.of("alice", "bob", "carol"), store -> {
            long t = LoopApi.NOW.toEpochMilli();
            store.allocations().putAllocation(new Allocation("lab", 1, List.of("carol"), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation("lab/a", 3, List.of(), List.of("alice")), "root", t);
            store.allocations().putAllocation(new Allocation("lab/b", 1, List.of(), List.of("bob")), "root", t);
        });
        for (int i = 0; i < 4; i++) {
            api.submit("alice", "--allocation", "lab/a", "--gpus", "8", "--min-runtime", "1h", "--duration", "1h",
                    "--", "train.py");
            api.submit("bob", "--allocation", "lab/b", "--gpus", "8", "--min-runtime", "1h", "--duration", "1h",
                    "--", "train.py");
        }
        api.loop.runOnce();
    }

    @AfterAll
    static void stop() {
        if (api != null) {
            api.close();
        }
    }

    @Test
    void raisingBsShareShowsBsWaitsFallingAndAsRisingBeforeToAfter() throws Exception {
        Cli.Result r = api.as("carol", "whatif", "--share", "lab/b=3", "--horizon", "1d", "--runs", "2");

        assertThat(r.exit()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines[0]).isEqualTo("what if: lab/b share 3");
        assertThat(lines[1]).isEqualTo("over 1d from 2026-03-01T09:00:00.000Z to 2026-03-02T09:00:00.000Z, policy allocation");
        assertThat(lines[2]).startsWith("assumes: durations declared (8 workloads)").contains("2 runs")
                .contains("no new work");
        // a's jobs went first with 3:1 and alternate with b's at 1:1; the node's 64 GPU-hours run either way. Paid
        // is by each side's own entitlements: at 1:1 a is owed more than it gets while b's jobs interleave. The owed
        // column shows what moves the paid fractions: at 1:1 b is owed 32 GPU-hours, not 16
        assertThat(List.of(lines).subList(4, lines.length)).containsExactly(
                "ALLOCATION  ENTITLED        WAIT P50  WAIT P90  WAITING AT END  OWED GPU-H  PAID            CHARGED GPU-H",
                "(all)       100.0%          4h        7h        0               46 -> 60    69.6% -> 53.3%  64",
                "lab         100.0%          4h        7h        0               46 -> 60    69.6% -> 53.3%  64",
                "  a         75.0% -> 50.0%  3h -> 4h  4h -> 6h  0               30 -> 28    80.0% -> 57.1%  32",
                "  b         25.0% -> 50.0%  5h -> 3h  7h        0               16 -> 32    50.0%           32");

        JsonNode json = new ObjectMapper().readTree(api.as("carol", "whatif", "--share", "lab/b=3", "--runs", "2",
                "--json").out());
        JsonNode a = row(json, "lab/a");
        JsonNode b = row(json, "lab/b");
        assertThat(b.path("delta").path("waitP50Seconds").asLong()).isNegative();
        assertThat(a.path("delta").path("waitP50Seconds").asLong()).isPositive();
        assertThat(lines[8]).contains(Durations.formatSeconds(b.path("base").path("waitP50Seconds").asLong()) + " -> "
                + Durations.formatSeconds(b.path("variant").path("waitP50Seconds").asLong()));
    }

    private static JsonNode row(JsonNode answer, String name) {
        for (JsonNode a : answer.path("allocations")) {
            if (a.path("name").asText().equals(name)) {
                return a;
            }
        }
        throw new AssertionError("no row " + name);
    }

    @Test
    void withNoChangeTheTableShowsOneValuePerCell() {
        Cli.Result r = api.as("root", "whatif", "--horizon", "12h", "--runs", "1");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("what if: nothing changes").doesNotContain("->");
    }

    @Test
    void aShareTooLargeForADoubleIsNamedAsTypedNotAsTheStringInfinity() {
        Cli.Result huge = api.as("root", "whatif", "--share", "lab/a=1e400");
        assertThat(huge.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(huge.err()).isEqualTo("allot: --share lab/a=1e400: expected " + dev.allot.core.rules.Shares.EXPECTED
                + ", got 1e400 (beyond the largest number, about 1.8e308)\n");
        Cli.Result nan = api.as("root", "whatif", "--share", "lab/a=NaN");
        assertThat(nan.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(nan.err()).endsWith(", got NaN (not a number)\n").doesNotContain("a string");
    }

    @Test
    void aShareAskedForAsItAlreadyIsIsShownAsUnchangedNotDroppedWithoutAWord() {
        Cli.Result r = api.as("carol", "whatif", "--share", "lab/a=3", "--share", "lab/b=2", "--runs", "1",
                "--horizon", "1h");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("what if: lab/b share 2; lab/a share 3 (unchanged)\n");
    }

    @Test
    void aSettingAskedForAsItAlreadyIsIsNamedAsUnchangedNotNothingChanges() {
        // it said "what if: nothing changes (the forecast as things are)", not naming what was asked
        Cli.Result r = api.as("root", "whatif", "--set", "allocation.reservation=true", "--runs", "1", "--horizon",
                "1h");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("what if: allocation.reservation = true (unchanged)\n");
        Cli.Result both = api.as("root", "whatif", "--set", "allocation.reservation=false", "--set",
                "allocation.max-reservations=2", "--runs", "1", "--horizon", "1h");
        assertThat(both.out()).startsWith("what if: allocation.reservation = false;"
                + " allocation.max-reservations = 2 (unchanged)\n");
    }

    @Test
    void aShareIsShownAsTypedNotInJavasExponentNotation() {
        // 1e308 came back as 1.0E308
        Cli.Result r = api.as("carol", "whatif", "--share", "lab/b=1e308", "--runs", "1", "--horizon", "1h");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("what if: lab/b share 1e308\n");
    }

    @Test
    void aPathWithAnEmptyNameAtEitherEndIsRefusedByTheOneRuleWithItsHintOnce() {
        // '/lab/a' was taken (while 'allot budget set /lab/a' is refused) and 'lab/a/' was refused with the hint
        // said twice: "names joined by '/', e.g. ... (hint: names joined by '/', e.g. lab/nlp/pretrain)"
        for (String path : List.of("/lab/a", "lab/a/")) {
            Cli.Result r = api.as("root", "whatif", "--share", path + "=2", "--runs", "1", "--horizon", "1h");
            assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).isEqualTo("allot: --share: '" + path + "' is not an allocation path: "
                    + dev.allot.core.rules.Names.PATH_EXPECTED + "\n");
        }
    }

    @Test
    void theHelpsExampleRunsOnTheDemoTree(@TempDir Path demoDir) {
        // the example tried lab/team-b, which the demo tree lacks: "--share: no allocation 'lab/team-b'"
        String help = Cli.run("whatif", "--help").out().replaceAll("\\s+", " ");
        int at = help.indexOf("allot whatif --share ");
        String example = help.substring(at, help.indexOf("7d", at) + 2);
        assertThat(example).isEqualTo("allot whatif --share lab/nlp/eval=3 --horizon 7d");
        LoopApi demo = LoopApi.start(demoDir, List.of(), store -> dev.allot.server.service.Bootstrap.ensureDemo(
                store, demoDir, LoopApi.NOW.toEpochMilli()));
        try {
            demo.loop.runOnce();
            List<String> args = new java.util.ArrayList<>(List.of(example.substring("allot ".length()).split(" ")));
            args.addAll(List.of("--runs", "1"));
            Cli.Result r = demo.as("root", args.toArray(String[]::new));
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).startsWith("what if: lab/nlp/eval share 3\n");
        } finally {
            demo.close();
        }
    }

    @Test
    void theApisWhatIfExamplesRunOnTheDemoTree(@TempDir Path demoDir) throws Exception {
        // openapi.json's example and the hint of a body that is not an object tried lab/team-b, which the demo tree
        // ('allot serve --demo') lacks, and 'allocation.<setting>': copied, each was refused
        JsonNode openapi;
        try (java.io.InputStream in = dev.allot.server.api.ApiServer.class.getResourceAsStream("openapi.json")) {
            openapi = new ObjectMapper().readTree(in);
        }
        JsonNode example = openapi.path("paths").path("/v1/whatif").path("post").path("requestBody").path("content")
                .path("application/json").path("example");
        assertThat(example.toString()).isEqualTo("{\"shares\":{\"lab/nlp/eval\":3},\"settings\":"
                + "{\"allocation.reclaim-margin\":\"0.2\"},\"horizon\":\"1d\",\"runs\":5}");
        LoopApi demo = LoopApi.start(demoDir, List.of(), store -> dev.allot.server.service.Bootstrap.ensureDemo(
                store, demoDir, LoopApi.NOW.toEpochMilli()));
        try {
            demo.loop.runOnce();
            JsonNode hint = new ObjectMapper().readTree(post(demo, "[]").body()).path("hint");
            assertThat(hint.asText()).isEqualTo("send {\"shares\": {\"lab/nlp/eval\": 3}, \"settings\":"
                    + " {\"allocation.reclaim-margin\": \"0.2\"}, \"horizon\": \"1d\", \"runs\": 5}; GET"
                    + " /v1/openapi.json describes it");
            for (JsonNode body : List.of(example, new ObjectMapper().readTree(hint.asText().substring("send ".length(),
                    hint.asText().indexOf("; "))))) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) body).put("runs", 1); // the same, quicker
                java.net.http.HttpResponse<String> r = post(demo, body.toString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(new ObjectMapper().readTree(r.body()).path("shares").path("lab/nlp/eval").asDouble())
                        .isEqualTo(3.0);
            }
        } finally {
            demo.close();
        }
    }

    private static java.net.http.HttpResponse<String> post(LoopApi on, String body) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(on.url + "/v1/whatif")).header("Authorization", "Bearer tok-root")
                .header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofString(body))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theRootsShareIsRefusedAsMeaninglessNotPlayedAsAnUnchangedTable() {
        Cli.Result root = api.as("root", "whatif", "--share", "lab=2");
        assertThat(root.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(root.out()).isEmpty();
        assertThat(root.err()).startsWith("allot: --share: 'lab' has no siblings, and shares are relative among"
                + " siblings: its share changes nothing");
    }

    @Test
    void aSettingOutOfRangeIsNamedOnceByTheOptionAndTheSettingWithWhatItMustBe() {
        // it said "field 'settings': setting 'allocation.waste-limit': waste-limit must be ... (option --set; ...)":
        // the field twice (as the API's and as the option) and the setting twice
        Cli.Result r = api.as("root", "whatif", "--set", "allocation.waste-limit=-1");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --set: setting 'allocation.waste-limit': must be a number >= 0 (0: no"
                + " limit), got -1 (hint: 'allot policy show' shows the settings in force)\n");
        Cli.Result both = api.as("root", "whatif", "--set", "allocation.reservation=true", "--set",
                "allocation.max-reservations=0");
        assertThat(both.err()).isEqualTo("allot: --set: setting 'allocation.max-reservations': must be 1 to 1000, got 0"
                + " (hint: 'allot policy show' shows the settings in force)\n");
    }

    @Test
    void whoMayTryWhatAndBadOptionsAreTheCallersFault() {
        Cli.Result own = api.as("carol", "whatif", "--share", "lab=2");
        assertThat(own.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(own.err()).startsWith("allot: ").contains("may not try shares of allocation 'lab'");
        Cli.Result member = api.as("alice", "whatif", "--share", "lab/a=2");
        assertThat(member.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(member.err()).contains("may not run what-ifs");
        Cli.Result setting = api.as("carol", "whatif", "--set", "allocation.reservation=false");
        assertThat(setting.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(setting.err()).contains("only administrators may");

        // a path or a setting given twice ran with the last value alone, without a word
        Cli.Result twice = api.as("root", "whatif", "--share", "lab/a=1", "--share", "lab/a=2");
        assertThat(twice.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(twice.err()).isEqualTo("allot: --share names 'lab/a' twice (1, then 2); give each once\n");
        assertThat(twice.out()).isEmpty();
        Cli.Result setTwice = api.as("root", "whatif", "--set", "allocation.reservation=false", "--set",
                "allocation.reservation=true");
        assertThat(setTwice.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(setTwice.err()).isEqualTo("allot: --set names 'allocation.reservation' twice (false, then true);"
                + " give each once\n");
        Cli.Result noEquals = api.as("root", "whatif", "--share", "lab/a");
        assertThat(noEquals.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(noEquals.err()).isEqualTo("allot: --share expects PATH=SHARE, e.g. lab/nlp/eval=3, got 'lab/a'\n");
        Cli.Result word = api.as("root", "whatif", "--share", "lab/a=lots");
        assertThat(word.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(word.err()).isEqualTo("allot: --share lab/a=lots: expected " + dev.allot.core.rules.Shares.EXPECTED
                + ", got 'lots'\n");
        Cli.Result far = api.as("root", "whatif", "--horizon", "30d");
        assertThat(far.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(far.err()).contains("horizon").contains("from 1h to 7d");
        Cli.Result shared = api.as("root", "whatif", "--set", "lookback=3d");
        assertThat(shared.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(shared.err()).contains("'lookback' is shared by every policy");
        Cli.Result unknown = api.as("root", "whatif", "--set", "allocation.nope=1");
        assertThat(unknown.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(unknown.err()).isEqualTo("allot: --set: unknown setting 'allocation.nope'; valid settings: "
                + String.join(", ", dev.allot.sim.forecast.WhatIfChanges.settingKeys(
                        dev.allot.core.policy.PolicyRegistry.standard().get("allocation")))
                + " (hint: 'allot policy show' shows the settings in force)\n");
        assertThat(unknown.err()).contains("valid settings: allocation.burst-reserve, allocation.burst-short-protection, ");
        Cli.Result badValue = api.as("root", "whatif", "--set", "allocation.reclaim-margin=abc");
        assertThat(badValue.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(badValue.err()).isEqualTo("allot: --set: setting 'allocation.reclaim-margin': cannot read"
                + " 'abc' as a number (hint: 'allot policy show' shows the settings in force)\n");
    }
}
