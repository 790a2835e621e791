package dev.allot.sim.input;

import java.util.regex.Pattern;

/**
 * Jackson's messages as people read them. Jackson names its own Java API in some ("the maximum allowed (1000, from
 * `StreamReadConstraints.getMaxNestingDepth()`)", "(start marker at [Source: REDACTED (`StreamReadFeature...`
 * disabled); line: 1, column: 1])", "(bound as `com.fasterxml...JsonNode`): not allowed as per
 * `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`"): a reader of a scenario file or an API client cannot change that
 * setting and should not see the parser's class names. This is where the server's JSON bodies and the scenario's
 * YAML files drop them.
 */
public final class ParserMessages {
    /** Jackson's pointer to the setting a limit comes from, e.g. {@code , from `StreamReadConstraints.getMax...()`}. */
    private static final Pattern JAVA_SETTING = Pattern.compile(",? from `[^`]*`");
    /** Where a start marker was, with the parser's note on hiding the source: {@code [Source: REDACTED (`...` ...); line: 1, column: 1]}. */
    private static final Pattern SOURCE = Pattern.compile("\\[Source: [^;\\]]*?(?: \\([^)]*\\))?; line: (\\d+), column: (\\d+)\\]");
    /** The Java type a value was read as: {@code  (bound as `com.fasterxml...JsonNode`)}. */
    private static final Pattern BOUND_AS = Pattern.compile(" \\(bound as `[^`]*`\\)");
    /** The feature that refused it: {@code : not allowed as per `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`}. */
    private static final Pattern AS_PER = Pattern.compile(":? not allowed as per `[^`]*`");

    private ParserMessages() {
    }

    /** {@code message} without the names of Jackson's settings; null stays null. */
    public static String plain(String message) {
        if (message == null) {
            return null;
        }
        String m = JAVA_SETTING.matcher(message).replaceAll("");
        m = SOURCE.matcher(m).replaceAll("line $1, column $2");
        m = BOUND_AS.matcher(m).replaceAll("");
        return AS_PER.matcher(m).replaceAll(": only one JSON value is allowed");
    }

    /**
     * A SnakeYAML syntax error as one line: its descriptive lines ({@code while scanning a simple key; could not find
     * expected ':'}) without its source excerpts ({@code in 'reader', line ...}, the quoted line and the caret under
     * it) or Jackson's setting names. Every YAML file Allot reads (a scenario's, a campaign's) says it this way: the
     * first line alone says where the parser was, not what it found wrong.
     */
    public static String yamlSyntax(String message) {
        String m = plain(message);
        if (m == null) {
            return "malformed YAML";
        }
        if (m.startsWith("Expected a field name")) {
            // Jackson's wording for "? [a, b]: ..." names SnakeYAML's event classes; say it plainly.
            return "expected a plain key, got a list or mapping used as a key";
        }
        java.util.List<String> parts = new java.util.ArrayList<>();
        for (String line : m.split("\n")) {
            String t = line.strip();
            if (t.isEmpty() || line.startsWith(" ") || t.startsWith("in '")) {
                continue;
            }
            parts.add(t);
        }
        return parts.isEmpty() ? m.strip() : String.join("; ", parts);
    }
}
