package dev.allot.core.campaign;

/** Where a shard stands. */
public enum ShardPhase {
    /** No workload in the queue for it: not submitted yet, or released from a brake. */
    UNQUEUED,
    WAITING,
    RUNNING,
    /** Every unit reported done. */
    DONE,
    /** Held by a brake until its cap is raised above what it spent ({@link ShardBrakes}). */
    BRAKED;

    /** Whether the shard still has work that may be scheduled. */
    public boolean live() {
        return this == UNQUEUED || this == WAITING || this == RUNNING;
    }

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
