package dev.allot.core.state;

/**
 * An attempt that was asked to stop (preempted, cancelled, lost) and has not stopped yet: its process may hold its
 * GPUs through a grace period, so they are not idle until the driver says it has stopped
 * ({@link ClusterState#stopped}). The policy has already counted the GPUs as free (the job went back to the queue or
 * ended when the stop was asked); a start placed on them waits ({@link ClusterState#startWhenStopped}) and its
 * protection and charging begin only when it launches ({@link ClusterState#launch}).
 *
 * <p>Compared by identity: one object per stop, handed out by {@link ClusterState#holdUntilStopped}.
 */
public final class StoppingAttempt {
    private final Job job;
    private final Placement placement;
    private final long sinceSeconds;
    boolean released;

    StoppingAttempt(Job job, Placement placement, long sinceSeconds) {
        this.job = job;
        this.placement = placement;
        this.sinceSeconds = sinceSeconds;
    }

    /** The workload whose attempt is stopping, or null when the state does not know it (it will not run again). */
    public Job job() {
        return job;
    }

    /** The GPUs it still holds. */
    public Placement placement() {
        return placement;
    }

    /** When it was asked to stop. */
    public long sinceSeconds() {
        return sinceSeconds;
    }

    @Override
    public String toString() {
        return "stopping " + (job == null ? "attempt" : job.id()) + " on " + placement + " since " + sinceSeconds;
    }
}
