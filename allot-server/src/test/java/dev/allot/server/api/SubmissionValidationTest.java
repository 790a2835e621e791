package dev.allot.server.api;

import dev.allot.core.model.Durations;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.WorkloadFilter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad submissions: a table of malformed bodies, each refused with 400 naming the field (or no field when the body
 * as a whole is wrong), and a seeded fuzz of mutated bodies that must never make the server fail. One server for
 * the class: a refused submission changes nothing.
 */
class SubmissionValidationTest {
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

    static Stream<Arguments> badBodies() {
        return Stream.of(
                //        what is wrong                       body                                                    field named
                arguments("not JSON at all",                  "gpus=8",                                               null),
                arguments("truncated JSON",                   body().substring(0, 40),                                null),
                arguments("an array, not an object",          "[" + body() + "]",                                     null),
                arguments("empty body",                       "",                                                     null),
                arguments("trailing content",                 body() + " {}",                                         null),
                arguments("unknown field",                    body("gpu", "8"),                                       "gpu"),
                arguments("field name in the wrong case",     body("GPUs", "8"),                                      "GPUs"),
                arguments("field given twice",                body() .replace("\"gpus\": 8", "\"gpus\": 8, \"gpus\": 4"), "gpus"),
                arguments("allocation missing",               body("allocation", null),                               "allocation"),
                arguments("allocation unknown",               body("allocation", "\"lab/nlp/nope\""),                 "allocation"),
                arguments("allocation not a string",          body("allocation", "42"),                               "allocation"),
                arguments("allocation blank",                 body("allocation", "\"  \""),                           "allocation"),
                arguments("gpus missing",                     body("gpus", null),                                     "gpus"),
                arguments("gpus zero",                        body("gpus", "0", "gpusPerNode", null),                 "gpus"),
                arguments("gpus negative",                    body("gpus", "-8"),                                     "gpus"),
                arguments("gpus a string",                    body("gpus", "\"8\""),                                  "gpus"),
                arguments("gpus a fraction",                  body("gpus", "7.5"),                                    "gpus"),
                arguments("gpus beyond an int",               body("gpus", "99999999999999999999"),                   "gpus"),
                arguments("gpus null",                        body("gpus", "null"),                                   "gpus"),
                arguments("gpusPerNode not dividing gpus",    body("gpusPerNode", "3"),                               "gpusPerNode"),
                arguments("gpusPerNode negative",             body("gpusPerNode", "-4"),                              "gpusPerNode"),
                arguments("more GPUs than the cluster has",   body("gpus", "24", "gpusPerNode", null),                "gpus"),
                arguments("a gang wider than the nodes",      body("gpus", "16", "gpusPerNode", "16"),                "gpusPerNode"),
                arguments("allocation not a leaf",            body("allocation", "\"lab/nlp\""),                      "allocation"),
                arguments("minRuntime missing",               body("minRuntime", null),                               "minRuntime"),
                arguments("minRuntime in words",              body("minRuntime", "\"two hours\""),                    "minRuntime"),
                arguments("minRuntime negative",              body("minRuntime", "\"-30m\""),                         "minRuntime"),
                arguments("minRuntime a number",              body("minRuntime", "7200"),                             "minRuntime"),
                arguments("minRuntime unit unknown",          body("minRuntime", "\"2w\""),                           "minRuntime"),
                arguments("duration zero",                    body("duration", "\"0\""),                              "duration"),
                arguments("duration malformed",               body("duration", "\"6h30\""),                           "duration"),
                arguments("resumable missing",                body("resumable", null),                                "resumable"),
                arguments("resumable a string",               body("resumable", "\"yes\""),                           "resumable"),
                arguments("priority unknown",                 body("priority", "\"critical\""),                       "priority"),
                arguments("priority a number",                body("priority", "2"),                                  "priority"),
                arguments("kind blank",                       body("kind", "\"\""),                                   "kind"),
                arguments("command a string",                 body("command", "\"python train.py\""),                 "command"),
                arguments("command empty",                    body("command", "[]"),                                  "command"),
                arguments("command with a number",            body("command", "[\"python\", 3]"),                     "command"),
                arguments("command missing",                  body("command", null),                                  "command"),
                arguments("environment an array",             body("environment", "[\"SEED=7\"]"),                    "environment"),
                arguments("environment value a number",       body("environment", "{\"SEED\": 7}"),                   "environment"),
                arguments("environment name with '='",        body("environment", "{\"A=B\": \"1\"}"),                "environment"),
                arguments("environment name not ASCII",       body("environment", "{\"\u00c9\": \"1\"}"),           "environment"),
                arguments("environment name with a '-'",      body("environment", "{\"MY-VAR\": \"1\"}"),             "environment"),
                arguments("environment name from a digit",    body("environment", "{\"1SEED\": \"1\"}"),              "environment"),
                arguments("environment sets the GPUs",        body("environment", "{\"CUDA_VISIBLE_DEVICES\": \"0,1\"}"), "environment"),
                arguments("environment sets the attempt",     body("environment", "{\"ALLOT_ATTEMPT\": \"9\"}"),      "environment"),
                arguments("kind with an escape sequence",     body("kind", "\"x\\u001b[31mred\""),                  "kind"),
                arguments("kind with a line break",           body("kind", "\"train\\nfake-line\""),               "kind"),
                arguments("idempotencyKey with a tab",        body("idempotencyKey", "\"a\\tb\""),                 "idempotencyKey"),
                arguments("idempotencyKey blank",             body("idempotencyKey", "\"\""),                         "idempotencyKey"),
                arguments("idempotencyKey a number",          body("idempotencyKey", "17"),                           "idempotencyKey"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBodies")
    void aBadBodyIs400NamingTheField(String what, String body, String field) {
        Response r = api.post("/v1/workloads", "tok-root", body);

        assertThat(r.status()).as("%s: %s", what, r.json()).isEqualTo(400);
        assertThat(r.field()).as("%s: %s", what, r.json()).isEqualTo(field);
        assertThat(r.error()).as(what).isNotBlank();
        if (field != null) {
            assertThat(r.error()).as("the message names the field").contains("'" + field + "'");
        }
        assertThat(r.json().has("hint")).isTrue();
    }

    @Test
    void aVariableTheBackendSetsOnEachAttemptIsRefusedNotSilentlyReplaced() {
        // CUDA_VISIBLE_DEVICES=0,1,2,3 was accepted, and the workload ran with the one GPU it was given
        long before = api.store.workloads().workloads(WorkloadFilter.all()).size();
        Response r = api.post("/v1/workloads", "tok-root", body("environment",
                "{\"SEED\": \"7\", \"CUDA_VISIBLE_DEVICES\": \"0,1,2,3\"}"));

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.error()).isEqualTo("field 'environment': expected no variable Allot sets itself on each attempt"
                + " (ALLOT_ATTEMPT, ALLOT_ATTEMPT_STARTED_AT, ALLOT_WORKLOAD_ID, CUDA_VISIBLE_DEVICES), got"
                + " 'CUDA_VISIBLE_DEVICES'");
        assertThat(api.store.workloads().workloads(WorkloadFilter.all())).hasSize((int) before);
        assertThat(api.post("/v1/workloads", "tok-root", body("environment", "{\"ALLOT_TOKEN\": \"t\"}")).status())
                .as("other ALLOT_ names are the submitter's").isEqualTo(201);
    }

    @Test
    void aKindWithAControlCharacterIsRefusedSoNoTerminalListingTheQueuePrintsIt() {
        // 'kind': "x\u001b[31mRED\u001b[0m\nfake-line" was stored, and 'allot show' printed the escape and the line
        Response r = api.post("/v1/workloads", "tok-root", body("kind", "\"x\\u001b[31mRED\\u001b[0m\\nfake\""));

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.error()).isEqualTo("field 'kind': expected text without control characters (line breaks, tabs,"
                + " escapes), got 'x\\u001b[31mRED\\u001b[0m\\nfake'");
        assertThat(api.post("/v1/workloads", "tok-root", body("kind", "\"ünïcode-eval\"")).status()).isEqualTo(201);
    }

    @Test
    void theMessageSaysWhatWasExpectedAndWhatCame() {
        Response r = api.post("/v1/workloads", "tok-root", body("gpus", "0", "gpusPerNode", null));

        assertThat(r.error()).isEqualTo("field 'gpus': expected a whole number >= 1, got 0");
        Response unknown = api.post("/v1/workloads", "tok-root", body("gpu", "8"));
        assertThat(unknown.json().path("hint").asText()).contains("gpus", "gpusPerNode", "minRuntime");
        Response duration = api.post("/v1/workloads", "tok-root", body("duration", "\"2x\""));
        assertThat(duration.error()).startsWith("field 'duration': expected a positive duration such as \"90s\", \"30m\",");
        Response minRuntime = api.post("/v1/workloads", "tok-root", body("minRuntime", "\"10x\""));
        assertThat(minRuntime.error()).startsWith("field 'minRuntime': expected a duration text such as \"90s\",");
        // a duration of the right form but too large to count is said to be too large, not of the wrong form
        Response huge = api.post("/v1/workloads", "tok-root", body("minRuntime", "\"99999999999999999d\""));
        assertThat(huge.error()).isEqualTo("field 'minRuntime': expected a duration of at most 24855d3h14m7s"
                + " (2,147,483,647 seconds, about 68 years), got a string (\"99999999999999999d\")");
        // one that counts but reaches past what a forecast can play forward (about 68 years) says the limit
        Response tooLong = api.post("/v1/workloads", "tok-root", body("duration", "\"106751991167300d\""));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.error()).isEqualTo("field 'duration': expected a positive duration, at most "
                + Durations.formatSeconds(Integer.MAX_VALUE) + " (about 68 years), got 106751991167300d");
        // a unit given twice was read as a sum (1h1h as 2h), and Arabic-Indic digits as ASCII ones (١٠m as 10m)
        Response arabic = api.post("/v1/workloads", "tok-root", body("duration", "\"\u0661\u0660m\""));
        assertThat(arabic.status()).isEqualTo(400);
        assertThat(arabic.error()).startsWith("field 'duration': expected a positive duration such as");
        // and a unit given twice is told so, in the duration parser's words, naming the field (it was told only what a
        // duration looks like, as if 5m5m were of no form at all)
        for (String field : java.util.List.of("duration", "minRuntime")) {
            for (String text : java.util.List.of("1h1h", "5m5m")) {
                Response twice = api.post("/v1/workloads", "tok-root", body(field, "\"" + text + "\""));
                assertThat(twice.status()).as(text).isEqualTo(400);
                assertThat(twice.error()).as(text).isEqualTo("field '" + field + "': expected each of d, h, m and s at"
                        + " most once, e.g. 1h30m, got a string (\"" + text + "\"): the unit '" + text.charAt(1)
                        + "' is given twice");
            }
        }
        // the hint adds what the message does not say, rather than repeating what is expected
        assertThat(minRuntime.json().path("hint").asText())
                .isEqualTo("\"0\" makes the workload unallocated: free, never charged and always preemptible");
        // an environment name that is not one is hinted at names, not only at quoting values
        Response name = api.post("/v1/workloads", "tok-root", body("environment", "{\"1BAD\": \"x\"}"));
        assertThat(name.status()).isEqualTo(400);
        assertThat(name.json().path("hint").asText()).startsWith("names are letters, digits and _, not starting with a"
                + " digit; values are strings").contains("Allot sets ALLOT_ATTEMPT, ");
    }

