package dev.allot.server.sched;

import dev.allot.core.backend.AttemptStatus;

/**
 * When an attempt ended, for the books. A backend that learns of ends by asking (Slurm) may report one long after it
 * happened: the service was down for an hour, or slurmctld could not be reached for a while, and the job had ended
 * five minutes in. The backend then says when it ended ({@link AttemptStatus#endedAtMillis}, Slurm's EndTime), and
 * "ended at" means two things:
 *
 * <ul>
 *   <li><b>For charging, run time and progress</b>, the end the backend recorded: the store records the attempt as
 *       ended then (its history, and the allocation's usage, which the store sums from the attempts' runs), and the
 *       core counts the job's run and progress up to then and takes back what it charged the allocation since
 *       ({@link dev.allot.core.state.ClusterState#complete(dev.allot.core.state.Job, long, long)}). Clamped: never
 *       before the attempt's start as Allot stored it (clocks differ; an end Slurm recorded for an earlier job) and
 *       never after now (a clock ahead of ours).</li>
 *   <li><b>For freeing GPUs</b>, when Allot learned of it: the GPUs were idle in reality since the end, but the
 *       policy decided with them held, and nothing can be placed on them before the end is known, so the core frees
 *       them, and a start that waited for them launches, at the cycle that observed the end.</li>
 * </ul>
 *
 * A backend that does not say (the local and simulated backends, or Slurm for a job it no longer knows) leaves the
 * end at its observation, as before. An attempt that never started ends at its own start
 * ({@link SchedulerLoop#NEVER_RAN_ENDED_AT_MILLIS}); that rule is {@link Carrier#finish}'s.
 */
final class EndedAt {
    private EndedAt() {
    }

    /**
     * When the attempt {@code l}, reported ended by {@code st} and observed at {@code nowMillis}, ended: the end the
     * backend recorded, clamped to the attempt's stored start and to now, else now.
     */
    static long millis(AttemptStatus st, LiveAttempt l, long nowMillis) {
        Long reported = st.endedAtMillis();
        if (reported == null) {
            return nowMillis;
        }
        return Math.min(nowMillis, Math.max(reported, l.attemptStartedAtMillis));
    }

    /**
     * The end for the core's books, in its whole seconds, when the store records {@code endedAtMillis} at the loop's
     * {@code now} (seconds) and {@code nowMillis}: {@code now} for an end at the observation (the core's second may
     * run ahead of the clock's after a step back), else the end's second, at most {@code now}. The core clamps it to
     * the attempt's start in its own books.
     */
    static long coreSeconds(long endedAtMillis, long now, long nowMillis) {
        return endedAtMillis >= nowMillis ? now : Math.min(now, Math.floorDiv(endedAtMillis, 1000));
    }
}
