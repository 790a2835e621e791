package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rejections in {@code workloads.jsonl}: columns are the ones Jackson reports within the line (0 when a field is
 * missing altogether). Also the folder-level rules about which workloads file is present.
 */
class JsonlRejectionTest {
    private static final String GOOD = "{\"id\": \"ok\", \"submit\": 0, \"allocation\": \"detect\", \"gpus\": 1,"
            + " \"duration\": \"1h\", \"min_runtime\": \"15m\"}";

    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void folder() {
        dir = Folders.copy("jsonl", tmp);
    }

    private InputException lines(String... lines) {
        Folders.write(dir, "workloads.jsonl", String.join("\n", lines) + "\n");
        return Folders.error(dir);
    }

    @Test
    void malformedFieldIsLocatedAtItsValue() {
        InputException e = lines(GOOD.replace("\"gpus\": 1", "\"gpus\": \"x\""));
        assertThat(e.getMessage()).isEqualTo("workloads.jsonl:1:59: field 'gpus': expected a whole number >= 1, got 'x'");
        assertThat(GOOD.indexOf("\"gpus\": 1") + "\"gpus\": ".length() + 1).isEqualTo(59);
    }

    @Test
    void aControlCharacterWrittenAsAJsonEscapeIsRefusedAtItsValue() {
        InputException e = lines(GOOD.replace("\"ok\"", "\"ok\\u001b[2J\""));
        assertThat(e.getMessage()).isEqualTo("workloads.jsonl:1:8: field 'id': expected text without control"
                + " characters (line breaks, tabs, escapes), got 'ok\\u001b[2J'; remove the control character"
                + " \\u001b (U+001B) at character 3; ids and names are printed in reports and on terminals");
    }

    @Test
    void fractionalNumbersAreNotWholeNumbers() {
        InputException e = lines(GOOD.replace("\"gpus\": 1", "\"gpus\": 8.5"));
        assertThat(e.field()).isEqualTo("gpus");
        assertThat(e.problem()).isEqualTo("expected a whole number >= 1, got '8.5'");
    }

    @Test
    void aNumberBeyondAnIntSaysTheUpperLimit() {
        InputException e = lines(GOOD.replace("\"gpus\": 1", "\"gpus\": 99999999999"));
        assertThat(e.getMessage()).isEqualTo("workloads.jsonl:1:59: field 'gpus': expected a whole number >= 1,"
                + " at most 2,147,483,647, got '99999999999'");
    }

    @Test
    void aListWhereANumberBelongs() {
        InputException e = lines(GOOD.replace("\"gpus\": 1", "\"gpus\": [8]"));
        assertThat(e.line()).isEqualTo(1);
        assertThat(e.column()).isEqualTo(59);
        assertThat(e.problem()).isEqualTo("expected a string, number or boolean, got an array");
    }

    @Test
    void missingRequiredFieldHasNoColumn() {
        InputException e = lines(GOOD, GOOD.replace(", \"min_runtime\": \"15m\"", "").replace("ok", "two"));
        assertThat(e.getMessage()).isEqualTo("workloads.jsonl:2: field 'min_runtime': expected a duration such as 90s,"
                + " 15m, 8h, 2d, 1h30m or plain seconds, got nothing");
    }

    @Test
    void unknownFieldListsTheValidOnes() {
        InputException e = lines("{\"id\":\"a\",\"sumbit\":0}");
        assertThat(e.getMessage()).isEqualTo("workloads.jsonl:1:11: field 'sumbit': unknown field; valid fields: id,"
                + " submit, allocation, user, gpus, gpus_per_node, duration, min_runtime, resumable, priority,"
                + " checkpoint_every, kind");
    }

    @Test
    void repeatedField() {
        InputException e = lines("{\"id\":\"a\",\"id\":\"b\"}");
        assertThat(e.getMessage()).isEqualTo("workloads.jsonl:1:11: field 'id': field appears twice in the object");
    }

