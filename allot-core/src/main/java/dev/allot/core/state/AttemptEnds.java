package dev.allot.core.state;

import dev.allot.core.state.ClusterState.PreemptionResult;

/**
 * How a running attempt ends and what its job keeps: a completion keeps all the attempt ran; a preemption keeps a
 * resumable job's progress up to its last checkpoint or report ({@link Job#progressKeptIfPreemptedAt}) and sends it
 * back to the queue, and otherwise ends the job or, when the driver restarts such work, sends it back to start over;
 * a cancellation ends the job, waiting or running. The progress reports that decide what a preemption keeps are
 * recorded here as well ({@link #recordProgress}).
 *
 * <p>An attempt's work may have ended before the driver learned of it ({@code endedAt} before {@code time}: a
 * cluster manager's probe failed for a while, or the service was down): what the job ran, kept and lost counts up to
 * {@code endedAt}, and so do its charges; its GPUs are freed at {@code time} ({@link AttemptBooks#leave}).
 *
 * <p>Apart from {@link ClusterState} because what a job keeps, loses and where it goes next is one idea with rules of
 * its own; taking the attempt out of the books is {@link AttemptBooks#leave}'s. The state's public methods of the same
 * names call these after advancing its clock.
 */
final class AttemptEnds {
    private AttemptEnds() {
    }

    static void complete(ClusterState s, Job job, long endedAt, long time) {
        s.requireRunning(job, "complete");
        if (job.awaitingLaunch) {
            throw new IllegalStateException("cannot complete " + job.id() + ": it waits to launch and has not run");
        }
        long end = endOf(job, endedAt, time);
        long ran = end - job.attemptStartSeconds;
        job.progressSeconds = Math.min(job.durationSeconds(), job.progressSeconds + ran);
        AttemptBooks.leave(s, job, end, time);
        job.state = JobState.COMPLETED;
        job.endSeconds = end;
    }

    static PreemptionResult preempt(ClusterState s, Job job, long endedAt, long time, boolean restartIfNotResumable) {
        s.requireRunning(job, "preempt");
        long end = endOf(job, endedAt, time);
        long kept = job.progressKeptIfPreemptedAt(end);
        long lost = job.workLostIfPreemptedAtGpuSeconds(end);
        AttemptBooks.leave(s, job, end, time);
        job.preemptions++;
        job.lostGpuSeconds += lost;
        if (job.spec().resumable()) {
            job.progressSeconds = Math.min(kept, job.durationSeconds());
            job.state = JobState.PENDING;
            s.pending.add(job);
            return new PreemptionResult(true, job.progressSeconds, lost);
        }
        if (restartIfNotResumable) {
            job.progressSeconds = 0;
            job.state = JobState.PENDING;
            s.pending.add(job);
            return new PreemptionResult(true, 0, lost);
        }
        job.state = JobState.PREEMPTED;
        job.endSeconds = end;
        return new PreemptionResult(false, 0, lost);
    }

    static void cancel(ClusterState s, Job job, long endedAt, long time) {
        long end = time;
        if (job.state == JobState.RUNNING) {
            end = endOf(job, endedAt, time);
            AttemptBooks.leave(s, job, end, time);
        } else if (job.state == JobState.PENDING) {
            s.pending.remove(job);
        } else if (job.state.isFinal()) {
            throw new IllegalStateException("job " + job.id() + " already ended (" + job.state + ")");
        }
        job.state = JobState.CANCELLED;
        job.endSeconds = end;
    }

    /**
     * When a running attempt's work ended, for an end its driver reports at {@code endedAt} and learned of at
     * {@code time}: not before the attempt began (a clock that differs, an end reported for an earlier run), and
     * never for a start that waited to launch, which ran nothing (its end is {@code time}).
     *
     * @throws IllegalArgumentException if {@code endedAt} is after {@code time}: an end not yet come is a driver's bug
     */
    private static long endOf(Job job, long endedAt, long time) {
        if (endedAt > time) {
            throw new IllegalArgumentException("the attempt of " + job.id() + " cannot have ended at " + endedAt
                    + ", after now (" + time + ")");
        }
        return job.awaitingLaunch ? time : Math.max(endedAt, job.attemptStartSeconds);
    }

    static void recordProgress(ClusterState s, Job job, long time) {
        s.requireRunning(job, "record the progress of");
        if (job.awaitingLaunch) {
            throw new IllegalStateException("cannot record the progress of " + job.id() + ": it waits to launch");
        }
        if (time < job.attemptStartSeconds || time > s.now) {
            throw new IllegalArgumentException("progress of " + job.id() + " at " + time + " is outside its attempt ("
                    + job.attemptStartSeconds + ".." + s.now + ")");
        }
        job.progressReportedSeconds = Math.max(job.progressReportedSeconds, time);
    }
}
