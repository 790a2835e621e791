package dev.allot.core.state;

/**
 * Work and usage from before a {@link ClusterState} existed: attempts still running that it adopts, how often its
 * jobs were preempted, and charges it seeds into its usage window. A service that restarts, or rebuilds its state
 * after an edit of the tree or the nodes, must neither forget who used what over the lookback window nor extend or
 * shorten a protection it promised.
 *
 * <p>Apart from the state because adoption is an idea of its own with its own rule (times count from when the work
 * really began, charges from when the state took it in); the state's {@code resume} and {@code seedUsage} call it.
 */
final class PriorWork {
    private PriorWork() {
    }

    static void resume(ClusterState s, Job job, Placement p, long startedAt, long time) {
        if (job.state != JobState.PENDING) {
            throw new IllegalStateException("cannot resume " + job.id() + ": it is " + job.state);
        }
        if (startedAt > time) {
            throw new IllegalArgumentException("cannot resume " + job.id() + " from " + startedAt + ", after now (" + time
                    + ")");
        }
        PlacementRule.check(job, p, false, s.nodes);
        AttemptBooks.enter(s, job, p, time, false);
        if (startedAt < time) {
            job.attemptStartSeconds = startedAt;
            job.firstStartSeconds = Math.min(job.firstStartSeconds, startedAt);
            if (job.allocated()) {
                s.protections.move(job, startedAt + job.protectionSecondsIfStarted());
                s.protections.endsAt(job);
                for (int i = 0; i < p.nodeCount(); i++) {
                    s.nodes.recomputeLatestProtectionEnd(p.node(i));
                }
                s.advanceTo(time); // ends a protection already over
            } else {
                job.protectedUntilSeconds = startedAt;
            }
        }
    }

    static void restorePreemptions(Job job, int count) {
        if (job.state != JobState.PENDING) {
            throw new IllegalStateException("cannot restore the preemptions of " + job.id() + ": it is " + job.state);
        }
        if (count < 0) {
            throw new IllegalArgumentException("a preemption count is at least 0, got " + count + " for " + job.id());
        }
        job.preemptions = count;
    }

    static void seedUsage(ClusterState s, int leaf, int gpus, long fromSeconds, long toSeconds) {
        if (toSeconds > s.now()) {
            throw new IllegalArgumentException("cannot seed usage up to " + toSeconds + ", after now (" + s.now() + ")");
        }
        s.ledger.seed(leaf, gpus, fromSeconds, toSeconds);
    }
}
