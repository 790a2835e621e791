package dev.allot.core.state;

/** Where a workload is in its life. A requeued workload is {@link #PENDING} again with a preemption count above zero. */
public enum JobState {
    /** Known to the scheduler but not yet submitted (the simulator registers every workload up front). */
    NEW,
    PENDING,
    RUNNING,
    COMPLETED,
    /** Ended by a preemption it could not survive (not resumable). */
    PREEMPTED,
    CANCELLED;

    public boolean isFinal() {
        return this == COMPLETED || this == PREEMPTED || this == CANCELLED;
    }
}
