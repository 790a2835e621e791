package dev.allot.core.model;

/**
 * Counts in words for messages and explanations: "1 node", "2 nodes", "1 GPU", "0 GPUs", and places: "1st", "2nd".
 * One rule, so no message says "1 nodes", hedges with "node(s)" or forecasts at "every 2th workload".
 */
public final class Words {
    private Words() {
    }

    /** {@code n} and the noun, plural made by adding "s" unless {@code n} is 1: {@code count(1, "node")} is "1 node". */
    public static String count(long n, String singular) {
        return count(n, singular, singular + "s");
    }

    /** {@code n} and the noun, {@code singular} when {@code n} is 1, else {@code plural}. */
    public static String count(long n, String singular, String plural) {
        return n + " " + (n == 1 ? singular : plural);
    }

    /** The verb for a count: {@code singular} ("is", "waits") when {@code n} is 1, else {@code plural} ("are", "wait"). */
    public static String verb(long n, String singular, String plural) {
        return n == 1 ? singular : plural;
    }

    /** The place in words: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st, 111th... */
    public static String ordinal(long n) {
        long h = Math.abs(n) % 100;
        String suffix = h >= 11 && h <= 13 ? "th" : switch ((int) (Math.abs(n) % 10)) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
        return n + suffix;
    }
}
