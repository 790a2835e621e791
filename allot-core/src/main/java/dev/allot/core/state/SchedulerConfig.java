package dev.allot.core.state;

import dev.allot.core.model.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings every policy shares because they shape the state itself: the fair-share lookback window, the cap on
 * declared minimum runtimes, and the resolution of the usage window.
 */
public record SchedulerConfig(Duration lookback, Duration maxMinRuntime, Duration usageBucket) {
    public static final Duration DEFAULT_LOOKBACK = Duration.ofDays(7);
    public static final Duration DEFAULT_MAX_MIN_RUNTIME = Duration.ofHours(8);
    public static final Duration DEFAULT_USAGE_BUCKET = Duration.ofHours(1);

    /**
     * The most buckets the usage window may hold (lookback / usage-bucket): the window keeps a ring of them per
     * allocation, so 100,000 buckets cost 800 KB per allocation (7 days in 10-second buckets fit; 100,000,000 days
     * in hours would need 19 GB each and could not be allocated).
     */
    public static final long MAX_WINDOW_BUCKETS = 100_000;

    public SchedulerConfig {
        Objects.requireNonNull(lookback, "lookback");
        Objects.requireNonNull(maxMinRuntime, "maxMinRuntime");
        Objects.requireNonNull(usageBucket, "usageBucket");
        if (lookback.isNegative() || lookback.isZero()) {
            throw new IllegalArgumentException("lookback must be positive, got " + Durations.format(lookback));
        }
        if (maxMinRuntime.isNegative() || maxMinRuntime.isZero()) {
            throw new IllegalArgumentException("max-min-runtime must be positive, got " + Durations.format(maxMinRuntime));
        }
        if (lookback.getSeconds() > Durations.MAX_SECONDS) {
            throw new IllegalArgumentException("lookback must be " + Durations.AT_MOST + ", got "
                    + Durations.format(lookback));
        }
        if (maxMinRuntime.getSeconds() > Durations.MAX_SECONDS) { // --set max-min-runtime=100000d was taken
            throw new IllegalArgumentException("max-min-runtime must be " + Durations.AT_MOST + ", got "
                    + Durations.format(maxMinRuntime));
        }
        if (usageBucket.isNegative() || usageBucket.isZero() || usageBucket.compareTo(lookback) > 0) {
            throw new IllegalArgumentException("usage-bucket must be positive and at most the lookback ("
                    + Durations.format(lookback) + "), got " + Durations.format(usageBucket));
        }
        long buckets = -Math.floorDiv(-lookback.getSeconds(), Math.max(1, usageBucket.getSeconds()));
        if (buckets > MAX_WINDOW_BUCKETS) {
            throw new IllegalArgumentException("lookback " + Durations.format(lookback) + " in usage-bucket "
                    + Durations.format(usageBucket) + " steps is " + String.format(java.util.Locale.ROOT, "%,d", buckets)
                    + " buckets; at most " + String.format(java.util.Locale.ROOT, "%,d", MAX_WINDOW_BUCKETS)
                    + " (shorten the lookback or widen usage-bucket)");
        }
    }

    /** The minimum runtime a workload gets: what it declared, capped at {@link #maxMinRuntime}. */
    public long minRuntimeSecondsOf(dev.allot.core.model.WorkloadSpec spec) {
        return minRuntimeSecondsOf(spec.minRuntime().getSeconds());
    }

    /** The minimum runtime applied to one declared as {@code declaredSeconds}: capped at {@link #maxMinRuntime}. */
    public long minRuntimeSecondsOf(long declaredSeconds) {
        return Math.min(declaredSeconds, maxMinRuntime.getSeconds());
    }

    /**
     * What to tell the user whose declared minimum runtime the cap cuts, e.g. "the minimum runtime is capped at 8h
     * (the scheduler's maximum); 9h was asked"; null when the cap does not apply. The one wording, for the API's
     * answer, the CLI and explanations.
     */
    public String minRuntimeCapNote(long declaredSeconds) {
        if (declaredSeconds <= maxMinRuntime.getSeconds()) {
            return null;
        }
        return "the minimum runtime is capped at " + Durations.format(maxMinRuntime) + " (the scheduler's maximum); "
                + Durations.formatSeconds(declaredSeconds) + " was asked";
    }

    public static SchedulerConfig defaults() {
        return new SchedulerConfig(DEFAULT_LOOKBACK, DEFAULT_MAX_MIN_RUNTIME, DEFAULT_USAGE_BUCKET);
    }

    public SchedulerConfig withLookback(Duration d) {
        return new SchedulerConfig(d, maxMinRuntime, usageBucket.compareTo(d) > 0 ? d : usageBucket);
    }

    public SchedulerConfig withMaxMinRuntime(Duration d) {
        return new SchedulerConfig(lookback, d, usageBucket);
    }
}
