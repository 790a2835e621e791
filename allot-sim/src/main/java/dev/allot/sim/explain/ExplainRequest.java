package dev.allot.sim.explain;

import dev.allot.core.model.Durations;

/**
 * One question for a simulated run: why is workload {@code workloadId} where it is at {@code atSeconds} (since the
 * scenario's start)? Written {@code ID@TIME} on the command line, e.g. {@code w000037@3h30m}, TIME as the story
 * ({@code --events-out}) writes instants.
 */
public record ExplainRequest(String workloadId, long atSeconds) {
    public ExplainRequest {
        if (workloadId == null || workloadId.isBlank()) {
            throw new IllegalArgumentException("a workload id is required");
        }
        if (atSeconds < 0) {
            throw new IllegalArgumentException("the instant must not be before the scenario's start, got " + atSeconds);
        }
    }

    /**
     * Reads {@code ID@TIME}.
     *
     * @throws IllegalArgumentException naming what was given and what is expected
     */
    public static ExplainRequest parse(String text) {
        String t = text == null ? "" : text.trim();
        int at = t.lastIndexOf('@');
        if (at <= 0 || at == t.length() - 1) {
            throw new IllegalArgumentException("expected ID@TIME, a workload id and an instant since the scenario's"
                    + " start, e.g. w000037@3h30m; got '" + t + "'");
        }
        String time = t.substring(at + 1).trim();
        long seconds;
        try {
            seconds = Durations.parse(time).getSeconds();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + t + "': the instant '" + time + "' is not a duration since the"
                    + " scenario's start such as 90m, 3h30m or 2d4h (" + e.getMessage() + ")");
        }
        return new ExplainRequest(t.substring(0, at).trim(), seconds);
    }

    /** {@code ID@TIME} as {@link #parse} reads it. */
    @Override
    public String toString() {
        return workloadId + "@" + Durations.formatSeconds(atSeconds);
    }
}
