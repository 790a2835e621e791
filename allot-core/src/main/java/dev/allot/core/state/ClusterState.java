package dev.allot.core.state;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The live state of a cluster under Allot: nodes and their free GPUs, waiting and running jobs, and the charged
 * usage of every allocation. Policies read it and return plans; whoever acts on a plan (the simulator, the
 * service) changes it through the mutators here, each of which takes the current time. Nothing here reads a
 * clock, sleeps or does I/O.
 *
 * <p>It holds the clock and the lifecycle of an attempt (start, launch, complete, preempt, cancel): which change is
 * allowed when, each after advancing the clock. It keeps one book per idea: the workloads it knows
 * ({@link JobRegistry}), the waiting queues ({@link PendingQueues}), the running lists ({@link #running()}), the
 * per-node books ({@link #nodes()}), the protections ({@link #protections()}), the charged usage
 * ({@link UsageLedger}) and the stopping phase ({@link #stopPhase()}). The order in which an attempt enters and leaves
 * those books ({@link AttemptBooks}), what a job keeps when its attempt ends ({@link AttemptEnds}), contract changes
 * ({@link ContractChanges}), adopted work ({@link PriorWork}) and what a placement must be ({@link PlacementRule}) are
 * apart. Every mutator keeps the running sums exact; {@code InvariantChecks} in the simulator verifies them.
 *
 * <p><b>The stopping phase.</b> A preemption or a cancellation takes effect in the policy's books at once: the job
 * waits again or ends, and its GPUs count as free. On a real cluster its process may take seconds to stop; a driver
 * that knows it says so with {@link #holdUntilStopped}, and the GPUs stay held until {@link #stopped}. A start the
 * policy places on GPUs still held waits ({@link #startWhenStopped}): it holds its placement and is protected, but
 * it is neither running work nor charged, and its minimum runtime begins only when it {@link #launch launches}. So
 * a slow stop never spends the protection of the work that waits for it ({@link StopPhase} keeps these books). A
 * driver whose stops are instant (the simulator by default) never calls these, and nothing changes for it.
 */
public final class ClusterState {
    private final ClusterSpec cluster;
    private final AllocationTree tree;
    private final SchedulerConfig config;
    final JobRegistry registry = new JobRegistry();
    final NodeBooks nodes;
    final PendingQueues pending;
    final RunningLists running;
    final ProtectionBooks protections;
    final UsageLedger ledger;
    final StopPhase stopPhase;
    long now;

    /** Outcome of a preemption: whether the job went back to the queue, what it kept and what was lost. */
    public record PreemptionResult(boolean requeued, long progressKeptSeconds, long lostGpuSeconds) { }

    public ClusterState(ClusterSpec cluster, AllocationTree tree, SchedulerConfig config, long startSeconds) {
        this.cluster = cluster;
        this.tree = tree;
        this.config = config;
        this.nodes = new NodeBooks(cluster);
        int leaves = tree.leafCount();
        this.pending = new PendingQueues(leaves);
        this.running = new RunningLists(leaves);
        this.protections = new ProtectionBooks(leaves);
        this.ledger = new UsageLedger(leaves, config.lookback().getSeconds(), config.usageBucket().getSeconds(), startSeconds);
        this.stopPhase = new StopPhase(nodes.count);
        this.now = startSeconds;
    }

    /** An independent copy to play a possible future on, with other shares and durations ({@link StateFork}). */
    public ClusterState fork(AllocationTree newTree, java.util.function.ToLongFunction<Job> durationSeconds) {
        return StateFork.copy(this, newTree, durationSeconds);
    }

    // ------------------------------------------------------------------ registration

    /**
     * Makes a workload known to the state (not yet waiting). Fails when it names an allocation that is not a leaf
     * of the tree, or asks for a shape the cluster could never hold.
     */
    public Job register(WorkloadSpec spec) {
        return registry.register(spec, cluster, tree, config);
    }

    // ------------------------------------------------------------------ time

    /**
     * Moves the state's clock to {@code now}: accrues charged usage and ends the protection of attempts whose
     * minimum runtime has passed. Every mutator calls it; the owner calls it before asking a policy.
     */
    public void advanceTo(long time) {
        if (time < now) {
            throw new IllegalArgumentException("time went back from " + now + " to " + time);
        }
        now = time;
        ledger.advance(time);
        for (Job j = protections.takeEnded(time); j != null; j = protections.takeEnded(time)) {
            AttemptBooks.lapse(this, j);
        }
        for (Job j : stopPhase.waiting) {
            AttemptBooks.keepWaitingWhole(this, j, time);
        }
    }

    public long now() {
        return now;
    }

    // ------------------------------------------------------------------ mutators

    /** The job starts waiting. */
    public void submit(Job job, long time) {
        advanceTo(time);
        if (job.state != JobState.NEW) {
            throw new IllegalStateException("job " + job.id() + " was already submitted (" + job.state + ")");
        }
        job.state = JobState.PENDING;
        pending.add(job);
    }

    /**
     * Starts an attempt of a waiting job on the given placement; its work runs from {@code time}. Its GPUs must be
     * idle: not held by an attempt that is still stopping, and no earlier attempt of its own still stopping
     * ({@link #fitsNow}); else {@link #startWhenStopped}.
     */
    public void start(Job job, Placement p, long time) {
        advanceTo(time);
        if (job.state != JobState.PENDING) {
            throw new IllegalStateException("cannot start " + job.id() + ": it is " + job.state);
        }
        PlacementRule.check(job, p, true, nodes);
        if (!stopPhase.fitsNow(job, p, nodes.free)) {
            throw new IllegalStateException("cannot start " + job.id() + " on " + p + " now: "
                    + (stopPhase.ownStillStopping(job) ? "its previous attempt is still stopping"
                    : "attempts that are stopping still hold its GPUs") + "; it waits (startWhenStopped)");
        }
        AttemptBooks.enter(this, job, p, time, false);
    }

    /**
     * Starts an attempt of a waiting job that must wait before its work runs: GPUs of its placement are still held
     * by attempts that are stopping, or its own previous attempt is. It takes its placement in the policy's books
     * and is protected while it waits (allocated work), but it is not charged and makes no progress, and its
     * minimum runtime begins when it {@link #launch launches}. The policy decided a start; the stop decides when.
     */
    public void startWhenStopped(Job job, Placement p, long time) {
        advanceTo(time);
        if (job.state != JobState.PENDING) {
            throw new IllegalStateException("cannot start " + job.id() + ": it is " + job.state);
        }
        PlacementRule.check(job, p, true, nodes);
        AttemptBooks.enter(this, job, p, time, true);
    }

    /**
     * The start of {@code job}, which waited ({@link #startWhenStopped}), launches at {@code time}: its work runs,
     * it is charged, and its minimum runtime counts from now.
     *
     * @throws IllegalStateException when it does not wait, or its GPUs are not idle yet ({@link #canLaunch})
     */
    public void launch(Job job, long time) {
        advanceTo(time);
        if (job.state != JobState.RUNNING || !job.awaitingLaunch) {
            throw new IllegalStateException("cannot launch " + job.id() + ": it is " + job.state
                    + (job.state == JobState.RUNNING ? " already" : ""));
        }
        if (!canLaunch(job)) {
            throw new IllegalStateException("cannot launch " + job.id() + " at " + time + ": "
                    + (stopPhase.ownStillStopping(job) ? "its previous attempt is still stopping"
                    : "attempts that are stopping still hold its GPUs"));
        }
        AttemptBooks.launch(this, job, time);
    }

    /** Whether a start of {@code job} on {@code p} could run at once: its GPUs idle, no attempt of its own stopping. */
    public boolean fitsNow(Job job, Placement p) {
        return stopPhase.fitsNow(job, p, nodes.free);
    }

    /** Whether a start that waits ({@link Job#awaitingLaunch()}) may launch now. */
    public boolean canLaunch(Job job) {
        return job.awaitingLaunch && stopPhase.fitsNow(job, job.placement, nodes.free);
    }

    /**
     * The attempt of {@code job} (null: work this state no longer knows) on {@code p}, asked to stop at {@code time}
     * and already preempted or cancelled here, still holds its GPUs until {@link #stopped}: a start placed on them
     * waits. For a driver whose stops take time (a process given a grace period); call it at once, before carrying
     * out the next decision.
     */
    public StoppingAttempt holdUntilStopped(Job job, Placement p, long time) {
        advanceTo(time);
        for (int i = 0; i < p.nodeCount(); i++) {
            if (p.node(i) < 0 || p.node(i) >= nodes.count) {
                throw new IllegalArgumentException("placement " + p + " names node " + p.node(i) + " of " + nodes.count);
            }
        }
        if (job != null && job.state == JobState.RUNNING && !job.awaitingLaunch) {
            throw new IllegalStateException("cannot hold the GPUs of " + job.id() + " as stopping: it is running");
        }
        return stopPhase.hold(job, p, time);
    }

    /** The stopping attempt has stopped at {@code time}: its GPUs are idle. Starts that wait may launch now. */
    public void stopped(StoppingAttempt s, long time) {
        advanceTo(time);
        stopPhase.release(s);
    }

    /**
     * Takes in an attempt that began before this state knew of it, at {@code startedAt} (at most {@code time}): a
     * service restarted, or rebuilt its state after an edit of the tree or the nodes, and adopts the work still
     * running. The attempt is charged from {@code time} on (what it used before is the owner's to
     * {@link #seedUsage seed}); its protection and its progress count from {@code startedAt}, so adoption neither
     * extends nor shortens the minimum runtime the workload was promised. A protection that has already ended ends
     * at once. Unlike {@link #start}, the nodes may be unhealthy (work keeps running on a node that fails; marking
     * it unhealthy afterwards drains it). See {@link PriorWork}.
     */
    public void resume(Job job, Placement p, long startedAt, long time) {
        advanceTo(time);
        PriorWork.resume(this, job, p, startedAt, time);
    }

    /**
     * Takes in how often a job registered again (waiting, not yet resumed) was preempted before this state existed,
     * for a service that restarts or rebuilds its state: rules that treat work taken before differently (the
     * allocation policy's shortest turn) must not forget it.
     */
    public void restorePreemptions(Job job, int count) {
        PriorWork.restorePreemptions(job, count);
    }

    /**
     * Adds charges from before this state existed: {@code gpus} charged GPUs from {@code fromSeconds} to
     * {@code toSeconds} (at most now), for a leaf, into the usage window and the totals. For a service that restarts
     * or rebuilds its state and must not forget who used what over the lookback window.
     */
    public void seedUsage(int leaf, int gpus, long fromSeconds, long toSeconds) {
        PriorWork.seedUsage(this, leaf, gpus, fromSeconds, toSeconds);
    }

    /** Ends the running attempt because the work is done. */
    public void complete(Job job, long time) {
        complete(job, time, time);
    }

    /**
     * Ends the running attempt because the work is done, learned at {@code time}, the work having ended at
     * {@code endedAt} (at most {@code time}; an end before the attempt began counts as its start): the job ran and
     * is charged up to {@code endedAt} (what was charged since is taken back), while its GPUs count as held until
     * {@code time}, since nothing could be given them before the end was known. For a driver that learns of an end
     * late: after a restart, or a probe that failed for a while. {@link #preempt(Job, long, long, boolean)} and
     * {@link #cancel(Job, long, long)} take such an end too.
     *
     * @throws IllegalArgumentException if {@code endedAt} is after {@code time}
     */
    public void complete(Job job, long endedAt, long time) {
        advanceTo(time);
        AttemptEnds.complete(this, job, endedAt, time);
    }

    /**
     * Stops the running attempt before its work is done. A resumable job keeps its progress up to its last
     * checkpoint and waits again; a non-resumable one ends as {@link JobState#PREEMPTED} and its run is lost.
     */
    public PreemptionResult preempt(Job job, long time) {
        return preempt(job, time, false);
    }

    /**
     * Stops a running job before it is done. Resumable work goes back to the queue with its checkpointed progress;
     * other work ends for good, or with {@code restartIfNotResumable} goes back to the queue to start over.
     */
    public PreemptionResult preempt(Job job, long time, boolean restartIfNotResumable) {
        return preempt(job, time, time, restartIfNotResumable);
    }

    /**
     * {@link #preempt(Job, long, boolean)} of an attempt whose work ended at {@code endedAt}, learned at {@code time}
     * (see {@link #complete(Job, long, long)}): what it kept and lost counts up to {@code endedAt}.
     */
    public PreemptionResult preempt(Job job, long endedAt, long time, boolean restartIfNotResumable) {
        advanceTo(time);
        return AttemptEnds.preempt(this, job, endedAt, time, restartIfNotResumable);
    }

    /**
     * Promotes unallocated work to allocated <em>in place</em>: the job takes {@code minRuntime} (capped as at
     * registration) as its contract from {@code time} on. A waiting job simply waits in its allocation's allocated
     * queue from now; a running one keeps its attempt, placement and progress, and is charged and protected from
     * {@code time} for its minimum runtime, exactly as if that attempt had started now as allocated work. Nothing
     * restarts, so no work is lost. This is how a campaign moves a shard running on idle GPUs into a protected slot
     * that freed (a restart would throw away the work since its last checkpoint and send it back to the queue).
     *
     * @throws IllegalStateException when the job is already allocated or has ended
     */
    public void promote(Job job, Duration minRuntime, long time) {
        advanceTo(time);
        ContractChanges.promote(this, job, minRuntime, time);
    }

    /**
     * The reverse of {@link #promote} for work that is <em>waiting</em>: an allocated job that is not running becomes
     * unallocated (minimum runtime 0) and waits in its allocation's unallocated queue from now. Nothing runs, so
     * nothing is charged or lost; its progress stays. This is how a campaign hands a protected slot that a waiting
     * shard held to a shard with more work left. A running job cannot be demoted: that would take back a protection
     * it was promised.
     *
     * @throws IllegalStateException when the job is not waiting or is unallocated already
     */
    public void demote(Job job, long time) {
        advanceTo(time);
        ContractChanges.demote(this, job);
    }

    /**
     * Changes where a job stands among the jobs of its allocation that have its priority and were submitted in the
     * same second ({@link Job#queueRank}, lower first; every job starts at 0, so nothing else moves). A campaign
     * submits its shards together and orders the waiting ones by the work they have left, so that idle GPUs go first
     * to the shards that would end it last. A waiting job takes its new place at once; for a running one the rank
     * counts when it waits again. Nothing is charged or lost.
     *
     * @throws IllegalStateException when the job has ended
     */
    public void rerank(Job job, long rank) {
        ContractChanges.rerank(this, job, rank);
    }

    /**
     * Records that the running job reported progress at {@code time}: its work up to then counts as kept if it is
     * preempted later in this attempt ({@link Job#progressKeptIfPreemptedAt}).
     */
    public void recordProgress(Job job, long time) {
        AttemptEnds.recordProgress(this, job, time);
    }

    /** Cancels a job, waiting or running. */
    public void cancel(Job job, long time) {
        cancel(job, time, time);
    }

    /**
     * Cancels a job whose running attempt's work ended at {@code endedAt}, learned at {@code time} (see
     * {@link #complete(Job, long, long)}); a waiting job ends at {@code time}.
     */
    public void cancel(Job job, long endedAt, long time) {
        advanceTo(time);
        AttemptEnds.cancel(this, job, endedAt, time);
    }

    void requireRunning(Job job, String what) {
        if (job.state != JobState.RUNNING) {
            throw new IllegalStateException("cannot " + what + " " + job.id() + ": it is " + job.state);
        }
    }

    /** Marks a node unhealthy (it takes no new work and drains) or healthy (back in service). */
    public void setHealthy(int node, boolean value, long time) {
        advanceTo(time);
        nodes.setHealthy(node, value);
    }

    // ------------------------------------------------------------------ read side

    public ClusterSpec cluster() {
        return cluster;
    }

    public AllocationTree tree() {
        return tree;
    }

    public SchedulerConfig config() {
        return config;
    }

    /** The nodes: free GPUs, health, jobs on each, protection ends, the whole-node index. */
    public NodeBooks nodes() {
        return nodes;
    }

    /** The protections of running allocated work, per allocation, and when the next one ends. */
    public ProtectionBooks protections() {
        return protections;
    }

    /** The running jobs, allocated per allocation and unallocated. */
    public RunningLists running() {
        return running;
    }

    /** Attempts still stopping and starts that wait for them. */
    public StopPhase stopPhase() {
        return stopPhase;
    }

    public PendingQueues pending() {
        return pending;
    }

    public List<Job> jobs() {
        return Collections.unmodifiableList(registry.jobs);
    }

    public Optional<Job> job(String id) {
        return Optional.ofNullable(registry.byId.get(id));
    }

    /** How many distinct shapes (GPUs, GPUs per node) the known workloads ask for; shapes number from 0. */
    public int shapeCount() {
        return registry.shapes.size();
    }

    public int shapeGpus(int shape) {
        return registry.shapes.get(shape)[0];
    }

    public int shapeGpusPerNode(int shape) {
        return registry.shapes.get(shape)[1];
    }

    /** GPU-seconds a leaf is sure to be charged from now on: the rest of its running jobs' protection. */
    public long committedGpuSeconds(int leaf) {
        return protections.committedGpuSeconds(leaf, now);
    }

    /** Charged GPU-seconds of a leaf inside the lookback window. */
    public long windowUsageGpuSeconds(int leaf) {
        return ledger.windowGpuSeconds(leaf);
    }

    /** Charged GPU-seconds of a leaf since the start. */
    public long totalChargedGpuSeconds(int leaf) {
        return ledger.totalGpuSeconds(leaf);
    }

    public UsageLedger ledger() {
        return ledger;
    }
}
