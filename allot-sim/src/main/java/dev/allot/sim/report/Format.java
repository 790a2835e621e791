package dev.allot.sim.report;

import dev.allot.core.model.Durations;
import java.util.Locale;

/** Number and duration formatting shared by the terminal reports. */
final class Format {
    private Format() {
    }

    static String percent(Double fraction) {
        return fraction == null ? "-" : String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }

    static String number(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String integer(long v) {
        return String.format(Locale.ROOT, "%,d", v);
    }

    /** A wait in compact form, rounded to what a reader cares about (seconds under 10 minutes, then minutes). */
    static String duration(Long seconds) {
        if (seconds == null) {
            return "-";
        }
        long s = seconds;
        if (s >= 600) {
            s = Math.round(s / 60.0) * 60;
        }
        if (s >= 86400 * 2) {
            s = Math.round(s / 3600.0) * 3600;
        }
        return Durations.formatSeconds(s);
    }

    /**
     * Seconds measured to a fraction (a start time's error, a wait in a comparison of runs): under a minute with
     * {@code decimals} ({@code 0.25 s}), where a live service and the simulator differ; from a minute on in the
     * compact form of every other duration printed, to the second ({@code 9h22m4s}; it said {@code 33724.00 s}).
     */
    static String seconds(double s, int decimals) {
        String fraction = String.format(Locale.ROOT, "%." + decimals + "f", s);
        if (Math.abs(Double.parseDouble(fraction)) < 60) {
            return fraction + " s";
        }
        return Durations.formatSeconds(Math.round(s));
    }

    static String pad(String s, int width) {
        if (s.length() >= width) {
            return s;
        }
        return s + " ".repeat(width - s.length());
    }

    static String padLeft(String s, int width) {
        if (s.length() >= width) {
            return s;
        }
        return " ".repeat(width - s.length()) + s;
    }
}
