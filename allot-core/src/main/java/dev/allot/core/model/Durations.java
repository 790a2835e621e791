package dev.allot.core.model;

import java.time.Duration;

/**
 * Parses and prints the compact durations used in scenarios and settings: {@code 90s}, {@code 15m},
 * {@code 8h}, {@code 2d}, combinations such as {@code 1h30m} (each unit at most once), or plain seconds
 * ({@code 3600}), in ASCII digits; {@link #MAX_SECONDS} is the longest there is. The one parser of durations: the API, the
 * simulator's readers, the settings and the CLI all read them here, so that they take the same texts.
 *
 * <p>A unit given twice ({@code 1h1h}) was read as a sum (2h), which no one writes on purpose; digits of other
 * scripts ({@code ١٠m}) were read as 10m; and a duration of up to 292 billion years was taken, while what runs it
 * (a forecast, the simulator's clock) reaches 68 years.
 */
public final class Durations {
    /**
     * The longest duration there is, in seconds (about 68 years): the simulator's scenarios reach no further, and a
     * forecast or what-if playing a longer duration forward overflowed its clock.
     */
    public static final long MAX_SECONDS = Integer.MAX_VALUE;
    /** What a duration too large was expected to be, for readers that say "expected ...". */
    public static final String AT_MOST = "a duration of at most " + formatSeconds(MAX_SECONDS)
            + String.format(java.util.Locale.ROOT, " (%,d seconds, about 68 years)", MAX_SECONDS);

    private Durations() {
    }

    /** A well-formed duration too large (to count in seconds, or beyond {@link #MAX_SECONDS}): not of the wrong form. */
    public static final class TooLargeException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        TooLargeException(String text) {
            super("duration '" + text + "' is too large: expected " + AT_MOST);
        }
    }

    /**
     * A duration that gives a unit twice ({@code 5m5m}): said as such by every reader (a generic "expected a duration
     * such as ..." left the writer looking for what was wrong with {@code 5m5m}).
     */
    public static final class RepeatedUnitException extends IllegalArgumentException {
        /** What a duration's units were expected to be, as words to follow "expected ". */
        public static final String EXPECTED = "each of d, h, m and s at most once, e.g. 1h30m";
        private static final long serialVersionUID = 1L;
        private final char unit;

        RepeatedUnitException(String text, char unit) {
            super("malformed duration '" + text + "': the unit '" + unit + "' is given twice; expected " + EXPECTED);
            this.unit = unit;
        }

        /** What is wrong, as words: "the unit 'm' is given twice". */
        public String twice() {
            return "the unit '" + unit + "' is given twice";
        }
    }

    /** Parses a duration; the message of the exception says what was expected. */
    public static Duration parse(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty duration; expected e.g. 90s, 15m, 8h, 2d or plain seconds");
        }
        if (isDigits(t)) {
            return Duration.ofSeconds(parseLong(t, text));
        }
        long total = 0;
        int i = 0;
        String seen = "";
        while (i < t.length()) {
            int start = i;
            while (i < t.length() && isDigit(t.charAt(i))) {
                i++;
            }
            if (start == i || i == t.length()) {
                throw bad(text);
            }
            long n = parseLong(t.substring(start, i), text);
            char unit = t.charAt(i++);
            long scale = switch (unit) {
                case 's' -> 1;
                case 'm' -> 60;
                case 'h' -> 3600;
                case 'd' -> 86400;
                default -> throw bad(text);
            };
            if (seen.indexOf(unit) >= 0) {
                throw new RepeatedUnitException(text, unit);
            }
            seen += unit;
            try {
                total = Math.addExact(total, Math.multiplyExact(n, scale));
            } catch (ArithmeticException e) {
                throw new TooLargeException(text);
            }
        }
        return Duration.ofSeconds(total);
    }

    /**
     * {@link #parse}, refusing a duration beyond {@link #MAX_SECONDS} as too large (settings such as
     * {@code max-min-runtime}, which nothing else bounds: {@code 100000d} was taken). Readers whose values have a
     * rule of their own parse and then apply it, naming the value as they do.
     */
    public static Duration parseAtMostMax(String text) {
        Duration d = parse(text);
        if (d.getSeconds() > MAX_SECONDS) {
            throw new TooLargeException(text);
        }
        return d;
    }

    /** Prints a duration compactly: {@code 0s}, {@code 45s}, {@code 15m}, {@code 1h30m}, {@code 2d}. */
    public static String format(Duration d) {
        return formatSeconds(d.getSeconds());
    }

    public static String formatSeconds(long seconds) {
        if (seconds == 0) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        if (seconds < 0) {
            sb.append('-');
            seconds = -seconds;
        }
        long d = seconds / 86400;
        long h = seconds % 86400 / 3600;
        long m = seconds % 3600 / 60;
        long s = seconds % 60;
        if (d > 0) {
            sb.append(d).append('d');
        }
        if (h > 0) {
            sb.append(h).append('h');
        }
        if (m > 0) {
            sb.append(m).append('m');
        }
        if (s > 0) {
            sb.append(s).append('s');
        }
        return sb.toString();
    }

    private static boolean isDigits(String t) {
        for (int i = 0; i < t.length(); i++) {
            if (!isDigit(t.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** ASCII digits only: {@link Character#isDigit} also takes those of other scripts ('١٠m' was read as 10m). */
    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static long parseLong(String digits, String text) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new TooLargeException(text);
        }
    }

    private static IllegalArgumentException bad(String text) {
        return new IllegalArgumentException(
                "malformed duration '" + text + "'; expected e.g. 90s, 15m, 8h, 2d, 1h30m or plain seconds");
    }
}
