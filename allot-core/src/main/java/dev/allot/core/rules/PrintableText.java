package dev.allot.core.rules;

import java.util.Locale;
import java.util.Optional;

/**
 * The one rule for an id or name that reports and terminals print: no control character (a line break, a tab, an
 * escape such as {@code \u001b}, NUL, or one of the C1 controls {@code \u0080}-{@code \u009f}). A workload id of
 * {@code "pre-\u001b[31m..."} or a user with a tab was read from a scenario and then printed as is: the escape reached
 * the terminal of whoever read the report, and a line break (possible in a quoted CSV cell) split a row of a table.
 * The names of allocations and nodes have the stricter {@link Names}; user names made by the service, {@link UserNames}.
 */
public final class PrintableText {
    public static final String EXPECTED = "text without control characters (line breaks, tabs, escapes)";

    private PrintableText() {
    }

    /** Whether {@code text} holds no control character. */
    public static boolean valid(String text) {
        return firstControl(text) < 0;
    }

    /**
     * Why {@code text} (in {@code field}) is not printable, or empty when it is: the text escaped, and a hint naming
     * the first control character, escaped, and where it is.
     */
    public static Optional<Violation> check(String field, String text) {
        int at = firstControl(text);
        if (at < 0) {
            return Optional.empty();
        }
        char c = text.charAt(at);
        return Optional.of(new Violation(field, EXPECTED, Violation.shown(text), "remove the control character "
                + Violation.escaped(String.valueOf(c)) + String.format(Locale.ROOT, " (U+%04X)", (int) c)
                + " at character " + (at + 1) + "; ids and names are printed in reports and on terminals"));
    }

    /** The index of the first control character of {@code text}, or -1 when it has none (or is null). */
    private static int firstControl(String text) {
        if (text == null) {
            return -1;
        }
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
