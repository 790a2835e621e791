package dev.allot.core.rules;

import java.util.Optional;

/**
 * The one rule for an allocation's share, wherever it is set (the API's {@code PUT /v1/allocations/...}, the CLI's
 * {@code budget set --share}, the simulator's {@code allocations.yaml}, the core's tree): a finite number >= 0, the
 * node's weight among its siblings. Zero is allowed (an allocation entitled to nothing, whose work runs on what
 * others leave idle), but the shares of siblings must not all be zero, or none of them would be entitled to anything
 * and their parent's entitlement would be divided by zero; nor may their sum overflow to infinity.
 */
public final class Shares {
    public static final String FIELD = "share";
    public static final String EXPECTED = "a finite number >= 0, the weight among its siblings (e.g. 1 or 2.5)";

    private Shares() {
    }

    /** Whether one share is valid on its own. */
    public static boolean valid(double share) {
        return share >= 0 && Double.isFinite(share);
    }

    /** Why {@code share} is not a valid share, or empty when it is. */
    public static Optional<Violation> check(double share) {
        if (valid(share)) {
            return Optional.empty();
        }
        return Optional.of(new Violation(FIELD, EXPECTED, shown(share)));
    }

    /**
     * Why the share typed as {@code text} (a command line's {@code --share 2.5}) is not a valid share, or empty when
     * it is: the value named as it was typed, and why when the number it parses to would hide it ({@code 1e400} is
     * too large for a double and parses to Infinity, which the message said, or sent as JSON became the string
     * "Infinity"), by the rule every number typed in follows ({@link TypedNumbers}).
     */
    public static Optional<Violation> check(String text) {
        java.util.OptionalDouble share = TypedNumbers.finite(text);
        if (share.isPresent() && valid(share.getAsDouble())) {
            return Optional.empty();
        }
        return Optional.of(new Violation(FIELD, EXPECTED, TypedNumbers.shown(text)));
    }

    /**
     * Why siblings whose shares sum to {@code sum} cannot share their parent (named for the message; null for the
     * top level), or empty when they can: at least one of them must be positive.
     */
    public static Optional<Violation> checkSiblings(String parent, double sum) {
        if (sum > 0 && Double.isFinite(sum)) {
            return Optional.empty();
        }
        String siblings = parent == null ? "allocations at the top of the tree" : "children of '" + parent + "'";
        if (sum > 0) { // each share finite, their sum not: too large to divide by, not too small
            return Optional.of(new Violation(FIELD, "shares among the " + siblings + " that sum to a finite number"
                    + " (at most about 1.8e308)", "shares summing to " + shown(sum)));
        }
        return Optional.of(new Violation(FIELD, "at least one positive share among the " + siblings,
                "shares summing to " + shown(sum)));
    }

    /** A share as messages show it: 2 rather than 2.0. */
    public static String shown(double share) {
        return share == Math.rint(share) && Math.abs(share) < 1e15 ? Long.toString((long) share) : Double.toString(share);
    }
}
