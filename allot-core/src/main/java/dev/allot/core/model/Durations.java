package dev.allot.core.model;

import java.time.Duration;

/**
 * Parses and prints the compact durations used in scenarios and settings: {@code 90s}, {@code 15m},
 * {@code 8h}, {@code 2d}, combinations such as {@code 1h30m}, or plain seconds ({@code 3600}).
 */
public final class Durations {
    /** What a duration too large to count in seconds was expected to be, for readers that say "expected ...". */
    public static final String AT_MOST = "a duration of at most " + Long.MAX_VALUE + " seconds (about 292 billion years)";

    private Durations() {
    }

    /** A well-formed duration too large to count in seconds: not one of the wrong form. */
    public static final class TooLargeException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        TooLargeException(String text) {
            super("duration '" + text + "' is too large");
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
        boolean any = false;
        while (i < t.length()) {
            int start = i;
            while (i < t.length() && Character.isDigit(t.charAt(i))) {
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
            try {
                total = Math.addExact(total, Math.multiplyExact(n, scale));
            } catch (ArithmeticException e) {
                throw new TooLargeException(text);
            }
            any = true;
        }
        if (!any) {
            throw bad(text);
        }
        return Duration.ofSeconds(total);
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
            if (!Character.isDigit(t.charAt(i))) {
                return false;
            }
        }
        return true;
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
