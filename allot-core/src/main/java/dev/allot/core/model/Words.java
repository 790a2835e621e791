package dev.allot.core.model;

/**
 * Counts in words for messages and explanations: "1 node", "2 nodes", "1 GPU", "0 GPUs". One rule, so no message
 * says "1 nodes" or hedges with "node(s)".
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
}