    @Test
    void everyWrongFieldIsListedAtOnceWithWhatWasExpectedAndNothingIsCreated() {
        // given a body wrong in eight fields at once (one of them unknown)
        long before = api.store.workloads().workloads(WorkloadFilter.all()).size();
        String bad = body("gpus", "0", "gpusPerNode", "-1", "minRuntime", "\"two hours\"", "priority", "\"critical\"",
                "kind", "\"\"", "command", "[]", "environment", "{\"A=B\": \"1\"}", "colour", "\"red\"");

        // when submitted
        Response r = api.post("/v1/workloads", "tok-root", bad);

        // then one 400 lists every violation, each with its field, what was expected and what came
        assertThat(r.status()).as("%s", r.json()).isEqualTo(400);
        List<String> fields = new ArrayList<>();
        r.json().path("violations").forEach(v -> {
            fields.add(v.path("field").asText());
            assertThat(v.path("expected").asText()).as("%s", v).isNotBlank();
            assertThat(v.path("got").asText()).as("%s", v).isNotBlank();
        });
        assertThat(fields).containsExactly("colour", "gpus", "gpusPerNode", "minRuntime", "priority", "kind", "command",
                "environment");
        assertThat(r.json().path("violations").get(1).path("expected").asText()).isEqualTo("a whole number >= 1");
        assertThat(r.json().path("violations").get(1).path("got").asText()).isEqualTo("0");
        assertThat(r.field()).isEqualTo("colour");
        for (String f : fields) {
            assertThat(r.error()).contains("field '" + f + "': expected ");
        }
        // and nothing was stored
        assertThat(api.store.workloads().workloads(WorkloadFilter.all())).hasSize((int) before);
    }

