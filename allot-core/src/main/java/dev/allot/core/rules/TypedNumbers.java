package dev.allot.core.rules;

import java.util.OptionalDouble;

/**
 * The one rule for a number as someone wrote it (a command line's {@code --max-gpu-hours 1e400}, a JSON body's
 * {@code 1e400}): it must read as a finite number. {@code 1e400} is too large for a double and reads as Infinity,
 * which messages then said ("got Infinity", or, sent on as JSON, the string "Infinity"), and NaN reads as a number
 * that is none; a message names the value as it was written and says why.
 */
public final class TypedNumbers {
    /** What a finite number is, as words to follow "expected ". */
    public static final String FINITE = "a finite number";

    private TypedNumbers() {
    }

    /** The finite number {@code text} reads as, or empty when it reads as none: no number, NaN, beyond a double. */
    public static OptionalDouble finite(String text) {
        try {
            double d = Double.parseDouble(text.strip());
            return Double.isFinite(d) ? OptionalDouble.of(d) : OptionalDouble.empty();
        } catch (NumberFormatException e) {
            return OptionalDouble.empty();
        }
    }

    /**
     * {@code text} as a message's "got ..." shows it: as written (escaped, cut when long), with why when it reads as
     * a number that is not finite ({@code 1e400 (beyond the largest number, about 1.8e308)}); quoted when it is no
     * number at all.
     */
    public static String shown(String text) {
        String t = text.strip();
        double d;
        try {
            d = Double.parseDouble(t);
        } catch (NumberFormatException e) {
            return Violation.shown(text);
        }
        String written = t.length() > 40 ? t.substring(0, 40) + "... (" + t.length() + " characters)" : t;
        return Violation.escaped(written) + whyNotFinite(d);
    }

    /** Why a number read as {@code value} is not finite, as words to follow it, or "" when it is finite. */
    public static String whyNotFinite(double value) {
        return Double.isNaN(value) ? " (not a number)"
                : Double.isInfinite(value) ? " (beyond the largest number, about 1.8e308)" : "";
    }
}
