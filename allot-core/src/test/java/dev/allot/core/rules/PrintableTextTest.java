package dev.allot.core.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rule for ids and names that reports print: no control character, shown escaped when there is one. */
class PrintableTextTest {
    @Test
    void textWithoutControlCharactersIsPrintable() {
        assertThat(PrintableText.check("id", "pre-1 (ünïcode ok)")).isEmpty();
        assertThat(PrintableText.check("id", null)).isEmpty(); // absence is another rule's business
    }

    @Test
    void theFirstControlCharacterIsNamedEscapedWithItsPlace() {
        Violation v = PrintableText.check("id", "pre-\u001b[31mX\n").orElseThrow();
        assertThat(v.toString()).isEqualTo("field 'id': expected text without control characters (line breaks, tabs,"
                + " escapes), got 'pre-\\u001b[31mX\\n'");
        assertThat(v.hint()).isEqualTo("remove the control character \\u001b (U+001B) at character 5; ids and names"
                + " are printed in reports and on terminals");
    }

    @Test
    void c1ControlsAreControlCharactersAndShownEscaped() {
        // U+009B is a one-character CSI to some terminals; it was neither refused nor escaped
        assertThat(PrintableText.valid("a\u009bb")).isFalse();
        assertThat(Violation.escaped("a\u009bb\u007f\u0085")).isEqualTo("a\\u009bb\\u007f\\u0085");
        assertThat(Names.valid("a\u009bb")).isFalse();
    }
}
