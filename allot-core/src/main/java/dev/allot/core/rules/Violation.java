package dev.allot.core.rules;

import java.util.List;
import java.util.Objects;

/**
 * One way a value breaks a rule: the field it is in (named as the API names it, e.g. {@code gpusPerNode}; a reader
 * maps the name to its own column), what the rule expected and what came. Each boundary words it its own way (an
 * HTTP 400 body, a {@code file:line:column} message), so the parts are kept apart rather than joined into one text.
 *
 * @param field    the field, never null
 * @param expected what the rule wants, as words to follow "expected ", e.g. "a whole number >= 1"
 * @param got      what came, as words to follow "got ", e.g. "0" or "'..'"
 * @param hint     what to write instead, where the rule alone would leave the writer guessing (a sentence, e.g.
 *                 "leave it empty ..."), or null
 */
public record Violation(String field, String expected, String got, String hint) {
    public Violation {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(got, "got");
    }

    /** A violation without a hint. */
    public Violation(String field, String expected, String got) {
        this(field, expected, got, null);
    }

    /** "expected ..., got ...", without the field. */
    public String problem() {
        return "expected " + expected + ", got " + got;
    }

    /**
     * {@link #problem()} and the hint after "; " (the problem alone without one): how a file's reader words it after
     * its {@code file:line:column: field 'f': }.
     */
    public String problemAndHint() {
        return hint == null ? problem() : problem() + "; " + hint;
    }

    /** "field 'f': expected ..., got ...". */
    @Override
    public String toString() {
        return "field '" + field + "': " + problem();
    }

    /** Every violation as {@link #toString()}, joined by "; ", for messages of invariants that must hold. */
    public static String join(List<Violation> violations) {
        StringBuilder sb = new StringBuilder();
        for (Violation v : violations) {
            if (sb.length() > 0) {
                sb.append("; ");
            }
            sb.append(v);
        }
        return sb.toString();
    }

    /**
     * A text value as a message shows it: quoted, control characters escaped (so a message stays on one line) and
     * cut after 60 characters.
     */
    public static String shown(String text) {
        if (text == null) {
            return "nothing";
        }
        int n = Math.min(text.length(), 60);
        StringBuilder sb = new StringBuilder(Math.min(text.length(), 64) + 2).append('\'')
                .append(escaped(text.substring(0, n)));
        if (text.length() > n) {
            sb.append("...");
        }
        sb.append('\'');
        if (text.length() > n) {
            sb.append(" (").append(text.length()).append(" characters)");
        }
        return sb.toString();
    }

    /** {@code text} on one line: newline, return and tab as {@code \n \r \t}, other control characters (C0, DEL,
     * C1) as {@code \}{@code uXXXX}; everything else as it is. */
    public static String escaped(String text) {
        StringBuilder sb = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (Character.isISOControl(c)) { // C0, DEL and the C1 controls
                        sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
