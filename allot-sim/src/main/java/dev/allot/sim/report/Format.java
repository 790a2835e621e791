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