    @Test
    void malformedJsonCarriesJacksonsColumn() {
        InputException e = lines(GOOD, "{\"id\": \"a\", \"submit\": 0,,}");
        assertThat(e.file()).isEqualTo("workloads.jsonl");
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.column()).isEqualTo(25);
        assertThat(e.field()).isNull();
        assertThat(e.problem()).startsWith("malformed JSON: Unexpected character (','");
    }

    @Test
    void eachLineHoldsOneObject() {
        assertThat(lines("[1, 2]").getMessage()).startsWith(
                "workloads.jsonl:1:1: expected a JSON object with fields id, submit, ");
        assertThat(lines(GOOD + " " + GOOD).getMessage()).isEqualTo(
                "workloads.jsonl:1:" + (GOOD.length() + 2) + ": expected one JSON object per line, found more after it");
        assertThat(lines("{\"id\": \"a\",").problem()).startsWith("malformed JSON: the line ends inside an object");
    }

    @Test
    void givenALineCutShortInsideItsObject_whenRead_thenTheErrorSaysWhereTheObjectOpenedWithoutTheParsersJavaWords() {
        // it said '... expected close marker for Object (start marker at [Source: REDACTED
        // (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1])' of line 2
        InputException e = lines(GOOD, "  {\"id\": \"a\", \"gpus\": 8");
        assertThat(e.getMessage()).isEqualTo("workloads.jsonl:2:24: malformed JSON: the line ends inside an object"
                + " opened at column 3 (truncated?) (hint: each line is one whole JSON object,"
                + " {\"id\": \"w1\", ...}, on one line, with text in double quotes)");
    }

    @Test
    void givenNaNForANumber_whenRead_thenTheErrorSaysANumberWasExpectedNotWhichParserSettingAllowsIt() {
        // it said "Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow"
        InputException e = lines(GOOD, "{\"id\": \"a\", \"gpus\": NaN}");
        assertThat(e.getMessage()).startsWith("workloads.jsonl:2:").contains("expected a number, got NaN")
                .doesNotContain("JsonReadFeature").doesNotContain("Non-standard");
    }

    @Test
    void rowChecksAreTheSameAsForCsv() {
        InputException e = lines(GOOD, GOOD.replace("\"detect\"", "\"vision\""));
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.field()).isEqualTo("allocation");
        assertThat(e.problem()).startsWith("expected a leaf allocation, got 'vision', an inner node");

        e = lines(GOOD, GOOD);
        assertThat(e.getMessage()).isEqualTo(
                "workloads.jsonl:2:8: field 'id': expected a unique id, got 'ok', already used on line 1");
    }

    @Test
    void lenientKeepsGoingAfterMalformedLines() {
        Folders.write(dir, "workloads.jsonl", String.join("\n",
                GOOD,
                "{not json",
                GOOD.replace("ok", "two"),
                "{\"id\": \"three\"}",
                "") + "\n");

        Scenario s = Folders.readLenient(dir);

        assertThat(s.workloads()).extracting(WorkloadSpec::id).containsExactly("ok", "two");
        assertThat(s.rejected()).hasSize(2);
        assertThat(s.rejected().get(0)).startsWith("workloads.jsonl:2:2: malformed JSON: ");
        assertThat(s.rejected().get(1)).isEqualTo("workloads.jsonl:4: field 'submit': expected seconds, a duration such"
                + " as 3d or 1h30m, or an ISO-8601 instant such as 2026-01-05T00:00:00Z, got nothing");
    }

    @Test
    void bothWorkloadFilesIsAnError() {
        Folders.write(dir, "workloads.csv", "id,submit,allocation,gpus,duration,min_runtime\n");
        InputException e = Folders.error(dir);
        assertThat(e.getMessage()).startsWith("workloads.csv: both workloads.csv and workloads.jsonl are in ")
                .endsWith("; keep exactly one of them");
    }

    @Test
    void neitherWorkloadFileIsAnError() {
        Folders.delete(dir, "workloads.jsonl");
        InputException e = Folders.error(dir);
        assertThat(e.getMessage()).startsWith("workloads.csv: missing in " + dir + ": expected workloads.csv or"
                + " workloads.jsonl; a scenario folder holds cluster.yaml, allocations.yaml, one of workloads.csv or"
                + " workloads.jsonl, and optionally policy.yaml");
    }
}
