package dev.allot.core.state;

import java.time.Duration;

/**
 * Changes to a known job's contract or standing after it was submitted: a promotion of unallocated work to
 * allocated in place, a demotion of waiting allocated work to unallocated, and a new rank among the jobs submitted
 * with it. A campaign uses all three to move its shards between protected slots and idle GPUs without restarting
 * any of them.
 *
 * <p>Apart from {@link ClusterState} because these are one idea (the contract may change, and nothing already
 * promised is taken back) with rules of their own; the state's public methods of the same names call these after
 * advancing its clock.
 */
final class ContractChanges {
    private ContractChanges() {
    }

    static void promote(ClusterState s, Job job, Duration minRuntime, long time) {
        if (job.allocated()) {
            throw new IllegalStateException("cannot promote " + job.id() + ": it is allocated already");
        }
        if (minRuntime.isZero() || minRuntime.isNegative()) {
            throw new IllegalArgumentException("a promotion needs a minimum runtime above zero, not " + minRuntime);
        }
        if (job.state == JobState.PENDING) {
            s.pending.remove(job);
            setContract(s, job, minRuntime, time);
            s.pending.add(job);
            return;
        }
        s.requireRunning(job, "promote");
        s.running.leave(job);
        setContract(s, job, minRuntime, time);
        AttemptBooks.enterAllocated(s, job, time);
        s.nodes.refileWholeNodes(job.placement);
    }

    static void demote(ClusterState s, Job job) {
        if (job.state != JobState.PENDING) {
            throw new IllegalStateException("cannot demote " + job.id() + ": it is " + job.state
                    + "; only waiting work changes to unallocated");
        }
        if (!job.allocated()) {
            throw new IllegalStateException("cannot demote " + job.id() + ": it is unallocated already");
        }
        s.pending.remove(job);
        job.spec = job.spec.withMinRuntime(Duration.ZERO);
        job.minRuntimeSeconds = 0;
        job.minRuntimeCapped = false;
        job.promotedAtSeconds = -1;
        s.pending.add(job);
    }

    static void rerank(ClusterState s, Job job, long rank) {
        if (job.state.isFinal()) {
            throw new IllegalStateException("cannot rerank " + job.id() + ": it ended (" + job.state + ")");
        }
        if (job.queueRank == rank) {
            return;
        }
        if (job.state == JobState.PENDING) {
            s.pending.remove(job);
            job.queueRank = rank;
            s.pending.add(job);
        } else {
            job.queueRank = rank;
        }
    }

    private static void setContract(ClusterState s, Job job, Duration minRuntime, long time) {
        job.spec = job.spec.withMinRuntime(minRuntime);
        job.minRuntimeSeconds = s.config().minRuntimeSecondsOf(job.spec);
        job.minRuntimeCapped = minRuntime.getSeconds() > job.minRuntimeSeconds;
        job.promotedAtSeconds = time;
    }
}
