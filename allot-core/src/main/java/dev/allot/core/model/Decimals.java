package dev.allot.core.model;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * Fixed-point text of a double, the same text as {@code String.format(Locale.ROOT, "%.Nf", x)} but without a
 * Formatter: reasons are written for every decision, and formatting was a quarter of a trace replay's time.
 * Like Java's Formatter, it rounds half up the shortest decimal that identifies the double.
 */
public final class Decimals {
    private Decimals() {
    }

    /** {@code x} with {@code places} decimals, e.g. {@code fixed(0.6666, 2)} is {@code "0.67"}. */
    public static String fixed(double x, int places) {
        if (Double.isNaN(x) || Double.isInfinite(x) || Math.copySign(1.0, x) < 0) {
            // negative zero, negatives, NaN and infinities are rare here: keep Formatter's exact spelling
            return String.format(Locale.ROOT, "%." + places + "f", x);
        }
        if (x < FAST_LIMIT && places < POWERS.length) {
            // x is within one ulp (< 1.2e-10 here) of its shortest decimal, so unless x * 10^places sits within 1e-6 of
            // a tie, rounding x itself rounds that decimal the same way
            double scaled = x * POWERS[places];
            double fraction = scaled - Math.floor(scaled);
            if (Math.abs(fraction - 0.5) > 1e-6) {
                return spell(Math.round(scaled), places);
            }
        }
        return new BigDecimal(Double.toString(x)).setScale(places, RoundingMode.HALF_UP).toPlainString();
    }

    /**
     * The shortest decimal that identifies {@code x}, without a trailing {@code .0} and (within 10^-15 to 10^15)
     * without an exponent: -1.0 is {@code "-1"}, 0.1 {@code "0.1"}, 1e308 {@code "1E+308"}. For a number said back to
     * whoever typed it ("got -1", not Java's "got -1.0").
     */
    public static String plain(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return Double.toString(x);
        }
        if (x == 0) {
            return "0";
        }
        BigDecimal d = new BigDecimal(Double.toString(x)).stripTrailingZeros();
        int magnitude = d.precision() - d.scale() - 1;
        return Math.abs(magnitude) > MAX_PLAIN_MAGNITUDE ? d.toString() : d.toPlainString();
    }

    /**
     * {@code x} with {@code digits} significant digits and (within 10^-15 to 10^15) no exponent, e.g. {@code significant(0.0014881, 3)} is
     * {@code "0.00149"} and {@code significant(12.345, 3)} is {@code "12.3"}; zero is {@code "0"}. For small numbers
     * that decide something (a fair-share ratio over a long window), where fixed decimals would print 0.00 for all.
     * Beyond 10^15 or below 10^-15 it has an exponent ({@code 6.21E+308}), as no lab's numbers get there.
     */
    public static String significant(double x, int digits) {
        if (digits < 1) {
            throw new IllegalArgumentException("digits must be at least 1, got " + digits);
        }
        if (x == 0) {
            return "0";
        }
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return Double.toString(x);
        }
        int magnitude = (int) Math.floor(Math.log10(Math.abs(x)));
        if (Math.abs(magnitude) > MAX_PLAIN_MAGNITUDE) {
            // beyond what a lab's numbers reach (a share of 1e308 beside one of 60): 6.21E+308, not 309 digits
            return rounded(x, digits).toString();
        }
        if (x > 0) {
            int places = Math.max(0, digits - 1 - magnitude);
            if (places < POWERS.length) {
                return fixed(x, places);
            }
        }
        return rounded(x, digits).toPlainString();
    }

    private static BigDecimal rounded(double x, int digits) {
        return new BigDecimal(Double.toString(x)).round(new MathContext(digits, RoundingMode.HALF_UP));
    }

    /** Numbers of up to this many digits before or zeros after the point are spelled out; larger, with an exponent. */
    private static final int MAX_PLAIN_MAGNITUDE = 15;

    private static final double FAST_LIMIT = 1e6;
    private static final long[] POWERS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000};

    private static String spell(long scaled, int places) {
        if (places == 0) {
            return Long.toString(scaled);
        }
        long power = POWERS[places];
        String fraction = Long.toString(scaled % power);
        StringBuilder b = new StringBuilder(24).append(scaled / power).append('.');
        for (int i = fraction.length(); i < places; i++) {
            b.append('0');
        }
        return b.append(fraction).toString();
    }
}
