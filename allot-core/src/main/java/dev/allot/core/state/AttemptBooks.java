package dev.allot.core.state;

/**
 * Files an attempt into and out of the books of a {@link ClusterState}: the waiting queues, the nodes, the running
 * lists, the protections, the charged usage and the stopping phase. An attempt enters them when it begins
 * ({@link #enter}), again as allocated work when it is promoted in place ({@link #enterAllocated}), is charged and
 * starts counting down when a start that waited launches ({@link #launch}), has its protection moved with the clock
 * while it waits ({@link #keepWaitingWhole}) or lapse when its minimum runtime has passed ({@link #lapse}), and
 * leaves them when it ends ({@link #leave}).
 *
 * <p>Apart from the state because these must balance one another: whatever {@link #enter}, {@link #enterAllocated}
 * and {@link #launch} add to a running sum or a per-node counter, {@link #lapse} and {@link #leave} take away again
 * ({@code InvariantChecks} in the simulator verifies it), which is easiest to see with all of them side by side. The
 * state decides whether a change is allowed and what it means for the job's progress; these only keep the books. None
 * of them checks anything or advances the clock.
 */
final class AttemptBooks {
    private AttemptBooks() {
    }

    /**
     * Begins an attempt of a waiting job on {@code p} at {@code time}: out of the queue, onto its nodes, running.
     * With {@code waits} it waits to launch: it holds its placement and is protected, but is neither charged nor
     * counting down ({@link ClusterState#startWhenStopped}).
     */
    static void enter(ClusterState s, Job job, Placement p, long time, boolean waits) {
        s.pending.remove(job);
        s.nodes.place(job, p);
        job.state = JobState.RUNNING;
        job.placement = p;
        job.attempts++;
        job.attemptStartSeconds = time;
        job.awaitingLaunch = waits;
        if (waits) {
            s.stopPhase.beginWaiting(job);
        } else if (job.firstStartSeconds < 0) {
            job.firstStartSeconds = time;
        }
        s.running.count++;
        if (job.allocated()) {
            enterAllocated(s, job, time);
        } else {
            s.running.enter(job);
            job.protectedUntilSeconds = time;
            job.protectionActive = false;
        }
        s.nodes.refileWholeNodes(p);
    }

    /**
     * Files a running allocated job in the books from {@code time}: charged from then, and protected for its minimum
     * runtime from then. For an allocated start ({@link #enter}) and a promotion in place
     * ({@link ClusterState#promote}) alike. A start that waits to launch is protected but neither charged nor counting
     * down until {@link #launch}.
     */
    static void enterAllocated(ClusterState s, Job job, long time) {
        Placement p = job.placement;
        s.running.enter(job);
        if (!job.awaitingLaunch) {
            s.ledger.addRunning(job.leaf(), job.gpus(), time);
        }
        s.protections.protect(job, time + job.protectionSecondsIfStarted());
        if (!job.awaitingLaunch) {
            s.protections.endsAt(job);
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            s.nodes.raiseLatestProtectionEnd(p.node(i), job.protectedUntilSeconds);
            s.nodes.protectedJobsOn[p.node(i)]++;
        }
    }

    /** A start that waited launches at {@code time}: its work runs, it is charged, its minimum runtime counts down. */
    static void launch(ClusterState s, Job job, long time) {
        s.stopPhase.endWaiting(job);
        job.awaitingLaunch = false;
        job.attemptStartSeconds = time;
        if (job.firstStartSeconds < 0) {
            job.firstStartSeconds = time;
        }
        if (job.allocated()) {
            s.ledger.addRunning(job.leaf(), job.gpus(), time);
            s.protections.endsAt(job);
        }
    }

    /**
     * A start that waits to launch has run nothing and its minimum runtime has not begun: its attempt start and its
     * protection end move with the clock (as if it launched now), so every sum the policy reads (committed usage,
     * each node's latest protection end) counts its protection whole.
     *
     * <p>A start already kept whole at {@code time} is left alone: every mutator advances the clock, so a driver that
     * makes many calls in one second (a service taking in hundreds of workloads while hundreds of starts wait) would
     * otherwise redo each of them on every call. Skipping it changes nothing: its attempt start and protection end are
     * what they would be set to, and each of its nodes' latest protection end is at least its own (whoever sets a
     * protection end raises or recomputes its nodes').
     */
    static void keepWaitingWhole(ClusterState s, Job j, long time) {
        long until = j.allocated() ? time + j.protectionSecondsIfStarted() : time;
        if (j.attemptStartSeconds == time && j.protectedUntilSeconds == until) {
            return;
        }
        j.attemptStartSeconds = time;
        if (!j.allocated()) {
            j.protectedUntilSeconds = time;
            return;
        }
        s.protections.move(j, until);
        for (int i = 0; i < j.placement.nodeCount(); i++) {
            s.nodes.raiseLatestProtectionEnd(j.placement.node(i), until);
        }
    }

    /** The protection of a running allocated job has ended (its minimum runtime passed): its nodes count it no more. */
    static void lapse(ClusterState s, Job j) {
        s.protections.lapse(j);
        Placement p = j.placement;
        for (int i = 0; i < p.nodeCount(); i++) {
            s.nodes.protectedJobsOn[p.node(i)]--;
            s.nodes.refileWholeNode(p.node(i));
        }
    }

    /**
     * Takes a running attempt out of every book at {@code time}, whatever ends it: what it ran counts in the job's
     * GPU-seconds, its GPUs are free, it is no longer charged or protected. A start that waited ends without having
     * run. What the job keeps and where it goes next is the caller's.
     *
     * <p>Its work ended at {@code endedAt} (at most {@code time}; see {@link ClusterState#complete(Job, long, long)}):
     * it ran, and is charged, up to then; the seconds from then to {@code time} that the ledger charged are taken back
     * ({@link UsageLedger#refund}). Its GPUs, and every other book, count it until {@code time}, when the driver
     * learned of the end: the policy decided with them held, and cannot have given them to anyone meanwhile.
     */
    static void leave(ClusterState s, Job job, long endedAt, long time) {
        Placement p = job.placement;
        boolean ran = !job.awaitingLaunch;
        if (ran) {
            job.runGpuSeconds += (endedAt - job.attemptStartSeconds) * job.gpus();
        } else {
            s.stopPhase.endWaiting(job);
            job.awaitingLaunch = false;
        }
        s.nodes.unplace(job, p);
        s.running.leave(job);
        s.running.count--;
        if (job.allocated()) {
            if (ran) {
                s.ledger.addRunning(job.leaf(), -job.gpus(), time);
                // charged since its start, or since its promotion in place during this attempt
                s.ledger.refund(job.leaf(), job.gpus(), Math.max(endedAt, job.promotedAtSeconds), time);
            }
            if (job.protectionActive) {
                for (int i = 0; i < p.nodeCount(); i++) {
                    s.nodes.protectedJobsOn[p.node(i)]--;
                }
            }
            s.protections.drop(job);
        }
        s.nodes.refileWholeNodes(p);
        job.placement = null;
    }
}
