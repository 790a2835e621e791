package dev.allot.server.store;

import java.util.Locale;

/**
 * Where a workload is in its life. {@link #PENDING} and {@link #REQUEUED} are waiting to be started (again);
 * {@link #RUNNING} has exactly one attempt that has not ended; the other four are final. {@link #PREEMPTED} is final
 * as in the core ({@code JobState.PREEMPTED}): work that cannot resume, stopped under a policy that does not restart
 * it (Allot's contract: it declared it cannot be requeued). Preempted work that goes back to the queue (resumable, or
 * under a policy that restarts it) is {@link #REQUEUED}. So the scheduler's reads of what is not ended never carry
 * work that will not run again.
 */
public enum WorkloadState {
    PENDING, RUNNING, PREEMPTED, REQUEUED, COMPLETED, FAILED, CANCELLED;

    /** The name stored in the database and shown to people: lower case. */
    public String label() {
        return label;
    }

    /**
     * {@link #label} computed once: the store parses and writes labels for every row the scheduling loop reads or
     * ends (issue 21's intake: 10,000 rows read, a thousand attempts ended), and lower-casing each time was a copy per
     * value per row.
     */
    private final String label = name().toLowerCase(Locale.ROOT);

    /** Parses a stored label; the error lists the valid ones. */
    public static WorkloadState parse(String label) {
        for (WorkloadState s : values()) {
            if (s.label().equals(label)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown workload state '" + label + "'");
    }

    /** Waiting for an attempt: the states {@link Attempts#beginAttempt} starts from. */
    public boolean waiting() {
        return this == PENDING || this == REQUEUED;
    }

    /** Final: the workload will never run again. */
    public boolean ended() {
        return this == COMPLETED || this == FAILED || this == CANCELLED || this == PREEMPTED;
    }
}
