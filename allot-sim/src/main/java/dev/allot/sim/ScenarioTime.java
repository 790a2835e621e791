package dev.allot.sim;

import dev.allot.core.model.Durations;
import java.util.Locale;

/**
 * The one rule for how far a scenario's times reach: a submission or health event at most {@link #MAX_SECONDS}
 * after time 0, and a duration, minimum runtime or checkpoint interval of at most as much. About 68 years, the
 * most the trace table's int columns hold. Beyond it the simulator's clock overflowed ('time went back from 7300
 * to -9223372036854772916' for a duration of 9223372036854775000s) and its hourly series could not be made (a
 * submission 292 billion years after time 0 ended in a NegativeArraySizeException).
 */
public final class ScenarioTime {
    /** The most seconds after time 0, and the longest duration, in seconds. */
    public static final long MAX_SECONDS = dev.allot.core.rules.WorkloadRules.MAX_DURATION_SECONDS;
    /** {@link #MAX_SECONDS} as a reader says it. */
    public static final String MAX_TEXT = Durations.formatSeconds(MAX_SECONDS)
            + String.format(Locale.ROOT, " (%,d seconds, about 68 years)", MAX_SECONDS);

    private ScenarioTime() {
    }

    /** What a duration was expected to be when it is too long. */
    public static String durationExpected() {
        return "a duration of at most " + MAX_TEXT;
    }

    /** Why a workload submitted at {@code submitSeconds} is too late, or null when it is not. */
    public static String lateProblem(String id, long submitSeconds) {
        if (submitSeconds <= MAX_SECONDS) {
            return null;
        }
        return "workload '" + id + "': expected " + timeExpected() + ", got " + Durations.formatSeconds(submitSeconds);
    }

    /** What a time was expected to be when it is too late. */
    public static String timeExpected() {
        return "a time at most " + MAX_TEXT + " after time 0";
    }
}
