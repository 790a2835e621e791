package dev.allot.core.state;

import dev.allot.core.model.Priority;
import java.util.PriorityQueue;

/**
 * The protection books of a {@link ClusterState} ({@link ClusterState#protections()}): per allocation (leaf), the
 * GPUs of running allocated work still inside its minimum runtime and those past it (by priority), the sum of the
 * protected GPUs' protection ends (what makes the committed GPU-seconds cheap), the queue of protection ends still to
 * come, and how many protections have run out so far.
 *
 * <p>Apart from the state because it is one idea (who may be preempted, and from when) with one rule for each
 * change: a protection begins, moves, lapses as time passes, or is dropped when its attempt stops. The state calls
 * these from its mutators; node-side counts (protected jobs per node, latest end per node) are in {@link NodeBooks}.
 */
public final class ProtectionBooks {
    static final int PRIORITIES = Priority.values().length;

    final long[][] unprotectedGpus;
    final long[] unprotectedLeafGpus;
    final long[] protectedGpus;
    final long[] protectedUntilGpuSum;
    final PriorityQueue<Expiry> expiries = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Integer.compare(a.job.index(), b.job.index()));
    /** How many protections have run out on running attempts so far ({@link #endedCount()}). */
    long ended;

    /** A protection end still to come: attempt {@code attempt} of {@code job} is protected until {@code at}. */
    record Expiry(long at, Job job, int attempt) { }

    ProtectionBooks(int leaves) {
        this.unprotectedGpus = new long[leaves][PRIORITIES];
        this.unprotectedLeafGpus = new long[leaves];
        this.protectedGpus = new long[leaves];
        this.protectedUntilGpuSum = new long[leaves];
    }

    /** A running allocated job is protected until {@code until}. */
    void protect(Job job, long until) {
        job.protectedUntilSeconds = until;
        job.protectionActive = true;
        protectedGpus[job.leaf()] += job.gpus();
        protectedUntilGpuSum[job.leaf()] += (long) job.gpus() * job.protectedUntilSeconds;
    }

    /** Queues the end of the job's current protection, for {@link #takeEnded}. */
    void endsAt(Job job) {
        expiries.add(new Expiry(job.protectedUntilSeconds, job, job.attempts));
    }

    /** Moves the end of a protected job's protection to {@code until}. */
    void move(Job job, long until) {
        protectedUntilGpuSum[job.leaf()] += (long) job.gpus() * (until - job.protectedUntilSeconds);
        job.protectedUntilSeconds = until;
    }

    /**
     * Takes off the queue the next running attempt whose protection has run out by {@code time} and is still active;
     * null when there is none. Ends of attempts that stopped or lost their protection otherwise are dropped.
     */
    Job takeEnded(long time) {
        while (!expiries.isEmpty() && expiries.peek().at <= time) {
            Expiry e = expiries.poll();
            Job j = e.job;
            if (j.state == JobState.RUNNING && j.attempts == e.attempt && j.protectionActive) {
                return j;
            }
        }
        return null;
    }

    /** The job's protection has run out while it runs: its GPUs count as preemptible. */
    void lapse(Job j) {
        ended++;
        j.protectionActive = false;
        protectedGpus[j.leaf()] -= j.gpus();
        protectedUntilGpuSum[j.leaf()] -= (long) j.gpus() * j.protectedUntilSeconds;
        unprotectedGpus[j.leaf()][j.spec().priority().ordinal()] += j.gpus();
        unprotectedLeafGpus[j.leaf()] += j.gpus();
    }

    /** A running allocated job stops: its GPUs leave the books, protected or not. */
    void drop(Job job) {
        if (job.protectionActive) {
            job.protectionActive = false;
            protectedGpus[job.leaf()] -= job.gpus();
            protectedUntilGpuSum[job.leaf()] -= (long) job.gpus() * job.protectedUntilSeconds;
        } else {
            unprotectedGpus[job.leaf()][job.spec().priority().ordinal()] -= job.gpus();
            unprotectedLeafGpus[job.leaf()] -= job.gpus();
        }
    }

    /** GPU-seconds a leaf is sure to be charged from {@code now} on: the rest of its running jobs' protection. */
    long committedGpuSeconds(int leaf, long now) {
        return protectedUntilGpuSum[leaf] - now * protectedGpus[leaf];
    }

    /**
     * How many minimum-runtime protections have run out on attempts still running, as time advanced: a driver that
     * sees this number change knows that something happened for the policy (work became preemptible), as the
     * simulator's protection-end event says. Attempts that ended before their protection did are not counted.
     */
    public long endedCount() {
        return ended;
    }

    /**
     * The earliest time after the state's now at which a running attempt's protection may end ({@code Long.MAX_VALUE}
     * if none): when a scheduler that is not driven by events should look again. It may be early (the attempt ended
     * since), never late.
     */
    public long nextEndSeconds() {
        return expiries.isEmpty() ? Long.MAX_VALUE : expiries.peek().at;
    }

    /** GPUs of running allocated jobs of a leaf and priority that are past their protection. */
    public long unprotectedGpus(int leaf, Priority priority) {
        return unprotectedGpus[leaf][priority.ordinal()];
    }

    /** GPUs of running allocated jobs of a leaf that are past their protection. */
    public long unprotectedGpus(int leaf) {
        return unprotectedLeafGpus[leaf];
    }

    /** GPUs of a leaf's running jobs that are still inside their minimum runtime. */
    public long protectedGpus(int leaf) {
        return protectedGpus[leaf];
    }

    /**
     * GPUs a leaf's running allocated jobs hold, inside their protection or past it (starts that wait to launch
     * included): the one sum of {@link #protectedGpus} and {@link #unprotectedGpus(int)}.
     */
    public long heldGpus(int leaf) {
        return protectedGpus[leaf] + unprotectedLeafGpus[leaf];
    }
}