    @Test
    void aBatchNamesTheIndexOfEachViolation() {
        String batch = "{\"workloads\": [" + body() + ", " + body("gpus", "0", "kind", "\"\"") + "]}";

        Response r = api.post("/v1/workloads/batch", "tok-root", batch);

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.field()).isEqualTo("workloads[1].gpus");
        assertThat(r.json().path("violations")).extracting(v -> v.path("field").asText())
                .containsExactly("workloads[1].gpus", "workloads[1].kind");
    }

    @Test
    void aBodyNestedTooDeeplyIsRefusedWithoutTheParsersJavaNames() {
        Response r = api.post("/v1/workloads", "tok-root", "[".repeat(2_000) + "]".repeat(2_000));

        assertThat(r.status()).isEqualTo(400);
        // it said "(1000, from `StreamReadConstraints.getMaxNestingDepth()`)", then "malformed JSON: Document nesting
        // depth (1001) exceeds the maximum allowed (1000)", with no place; the 1,001st '[' is column 1001, and the
        // column said is the one after it, as in the parser's other errors (and the scenario files')
        assertThat(r.error()).isEqualTo("malformed JSON at line 1, column 1002: nested too deeply (limit 1000): lists"
                + " and objects more than 1000 deep inside one another");
    }

    @Test
    void anUnclosedOrDoubledBodyIsRefusedWithoutTheParsersJavaNames() {
        Response open = api.post("/v1/workloads", "tok-root", "{");
        Response twice = api.post("/v1/workloads", "tok-root", "{} {}");

        assertThat(open.status()).isEqualTo(400);
        assertThat(twice.status()).isEqualTo(400);
        // they said "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1]"
        // and "(bound as `com.fasterxml.jackson.databind.JsonNode`): not allowed as per `DeserializationFeature...`"
        // then "Unexpected end-of-input: expected close marker for Object (start marker at line 1, column 1)"
        assertThat(open.error()).isEqualTo("malformed JSON at line 1, column 2: the body ends inside an object opened"
                + " at line 1, column 1 (truncated?)");
        assertThat(twice.error()).contains("Trailing token").contains("only one JSON value is allowed")
                .doesNotContain("`").doesNotContain("bound as");
    }

    @Test
    void aValidSubmissionStillPasses() {
        Response r = api.post("/v1/workloads", "tok-root", body("idempotencyKey", "\"still-valid\""));

        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        assertThat(r.json().path("gpus").asInt()).isEqualTo(8);
    }

    @Test
    void refusedSubmissionsStoreNothing() {
        long before = api.store.workloads().workloads(WorkloadFilter.all()).size();
        badBodies().forEach(args -> api.post("/v1/workloads", "tok-root", (String) args.get()[1]));

        assertThat(api.store.workloads().workloads(WorkloadFilter.all())).hasSize((int) before);
    }

    @Test
    void mutatedBodiesAreAcceptedOrRefusedButNeverFailTheServer() {
        byte[] valid = body("idempotencyKey", "\"fuzz\"").getBytes(StandardCharsets.UTF_8);
        byte[] alphabet = "{}[]:,\"\\ -0123456789.eE+truefalsnl/abcxyz\u00e9".getBytes(StandardCharsets.UTF_8);
        Random random = new Random(20_260_301L);
        List<String> unexpected = new ArrayList<>();
        int accepted = 0;
        for (int i = 0; i < 200; i++) {
            byte[] mutated = valid;
            int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                mutated = mutate(mutated, random, alphabet);
            }
            Response r = api.send("POST", "/v1/workloads", "tok-root", mutated);
            // every mutation shares the key "fuzz": one that still reads but differs from the workload stored under it
            // is refused as a 409 naming the key (IdempotentReplays), a refusal like a 400's
            boolean keyReused = r.status() == 409 && "idempotencyKey".equals(r.field());
            if (r.status() == 201) {
                accepted++;
            } else if (r.status() != 400 && !keyReused || r.json() == null || r.error() == null) {
                unexpected.add(r.status() + " for " + new String(mutated, StandardCharsets.UTF_8) + " -> " + r.json());
            }
        }

        assertThat(unexpected).isEmpty();
        assertThat(accepted).as("some mutations keep the body valid, so both answers were exercised")
                .isBetween(1, 199);
        assertThat(api.get("/v1/health", null).status()).isEqualTo(200);
        assertThat(api.post("/v1/workloads", "tok-root", body()).status()).isEqualTo(201);
    }

    /** One random deletion, insertion or byte change. */
    private static byte[] mutate(byte[] in, Random random, byte[] alphabet) {
        int at = random.nextInt(in.length + 1);
        switch (random.nextInt(3)) {
            case 0 -> { // delete a short run
                if (in.length == 0 || at == in.length) {
                    return in;
                }
                int n = Math.min(1 + random.nextInt(4), in.length - at);
                byte[] out = new byte[in.length - n];
                System.arraycopy(in, 0, out, 0, at);
                System.arraycopy(in, at + n, out, at, in.length - at - n);
                return out;
            }
            case 1 -> { // insert a byte, from the JSON alphabet most of the time, any byte sometimes
                byte b = random.nextInt(4) == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
                byte[] out = new byte[in.length + 1];
                System.arraycopy(in, 0, out, 0, at);
                out[at] = b;
                System.arraycopy(in, at, out, at + 1, in.length - at);
                return out;
            }
            default -> { // change a byte
                if (at == in.length) {
                    return in;
                }
                byte[] out = in.clone();
                out[at] = random.nextBoolean() ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
                return out;
            }
        }
    }
}
