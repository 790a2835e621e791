package dev.allot.core.backend;

import java.util.Objects;

/**
 * What a backend knows of one attempt.
 *
 * @param phase    where it is
 * @param exitCode the exit code once {@link Phase#EXITED}; null otherwise or when the backend cannot know it
 * @param detail   words for people: why it failed to start, what the probe said, which signal ended it
 * @param endedAtMillis when the attempt ended, as the backend recorded it (epoch milliseconds), for an attempt that
 *                 has {@link #ended()}; null when the backend does not say, and then the end is when it was observed.
 *                 A backend that learns of ends only by asking (Slurm's {@code EndTime}) says it, so that an end
 *                 observed late (after a restart, or while the backend could not be asked) is charged up to when it
 *                 happened, not up to when it was seen. Backends that do not know it use the four-argument
 *                 constructor.
 */
public record AttemptStatus(AttemptKey attempt, Phase phase, Integer exitCode, String detail, Long endedAtMillis) {
    /** The life of an attempt as a backend sees it. */
    public enum Phase {
        /** Accepted, not yet running (queued in the backend, process starting). */
        STARTING,
        /** Running. */
        RUNNING,
        /** Asked to stop, not ended yet. */
        STOPPING,
        /** Ended on its own: completed if the exit code is 0, failed otherwise. */
        EXITED,
        /** Ended because it was stopped (by {@link Backend#stop}). */
        STOPPED,
        /** Could not be started (bad command, no such GPU); {@code detail} says why. */
        FAILED_TO_START,
        /**
         * Ended before it began: asked to stop while its start was not confirmed, and the backend found that it never
         * started (nothing ran, so it held no GPU and did no work). Distinct from {@link #STOPPED}, which a backend
         * also reports for work it cancelled before it ran (a queued Slurm job): here there is no such work at all.
         */
        NEVER_STARTED,
        /** The backend cannot tell right now (a probe failed): neither running nor ended as far as anyone knows. */
        UNKNOWN
    }

    public AttemptStatus {
        Objects.requireNonNull(attempt, "attempt");
        Objects.requireNonNull(phase, "phase");
    }

    /** A status that does not say when the attempt ended (it has not, or the backend does not know). */
    public AttemptStatus(AttemptKey attempt, Phase phase, Integer exitCode, String detail) {
        this(attempt, phase, exitCode, detail, null);
    }

    /** This status, saying the attempt ended at {@code endedAtMillis} (null: not known). */
    public AttemptStatus endedAt(Long endedAtMillis) {
        return new AttemptStatus(attempt, phase, exitCode, detail, endedAtMillis);
    }

    /** Whether the attempt has ended for good. */
    public boolean ended() {
        return phase == Phase.EXITED || phase == Phase.STOPPED || phase == Phase.FAILED_TO_START
                || phase == Phase.NEVER_STARTED;
    }
}
