package dev.allot.core.model;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A workload's declared priority. Under the {@code allocation} policy it only orders work inside the
 * workload's own allocation; under {@code legacy} it orders the whole queue.
 */
public enum Priority {
    LOW, NORMAL, HIGH, URGENT;

    /** {@link #label} computed once (the service's store reads one per workload row). */
    private final String label = name().toLowerCase(Locale.ROOT);

    /** Parses {@code low|normal|high|urgent} (any case); the error lists the valid values. */
    public static Priority parse(String text) {
        for (Priority p : values()) {
            if (p.label.equals(text)) { // the usual case (the store keeps labels), without a copy
                return p;
            }
        }
        String t = text.trim().toUpperCase(Locale.ROOT);
        for (Priority p : values()) {
            if (p.name().equals(t)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown priority '" + text + "'; expected one of " + validNames());
    }

    public static String validNames() {
        return Arrays.stream(values()).map(Priority::label).collect(Collectors.joining(", "));
    }

    public String label() {
        return label;
    }
}
