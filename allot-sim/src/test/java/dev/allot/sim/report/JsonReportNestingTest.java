package dev.allot.sim.report;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.sim.input.InputException;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/**
 * A saved run nested deeper than the JSON parser's limit is refused at the bracket that goes too deep, in words: it
 * said "Document nesting depth (1001) exceeds the maximum allowed (1000)" with no line or column.
 */
class JsonReportNestingTest {
    private static final String TOO_DEEP = "nested too deeply (limit 1000): lists and objects more than 1000 deep inside"
            + " one another";
    private static final String EXPECTED = "; expected the --json output of 'allot simulate' (schema allot.simulate/1)";

    @Test
    void aDeepListInAnUnknownFieldIsLocatedAtTheBracketBeyondTheLimit() {
        // '{"schema": "allot.simulate/1", "x": ' is 36 characters; the object is depth 1, the 1000th '[' (column
        // 1036) depth 1001; the column is the one after it, as in the parser's other errors
        String text = "{\"schema\": \"allot.simulate/1\", \"x\": " + "[".repeat(2000) + "]".repeat(2000) + "}";
        assertThatThrownBy(() -> JsonReport.read(new StringReader(text), "run.json")).isInstanceOf(InputException.class)
                .hasMessage("run.json:1:1037: malformed JSON: " + TOO_DEEP + EXPECTED);
    }

    @Test
    void aDeepListInAKnownFieldIsLocatedOnItsLine() {
        // read through the object mapper's buffer of the scenario object, which met the limit without a location
        String text = "{\n\"schema\": \"allot.simulate/1\",\n\"scenario\": {\"deep\": " + "[".repeat(2000)
                + "]".repeat(2000) + "}}";
        assertThatThrownBy(() -> JsonReport.read(new StringReader(text), "run.json")).isInstanceOf(InputException.class)
                .hasMessage("run.json:3:1021: field 'scenario': " + TOO_DEEP + EXPECTED);
    }
}
