package dev.allot.core.policy.allocation.preemption;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the allocation policy ranks allocations against each other: the {@code ranking} setting.
 *
 * <ul>
 *   <li>{@link #ENTITLEMENT} (the default): allocations holding less than their quota (entitlement x healthy GPUs)
 *   go first, most under-paid first, and may reclaim from allocations standing well above them; the lookback window
 *   orders the rest (bursting). See {@link PreemptionRules}.</li>
 *   <li>{@link #LOOKBACK}: the seed's pure lookback ranking: one order by usage over the lookback window, level by
 *   level, and an allocation that ranks above another may preempt its unprotected work.</li>
 * </ul>
 */
public enum Ranking {
    ENTITLEMENT("entitlement"),
    LOOKBACK("lookback");

    private final String label;

    Ranking(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static java.util.List<String> labels() {
        return Arrays.stream(values()).map(Ranking::label).toList();
    }

    /** Parses a setting value; the error names the value and the valid ones. */
    public static Ranking parse(String text) {
        for (Ranking r : values()) {
            if (r.label.equals(text.trim().toLowerCase(Locale.ROOT))) {
                return r;
            }
        }
        throw new IllegalArgumentException("ranking: expected one of "
                + Arrays.stream(values()).map(Ranking::label).collect(Collectors.joining(", ")) + ", got '" + text + "'");
    }
}
