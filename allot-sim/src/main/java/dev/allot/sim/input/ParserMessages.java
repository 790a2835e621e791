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

    /**
     * Jackson's limit on nesting: {@code Document nesting depth (1001) exceeds the maximum allowed (1000)} (its setting
     * dropped by {@link #JAVA_SETTING} first).
     */
    private static final Pattern NESTING = Pattern.compile(
            "Document nesting depth \\(\\d+\\) exceeds the maximum allowed \\((\\d+)\\)\\.?");

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
     * Where a streaming read of {@code text} fails, or null when it does not: for an error that came without a
     * location. Jackson's limit on nesting, met while the object mapper replayed a buffered part of the document,
     * said no line; the streaming parser meets it at the bracket that goes one deeper than the limit.
     */
    public static com.fasterxml.jackson.core.JsonLocation locate(com.fasterxml.jackson.core.JsonFactory factory,
                                                                  String text) {
        com.fasterxml.jackson.core.JsonParser p = null;
        try {
            p = factory.createParser(text);
            while (p.nextToken() != null) {
                // read every token: the limits apply as it goes
            }
            return null;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return e.getLocation() != null ? e.getLocation() : p == null ? null : p.currentLocation();
        } catch (java.io.IOException e) {
            return null;
        } finally {
            if (p != null) {
                try {
                    p.close();
                } catch (java.io.IOException ignored) {
                    // a parser of a string holds nothing to release
                }
            }
        }
    }

    /** Jackson's words for input that stops early: {@code Unexpected end-of-input: expected close marker for Object}. */
    private static final Pattern END_OF_INPUT = Pattern.compile("Unexpected end-of-input(?:.*?\\b(Object|Array)\\b)?.*",
            Pattern.DOTALL);
    /** Where the object or list cut short opened, once {@link #plain} has said it in words. */
    private static final Pattern OPENED = Pattern.compile("start marker at (line \\d+, column \\d+)");
    /** A number JSON has no word for: {@code Non-standard token 'NaN': enable `JsonReadFeature...` to allow}. */
    private static final Pattern NON_NUMERIC = Pattern.compile("Non-standard token '([^']*)'.*", Pattern.DOTALL);

    /**
     * A JSON file's syntax error in the words of its reader, not of Jackson: input cut short is "{@code whole} ends
     * inside an object (truncated?)" (Jackson said "expected close marker for Object (start marker at [Source:
     * REDACTED ...])"), a {@code NaN} or {@code Infinity} is "expected a number, got NaN" (Jackson named the setting
     * that would allow it); any other as {@link #plain}. {@code whole} is what was read: "the file", "the line".
     */
    public static String jsonSyntax(String message, String whole) {
        if (message == null) {
            return "malformed JSON";
        }
        String m = nesting(plain(message));
        java.util.regex.Matcher end = END_OF_INPUT.matcher(m);
        if (end.matches()) {
            String inside = end.group(1) == null ? "" : end.group(1).equals("Object") ? " inside an object"
                    : " inside a list";
            java.util.regex.Matcher opened = OPENED.matcher(m);
            return whole + " ends" + inside + (opened.find() && !inside.isEmpty() ? " opened at " + opened.group(1) : "")
                    + " (truncated?)";
        }
        java.util.regex.Matcher number = NON_NUMERIC.matcher(message);
        if (number.matches()) {
            return "expected a number, got " + number.group(1);
        }
        return m;
    }

    /**
     * A field a JSON file's reader does not know, in the file's words: "unknown field 'a'" (Jackson said 'Unrecognized
     * field "a" (class dev.allot.sim.report.JsonReport$Document), not marked as ignorable', naming a Java class).
     * {@code known} are the fields the object has; {@code listKnown} adds them ("(fields there: ...)"), for a field
     * inside the document, whose fields the reader's hint does not list.
     */
    public static String unknownField(String field, Class<?> type, java.util.Collection<Object> known,
                                      boolean listKnown) {
        return "unknown field '" + field + "'" + (listKnown && known != null && !known.isEmpty()
                ? " (fields there: " + fieldList(type, known) + ")" : "");
    }

    /**
     * The names of {@code known} fields, comma-separated: in the order a record {@code type} declares them (the order
     * its writer writes them), else alphabetically (Jackson's own order is a hash set's).
     */
    public static String fieldList(Class<?> type, java.util.Collection<Object> known) {
        if (known == null) {
            return "";
        }
        java.util.List<String> names = new java.util.ArrayList<>(known.stream().map(String::valueOf).sorted().toList());
        if (type != null && type.isRecord()) {
            java.util.List<String> declared = java.util.Arrays.stream(type.getRecordComponents())
                    .map(java.lang.reflect.RecordComponent::getName).toList();
            names.sort(java.util.Comparator.comparingInt(n -> declared.contains(n) ? declared.indexOf(n)
                    : Integer.MAX_VALUE));
        }
        return String.join(", ", names);
    }

    /**
     * Jackson's limit on nesting in a file's words: "nested too deeply (limit 1000): ..." rather than "Document nesting
     * depth (1001) exceeds the maximum allowed (1000)". The file's reader locates it ({@link #locate}): Jackson's
     * message has no location.
     */
    private static String nesting(String message) {
        return NESTING.matcher(message).replaceAll("nested too deeply (limit $1): lists and objects more than $1 deep"
                + " inside one another");
    }

    /**
     * Where a YAML syntax error is, as {@code {line, column}} from 1, or null when the parser did not say: SnakeYAML's
     * own marks, not Jackson's location, which is where the parser stood when it gave up (for {@code gpus 1} on line
     * 12, the end of line 11). A token the scanner could not finish ("while scanning a simple key" for a key
     * without its colon, "while scanning a quoted scalar" for an unclosed quote) is found wrong only where it should
     * have ended, often the next line or the end of the file, so it is placed where it begins (the context mark);
     * the parser's errors (a mapping's or list's structure) where it found them (the problem mark).
     */
    public static int[] yamlPosition(com.fasterxml.jackson.core.JsonProcessingException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.yaml.snakeyaml.error.MarkedYAMLException m) {
                org.yaml.snakeyaml.error.Mark mark = m instanceof org.yaml.snakeyaml.scanner.ScannerException
                        && m.getContextMark() != null ? m.getContextMark() : m.getProblemMark();
                if (mark != null) {
                    return new int[] {mark.getLine() + 1, mark.getColumn() + 1};
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        com.fasterxml.jackson.core.JsonLocation l = e.getLocation();
        return l == null || l.getLineNr() <= 0 ? null : new int[] {l.getLineNr(), Math.max(0, l.getColumnNr())};
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
        m = nesting(m);
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
        return plainIndentation(parts.isEmpty() ? m.strip() : String.join("; ", parts));
    }

    private static final Pattern BLOCK_END = Pattern.compile(
            "expected <block end>, but found '<(block sequence start|block mapping start|scalar)>'");

    /**
     * The parser's indentation errors in a file's words: "expected &lt;block end&gt;, but found '&lt;block sequence
     * start&gt;'" named the parser's tokens, not the line indented to no level above it; "mapping values are not
     * allowed here" did not say what does that (a line indented under a value, or ': ' in an unquoted value).
     */
    private static String plainIndentation(String message) {
        String m = BLOCK_END.matcher(message).replaceAll(r -> switch (r.group(1)) {
            case "block sequence start" -> "a list item ('- ')";
            case "block mapping start" -> "a field";
            default -> "a value";
        } + " indented to no level above it: line it up with the fields or list items it belongs with");
        return m.replace("mapping values are not allowed here", "mapping values are not allowed here: a 'key: value'"
                + " where a plain value was expected (a line indented under a value, or ': ' inside an unquoted value:"
                + " quote that value)");
    }
}
