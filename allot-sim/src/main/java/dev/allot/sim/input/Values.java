package dev.allot.sim.input;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Priority;
import dev.allot.core.rules.PrintableText;
import dev.allot.core.rules.Violation;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Parsing of the scalar values shared by the readers of this package and the trace importers
 * ({@code dev.allot.sim.trace}), and the wording of the problems they report. The happy paths neither throw nor use
 * regular expressions, because they run once per workload row; failures return a sentinel or throw with a message
 * that says what was expected and what was found.
 */
public final class Values {
    static final String DURATION_EXPECTED = "a duration such as 90s, 15m, 8h, 2d, 1h30m or plain seconds";
    static final String TIME_EXPECTED =
            "seconds, a duration such as 3d or 1h30m, or an ISO-8601 instant such as 2026-01-05T00:00:00Z";
    static final String BOOLEAN_EXPECTED = "true, false, yes, no, 1 or 0";

    private Values() {
    }

    /** A point in time as written: seconds from time 0 ({@code absolute} false) or epoch seconds of an instant. */
    record Time(long seconds, boolean absolute) {
    }

    /** Digits only, no sign; -1 when the text is not such a number or does not fit in a long. */
    public static long parseWholeNumber(String s) {
        int n = s.length();
        if (n == 0 || n > 18) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /**
     * Digits only, no sign, as {@link #parseWholeNumber}, but a number too long for a long is
     * {@link Long#MAX_VALUE} (so that range checks say "at most ..." rather than "not a whole number"); -1 when the
     * text is not such a number.
     */
    public static long parseWholeNumberOrMax(String s) {
        long v = parseWholeNumber(s);
        return v < 0 && !s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9') ? Long.MAX_VALUE : v;
    }

    /** The upper limit of a range as the readers say it: {@code at most 2,147,483,647}. */
    public static String atMost(long max) {
        return String.format(java.util.Locale.ROOT, "at most %,d", max);
    }

    /** A plain decimal number (digits, sign, point, exponent); NaN when the text is anything else. */
    public static double parseNumber(String s) {
        boolean digit = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') {
                digit = true;
            } else if (c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E') {
                return Double.NaN;
            }
        }
        if (!digit) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** {@code true/yes/1} or {@code false/no/0} in any case; null for anything else. */
    static Boolean parseBoolean(String s) {
        if (s.equals("true")) {
            return Boolean.TRUE;
        }
        if (s.equals("false")) {
            return Boolean.FALSE;
        }
        switch (s.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1":
                return Boolean.TRUE;
            case "false", "no", "0":
                return Boolean.FALSE;
            default:
                return null;
        }
    }

    /** A priority; the lower-case labels skip {@link Priority#parse}'s case folding. Throws as that does. */
    static Priority parsePriority(String s) {
        return switch (s) {
            case "low" -> Priority.LOW;
            case "normal" -> Priority.NORMAL;
            case "high" -> Priority.HIGH;
            case "urgent" -> Priority.URGENT;
            default -> Priority.parse(s);
        };
    }

    /** A duration, or an {@link IllegalArgumentException} whose message says what was expected. */
    static Duration parseDuration(String s) {
        try {
            return Durations.parse(s);
        } catch (Durations.TooLargeException e) {
            throw new IllegalArgumentException("expected " + Durations.AT_MOST + ", got '" + s + "'", e);
        } catch (Durations.RepeatedUnitException e) {
            throw new IllegalArgumentException("expected " + Durations.RepeatedUnitException.EXPECTED + ", got '" + s
                    + "': " + e.twice(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected " + DURATION_EXPECTED + ", got '" + s + "'");
        }
    }

    /** Seconds, a compact duration, or an ISO-8601 instant (recognised by a {@code yyyy-} prefix). */
    static Time parseTime(String s) {
        if (looksLikeInstant(s)) {
            try {
                return new Time(Instant.parse(s).getEpochSecond(), true);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "expected an ISO-8601 instant such as 2026-01-05T00:00:00Z, got '" + s + "'" + zoneHint(s));
            }
        }
        long plain = parseWholeNumber(s);
        if (plain >= 0) {
            return new Time(plain, false);
        }
        try {
            return new Time(Durations.parse(s).getSeconds(), false);
        } catch (Durations.TooLargeException e) {
            // a time is a scenario's time: said by its reach, not by what a duration can hold
            throw new IllegalArgumentException("expected " + dev.allot.sim.ScenarioTime.timeExpected() + ", got '" + s
                    + "'", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected " + TIME_EXPECTED + ", got '" + s + "'");
        }
    }

    /**
     * A hint for a date and time without a zone ('2026-01-05T00:00:00', '2026-01-05 00:00:00', '2026-01-05'), which
     * read only as not an instant; empty otherwise.
     */
    private static String zoneHint(String s) {
        String t = s.length() > 10 && s.charAt(10) == ' ' ? s.substring(0, 10) + 'T' + s.substring(11) : s;
        try {
            java.time.LocalDateTime local = t.length() == 10 ? java.time.LocalDate.parse(t).atStartOfDay()
                    : java.time.LocalDateTime.parse(t);
            return "; an instant needs its time and zone: " + local.toInstant(java.time.ZoneOffset.UTC)
                    + " for UTC";
        } catch (DateTimeParseException e) {
            return "";
        }
    }

    private static boolean looksLikeInstant(String s) {
        if (s.length() < 5 || s.charAt(4) != '-') {
            return false;
        }
        for (int i = 0; i < 4; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * The same error with control characters in its field and problem escaped ({@code \n} and so on), so that
     * every message stays on one line even when it quotes a value that spans lines.
     */
    public static InputException oneLine(InputException e) {
        if (PrintableText.valid(e.getMessage())) {
            return e;
        }
        InputException clean = new InputException(e.file(), e.line(), e.column(),
                e.field() == null ? null : Violation.escaped(e.field()), Violation.escaped(e.problem()));
        clean.setStackTrace(e.getStackTrace());
        return clean;
    }

    /** Names joined with commas, at most {@code max} of them, then how many more there are. */
    public static String list(List<String> names, int max) {
        if (names.isEmpty()) {
            return "(none)";
        }
        if (names.size() <= max) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, max)) + ", ... (" + (names.size() - max) + " more)";
    }

    /** Why {@code name} is not a leaf of {@code tree}: an inner node (listing its leaves) or unknown (listing all). */
    public static String allocationProblem(AllocationTree tree, String name) {
        Optional<Integer> node = tree.node(name);
        if (node.isPresent()) {
            List<String> below = new ArrayList<>();
            for (int leaf = 0; leaf < tree.leafCount(); leaf++) {
                if (tree.isWithin(tree.leafNode(leaf), node.get())) {
                    below.add(tree.leafName(leaf));
                }
            }
            return "expected a leaf allocation, got '" + name + "', an inner node of the allocation tree; its leaves: "
                    + list(below, 20);
        }
        return "expected one of the leaf allocations (" + list(tree.leafNames(), 30) + "), got '" + name + "'";
    }

}
