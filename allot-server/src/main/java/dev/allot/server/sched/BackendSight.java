package dev.allot.server.sched;

import java.time.Duration;
import java.util.Optional;

/**
 * Whether the scheduling loop has seen its backend lately: each cycle observes it (Slurm's jobs, the local
 * processes), and an observation that fails (slurmctld down or frozen, slurmrestd refusing) concludes nothing, so
 * what runs is then shown as last seen. That is right (a failed probe is unknown, never gone) but it was invisible:
 * {@code /v1/health} said ok and the queue showed the last states without a word. This says since when the backend
 * has not been seen, once that has lasted {@link #GRACE} (one failed probe among many is the normal noise of a busy
 * cluster, not news). Written by the loop inside its cycle, read by any thread without waiting for a cycle.
 */
public final class BackendSight {
    /** How long observations must have failed in a row before the backend counts as not seen. */
    public static final Duration GRACE = Duration.ofSeconds(30);

    /**
     * The backend not seen: the last failure's message, when it was last observed (epoch millis, -1 when never since
     * the loop started), when the first failure of this run happened, and how many observations failed in a row.
     */
    public record Unseen(String lastError, long lastObservedMillis, long sinceMillis, long failures) {
    }

    private volatile Unseen failing;
    private volatile long lastObservedMillis = -1;

    /** The run of failed observations when it has lasted {@link #GRACE} at {@code nowMillis}; else empty. */
    public Optional<Unseen> unseen(long nowMillis) {
        Unseen f = failing;
        return f != null && nowMillis - f.sinceMillis() >= GRACE.toMillis() ? Optional.of(f) : Optional.empty();
    }

    void observed(long nowMillis) {
        failing = null;
        lastObservedMillis = nowMillis;
    }

    void failed(String error, long nowMillis) {
        Unseen before = failing;
        failing = before == null ? new Unseen(error, lastObservedMillis, nowMillis, 1)
                : new Unseen(error, before.lastObservedMillis(), before.sinceMillis(), before.failures() + 1);
    }
}
