package dev.allot.cli;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The seeds a command repeats a generated scenario over ({@code --seeds}), read the same way by {@code sweep} and
 * {@code campaign simulate}: {@code N} is seeds 1 to N (how {@code sweep --seeds 5} has always read), {@code A-B}
 * the seeds A to B, and a comma-separated list the seeds and ranges it names ({@code 3,7,10-12}); one particular
 * seed is {@code 7-7}. Until 2026-12-05 {@code campaign simulate --seeds 5} ran seed 5 alone where {@code sweep
 * --seeds 5} ran five seeds, so the same words compared different labs.
 */
final class Seeds {
    /**
     * The most seeds a command runs: {@code --seeds 99999999} spent a minute filling the heap with the list of runs
     * and then failed 'out of memory'.
     */
    static final int MAX = 10_000;

    private Seeds() {
    }

    /**
     * The seeds {@code text} names, in the order given.
     *
     * @throws IllegalArgumentException naming the text and the grammar when it is not one, a seed named twice, or
     *                                  more than {@link #MAX} seeds
     */
    static List<Long> parse(String text) {
        String expected = "--seeds: expected N (seeds 1 to N), A-B (A <= B) or a comma-separated list of seeds and"
                + " ranges (one seed K: K-K), whole numbers >= 0, got '" + text + "'";
        String t = text.trim();
        try {
            if (t.matches("\\d+")) {
                long n = Long.parseLong(t);
                if (n < 1) {
                    throw new IllegalArgumentException("--seeds N runs seeds 1 to N and expects N >= 1, got " + t
                            + " (one particular seed K: --seeds K-K)");
                }
                checkCount(BigInteger.valueOf(n));
                List<Long> out = new ArrayList<>();
                for (long s = 1; s <= n; s++) {
                    out.add(s);
                }
                return out;
            }
            Set<Long> out = new LinkedHashSet<>();
            for (String part : t.split(",", -1)) {
                String p = part.trim();
                int dash = p.indexOf('-', 1);
                long a = Long.parseLong(dash > 0 ? p.substring(0, dash).trim() : p);
                long b = dash > 0 ? Long.parseLong(p.substring(dash + 1).trim()) : a;
                if (a < 0 || b < a) {
                    throw new IllegalArgumentException(expected);
                }
                // counted exactly: b - a + 1 overflows for 0-9223372036854775807, which then passed the check and
                // filled the heap; counting b - a instead let 1-10001 (10,001 seeds) through and said 'got 19,999'
                // of 1-20000
                checkCount(BigInteger.valueOf(b).subtract(BigInteger.valueOf(a))
                        .add(BigInteger.valueOf(out.size() + 1L)));
                for (long s = a; s <= b; s++) {
                    if (!out.add(s)) {
                        throw new IllegalArgumentException("--seeds names seed " + s + " twice: '" + text + "'");
                    }
                }
            }
            return List.copyOf(out);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(expected);
        }
    }

    private static void checkCount(BigInteger n) {
        if (n.compareTo(BigInteger.valueOf(MAX)) > 0) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--seeds expects at most %,d (each"
                    + " seed is a generated scenario simulated once per setting and policy), got %,d", MAX, n));
        }
    }
}
