package dev.allot.core.state;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.rules.ShapeFit;
import dev.allot.core.rules.Violation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * The live state of a cluster under Allot: nodes and their free GPUs, waiting and running jobs, and the charged
 * usage of every allocation. Policies read it and return plans; whoever acts on a plan (the simulator, the
 * service) changes it through the mutators here, each of which takes the current time. Nothing here reads a
 * clock, sleeps or does I/O.
 *
 * <p>Besides the jobs it keeps the running sums that make a scheduling cycle cheap: GPUs past their protection
 * per allocation and priority, unallocated running GPUs, and the committed (still protected) GPU-seconds per
 * allocation. Every mutator keeps them exact; {@code InvariantChecks} in the simulator verifies them.
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
    static final int PRIORITIES = Priority.values().length;

    private final ClusterSpec cluster;
    private final AllocationTree tree;
    private final SchedulerConfig config;
    final int nodeCount;
    final FreeIndex free;
    final boolean[] healthy;
    final List<List<Job>> jobsOnNode;
    final BitSet unhealthyBusy = new BitSet();
    final long[] latestProtectionEnd;
    final int[] protectedJobsOn;
    private final WholeNodeIndex wholeNodes;
    final java.util.TreeSet<Integer> nodesByLatestProtectionEnd;
    final List<Integer> drainNotices = new ArrayList<>();

    final List<Job> jobs = new ArrayList<>();
    final Map<String, Job> byId = new HashMap<>();
    final Map<Long, Integer> shapeIds = new HashMap<>();
    final List<int[]> shapes = new ArrayList<>();

    final PendingQueues pending;
    final List<List<Job>> runningAllocated;
    final List<Job> runningUnallocated = new ArrayList<>();
    int runningCount;
    final long[][] unprotectedGpus;
    final long[] unprotectedLeafGpus;
    long unallocatedRunningGpus;
    final long[] protectedGpus;
    final long[] protectedUntilGpuSum;
    final UsageLedger ledger;
    final StopPhase stops;
    final PriorityQueue<Expiry> expiries = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Integer.compare(a.job.index(), b.job.index()));
    long now;
    /** How many protections have run out on running attempts so far ({@link #protectionsEnded()}). */
    long protectionsEnded;

    record Expiry(long at, Job job, int attempt) { }

    /** Outcome of a preemption: whether the job went back to the queue, what it kept and what was lost. */
    public record PreemptionResult(boolean requeued, long progressKeptSeconds, long lostGpuSeconds) { }

    /** What a node is doing, for explanations and reports. */
    public enum NodeStatus { HEALTHY, DRAINING, DRAINED }

    public ClusterState(ClusterSpec cluster, AllocationTree tree, SchedulerConfig config, long startSeconds) {
        this.cluster = cluster;
        this.tree = tree;
        this.config = config;
        this.nodeCount = cluster.nodes().size();
        int[] capacity = new int[nodeCount];
        for (int i = 0; i < nodeCount; i++) {
            capacity[i] = cluster.nodes().get(i).gpus();
        }
        this.free = new FreeIndex(capacity);
        this.healthy = new boolean[nodeCount];
        java.util.Arrays.fill(healthy, true);
        this.jobsOnNode = new ArrayList<>(nodeCount);
        for (int i = 0; i < nodeCount; i++) {
            jobsOnNode.add(new ArrayList<>(4));
        }
        this.protectedJobsOn = new int[nodeCount];
        this.wholeNodes = new WholeNodeIndex(nodeCount, cluster.maxGpusPerNode());
        this.latestProtectionEnd = new long[nodeCount];
        java.util.Arrays.fill(latestProtectionEnd, Long.MIN_VALUE);
        this.nodesByLatestProtectionEnd = new java.util.TreeSet<>((a, b) -> latestProtectionEnd[a] != latestProtectionEnd[b]
                ? Long.compare(latestProtectionEnd[a], latestProtectionEnd[b]) : Integer.compare(a, b));
        for (int i = 0; i < nodeCount; i++) {
            nodesByLatestProtectionEnd.add(i);
            refileWholeNode(i);
        }
        int leaves = tree.leafCount();
        this.pending = new PendingQueues(leaves);
        this.runningAllocated = new ArrayList<>(leaves);
        for (int i = 0; i < leaves; i++) {
            runningAllocated.add(new ArrayList<>());
        }
        this.unprotectedGpus = new long[leaves][PRIORITIES];
        this.unprotectedLeafGpus = new long[leaves];
        this.protectedGpus = new long[leaves];
        this.protectedUntilGpuSum = new long[leaves];
        this.ledger = new UsageLedger(leaves, config.lookback().getSeconds(), config.usageBucket().getSeconds(), startSeconds);
        this.stops = new StopPhase(nodeCount);
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
        Optional<Integer> leaf = tree.leaf(spec.allocation());
        if (leaf.isEmpty()) {
            String hint = tree.node(spec.allocation()).isPresent()
                    ? "'" + spec.allocation() + "' is not a leaf of the allocation tree; workloads name leaves"
                    : "unknown allocation '" + spec.allocation() + "'";
            throw new IllegalArgumentException(hint + "; valid allocations: " + String.join(", ", tree.leafNames()));
        }
        Optional<Violation> misfit = ShapeFit.check(cluster, spec.gpus(), spec.gpusPerNode());
        if (misfit.isPresent()) {
            throw new IllegalArgumentException("workload " + spec.id() + " asks for "
                    + ShapeFit.describe(spec.gpus(), spec.gpusPerNode()) + ": " + misfit.get());
        }
        if (byId.containsKey(spec.id())) {
            throw new IllegalArgumentException("workload id '" + spec.id() + "' is used twice");
        }
        long key = ((long) spec.gpus() << 32) | spec.gpusPerNode();
        Integer shape = shapeIds.get(key);
        if (shape == null) {
            shape = shapes.size();
            shapeIds.put(key, shape);
            shapes.add(new int[] {spec.gpus(), spec.gpusPerNode()});
        }
        Job job = new Job(spec, jobs.size(), leaf.get(), shape, config.minRuntimeSecondsOf(spec));
        jobs.add(job);
        byId.put(spec.id(), job);
        return job;
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
        while (!expiries.isEmpty() && expiries.peek().at <= time) {
            Expiry e = expiries.poll();
            Job j = e.job;
            if (j.state == JobState.RUNNING && j.attempts == e.attempt && j.protectionActive) {
                endProtection(j);
            }
        }
        for (Job j : stops.waiting) {
            keepWaitingWhole(j, time);
        }
    }

    /**
     * A start that waits to launch has run nothing and its minimum runtime has not begun: its attempt start and its
     * protection end move with the clock (as if it launched now), so every sum the policy reads (committed usage,
     * each node's latest protection end) counts its protection whole.
     */
    private void keepWaitingWhole(Job j, long time) {
        j.attemptStartSeconds = time;
        if (!j.allocated()) {
            j.protectedUntilSeconds = time;
            return;
        }
        long until = time + j.protectionSecondsIfStarted();
        protectedUntilGpuSum[j.leaf()] += (long) j.gpus() * (until - j.protectedUntilSeconds);
        j.protectedUntilSeconds = until;
        for (int i = 0; i < j.placement.nodeCount(); i++) {
            raiseLatestProtectionEnd(j.placement.node(i), until);
        }
    }

    private void endProtection(Job j) {
        protectionsEnded++;
        j.protectionActive = false;
        protectedGpus[j.leaf()] -= j.gpus();
        protectedUntilGpuSum[j.leaf()] -= (long) j.gpus() * j.protectedUntilSeconds;
        unprotectedGpus[j.leaf()][j.spec().priority().ordinal()] += j.gpus();
        unprotectedLeafGpus[j.leaf()] += j.gpus();
        Placement p = j.placement;
        for (int i = 0; i < p.nodeCount(); i++) {
            protectedJobsOn[p.node(i)]--;
            refileWholeNode(p.node(i));
        }
    }

    /** Files a node in the whole-node index, or takes it out, after anything on it changed. */
    void refileWholeNode(int node) {
        wholeNodes.update(node, healthy[node] && protectedJobsOn[node] == 0
                && cluster.nodes().get(node).gpus() == wholeNodes.wholeNodeGpus(), jobsOnNode.get(node));
    }

    public long now() {
        return now;
    }

    /**
     * How many minimum-runtime protections have run out on attempts still running, as time advanced: a driver that
     * sees this number change knows that something happened for the policy (work became preemptible), as the
     * simulator's protection-end event says. Attempts that ended before their protection did are not counted.
     */
    public long protectionsEnded() {
        return protectionsEnded;
    }

    /**
     * The earliest time after {@link #now()} at which a running attempt's protection may end ({@code Long.MAX_VALUE}
     * if none): when a scheduler that is not driven by events should look again. It may be early (the attempt ended
     * since), never late.
     */
    public long nextProtectionEndSeconds() {
        return expiries.isEmpty() ? Long.MAX_VALUE : expiries.peek().at;
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
        checkPlacement(job, p, true);
        if (!stops.fitsNow(job, p, free)) {
            throw new IllegalStateException("cannot start " + job.id() + " on " + p + " now: "
                    + (stops.ownStillStopping(job) ? "its previous attempt is still stopping"
                    : "attempts that are stopping still hold its GPUs") + "; it waits (startWhenStopped)");
        }
        begin(job, p, time, false);
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
        checkPlacement(job, p, true);
        begin(job, p, time, true);
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
                    + (stops.ownStillStopping(job) ? "its previous attempt is still stopping"
                    : "attempts that are stopping still hold its GPUs"));
        }
        stops.endWaiting(job);
        job.awaitingLaunch = false;
        job.attemptStartSeconds = time;
        if (job.firstStartSeconds < 0) {
            job.firstStartSeconds = time;
        }
        if (job.allocated()) {
            ledger.addRunning(job.leaf(), job.gpus(), time);
            expiries.add(new Expiry(job.protectedUntilSeconds, job, job.attempts));
        }
    }

    /** Whether a start of {@code job} on {@code p} could run at once: its GPUs idle, no attempt of its own stopping. */
    public boolean fitsNow(Job job, Placement p) {
        return stops.fitsNow(job, p, free);
    }

    /** Whether a start that waits ({@link Job#awaitingLaunch()}) may launch now. */
    public boolean canLaunch(Job job) {
        return job.awaitingLaunch && stops.fitsNow(job, job.placement, free);
    }

    /** Starts that wait to launch, in the order they were decided. */
    public List<Job> awaitingLaunch() {
        return Collections.unmodifiableList(stops.waiting);
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
            if (p.node(i) < 0 || p.node(i) >= nodeCount) {
                throw new IllegalArgumentException("placement " + p + " names node " + p.node(i) + " of " + nodeCount);
            }
        }
        if (job != null && job.state == JobState.RUNNING && !job.awaitingLaunch) {
            throw new IllegalStateException("cannot hold the GPUs of " + job.id() + " as stopping: it is running");
        }
        return stops.hold(job, p, time);
    }

    /** The stopping attempt has stopped at {@code time}: its GPUs are idle. Starts that wait may launch now. */
    public void stopped(StoppingAttempt s, long time) {
        advanceTo(time);
        stops.release(s);
    }

    /** Attempts that are stopping and still hold their GPUs, in the order they were asked to stop. */
    public java.util.Collection<StoppingAttempt> stopping() {
        return Collections.unmodifiableCollection(stops.stopping);
    }

    /** GPUs of a node held by attempts that are stopping. */
    public int heldByStoppingGpus(int node) {
        return stops.heldOn[node];
    }

    /**
     * Takes in an attempt that began before this state knew of it, at {@code startedAt} (at most {@code time}): a
     * service restarted, or rebuilt its state after an edit of the tree or the nodes, and adopts the work still
     * running. The attempt is charged from {@code time} on (what it used before is the owner's to
     * {@link #seedUsage seed}); its protection and its progress count from {@code startedAt}, so adoption neither
     * extends nor shortens the minimum runtime the workload was promised. A protection that has already ended ends
     * at once. Unlike {@link #start}, the nodes may be unhealthy (work keeps running on a node that fails; marking
     * it unhealthy afterwards drains it).
     */
    public void resume(Job job, Placement p, long startedAt, long time) {
        advanceTo(time);
        if (job.state != JobState.PENDING) {
            throw new IllegalStateException("cannot resume " + job.id() + ": it is " + job.state);
        }
        if (startedAt > time) {
            throw new IllegalArgumentException("cannot resume " + job.id() + " from " + startedAt + ", after now (" + time
                    + ")");
        }
        checkPlacement(job, p, false);
        begin(job, p, time, false);
        if (startedAt < time) {
            job.attemptStartSeconds = startedAt;
            job.firstStartSeconds = Math.min(job.firstStartSeconds, startedAt);
            if (job.allocated()) {
                protectedUntilGpuSum[job.leaf()] -= (long) job.gpus() * job.protectedUntilSeconds;
                job.protectedUntilSeconds = startedAt + job.protectionSecondsIfStarted();
                protectedUntilGpuSum[job.leaf()] += (long) job.gpus() * job.protectedUntilSeconds;
                expiries.add(new Expiry(job.protectedUntilSeconds, job, job.attempts));
                for (int i = 0; i < p.nodeCount(); i++) {
                    recomputeLatestProtectionEnd(p.node(i));
                }
                advanceTo(time); // ends a protection already over
            } else {
                job.protectedUntilSeconds = startedAt;
            }
        }
    }

    /**
     * Adds charges from before this state existed: {@code gpus} charged GPUs from {@code fromSeconds} to
     * {@code toSeconds} (at most now), for a leaf, into the usage window and the totals. For a service that restarts
     * or rebuilds its state and must not forget who used what over the lookback window.
     */
    public void seedUsage(int leaf, int gpus, long fromSeconds, long toSeconds) {
        if (toSeconds > now) {
            throw new IllegalArgumentException("cannot seed usage up to " + toSeconds + ", after now (" + now + ")");
        }
        ledger.seed(leaf, gpus, fromSeconds, toSeconds);
    }

    private void begin(Job job, Placement p, long time, boolean waits) {
        pending.remove(job);
        free.take(p);
        for (int i = 0; i < p.nodeCount(); i++) {
            jobsOnNode.get(p.node(i)).add(job);
            if (!healthy[p.node(i)]) {
                unhealthyBusy.set(p.node(i)); // only by resume: work adopted on a node that is down
            }
        }
        job.state = JobState.RUNNING;
        job.placement = p;
        job.attempts++;
        job.attemptStartSeconds = time;
        job.awaitingLaunch = waits;
        if (waits) {
            stops.beginWaiting(job);
        } else if (job.firstStartSeconds < 0) {
            job.firstStartSeconds = time;
        }
        runningCount++;
        if (job.allocated()) {
            enterAllocatedBooks(job, time);
        } else {
            job.runningSlot = runningUnallocated.size();
            runningUnallocated.add(job);
            job.protectedUntilSeconds = time;
            job.protectionActive = false;
            unallocatedRunningGpus += job.gpus();
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            refileWholeNode(p.node(i));
        }
    }

    /**
     * Files a running allocated job in the books from {@code time}: charged from then, and protected for its minimum
     * runtime from then. For an allocated start ({@link #begin}) and a promotion in place ({@link #promote}) alike.
     * A start that waits to launch is protected but neither charged nor counting down until {@link #launch}.
     */
    private void enterAllocatedBooks(Job job, long time) {
        Placement p = job.placement;
        List<Job> list = runningAllocated.get(job.leaf());
        job.runningSlot = list.size();
        list.add(job);
        if (!job.awaitingLaunch) {
            ledger.addRunning(job.leaf(), job.gpus(), time);
        }
        job.protectedUntilSeconds = time + job.protectionSecondsIfStarted();
        job.protectionActive = true;
        protectedGpus[job.leaf()] += job.gpus();
        protectedUntilGpuSum[job.leaf()] += (long) job.gpus() * job.protectedUntilSeconds;
        if (!job.awaitingLaunch) {
            expiries.add(new Expiry(job.protectedUntilSeconds, job, job.attempts));
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            raiseLatestProtectionEnd(p.node(i), job.protectedUntilSeconds);
            protectedJobsOn[p.node(i)]++;
        }
    }

    /** Takes a running job out of its running list (allocated or unallocated), in constant time. */
    private void leaveRunningList(Job job) {
        List<Job> list = job.allocated() ? runningAllocated.get(job.leaf()) : runningUnallocated;
        int slot = job.runningSlot;
        Job last = list.remove(list.size() - 1);
        if (last != job) {
            list.set(slot, last);
            last.runningSlot = slot;
        }
        job.runningSlot = -1;
    }

    private void raiseLatestProtectionEnd(int node, long until) {
        if (until > latestProtectionEnd[node]) {
            nodesByLatestProtectionEnd.remove(node);
            latestProtectionEnd[node] = until;
            nodesByLatestProtectionEnd.add(node);
        }
    }

    private void recomputeLatestProtectionEnd(int node) {
        long latest = Long.MIN_VALUE;
        for (Job j : jobsOnNode.get(node)) {
            if (j.allocated()) {
                latest = Math.max(latest, j.protectedUntilSeconds);
            }
        }
        if (latest != latestProtectionEnd[node]) {
            nodesByLatestProtectionEnd.remove(node);
            latestProtectionEnd[node] = latest;
            nodesByLatestProtectionEnd.add(node);
        }
    }

    private void checkPlacement(Job job, Placement p, boolean healthyOnly) {
        if (p.totalGpus() != job.gpus()) {
            throw new IllegalStateException("placement " + p + " holds " + p.totalGpus() + " GPUs but " + job.id() + " needs " + job.gpus());
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            int n = p.node(i);
            if (n < 0 || n >= nodeCount) {
                throw new IllegalStateException("placement " + p + " names node " + n + " of " + nodeCount);
            }
            if (healthyOnly && !healthy[n]) {
                throw new IllegalStateException("cannot start " + job.id() + " on unhealthy node " + nodeName(n));
            }
            if (free.free(n) < p.gpusOn(i)) {
                throw new IllegalStateException("cannot start " + job.id() + " with " + p.gpusOn(i) + " GPUs on node " + nodeName(n)
                        + ": only " + free.free(n) + " free");
            }
            if (job.gpusPerNode() > 0 && p.gpusOn(i) != job.gpusPerNode()) {
                throw new IllegalStateException("gang " + job.id() + " needs exactly " + job.gpusPerNode() + " GPUs on each node, placement " + p);
            }
        }
    }

    /** Ends the running attempt because the work is done. */
    public void complete(Job job, long time) {
        advanceTo(time);
        requireRunning(job, "complete");
        if (job.awaitingLaunch) {
            throw new IllegalStateException("cannot complete " + job.id() + ": it waits to launch and has not run");
        }
        long ran = time - job.attemptStartSeconds;
        job.progressSeconds = Math.min(job.durationSeconds(), job.progressSeconds + ran);
        stopRunning(job, time);
        job.state = JobState.COMPLETED;
        job.endSeconds = time;
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
        advanceTo(time);
        requireRunning(job, "preempt");
        long kept = job.progressKeptIfPreemptedAt(time);
        long lost = job.workLostIfPreemptedAtGpuSeconds(time);
        stopRunning(job, time);
        job.preemptions++;
        job.lostGpuSeconds += lost;
        if (job.spec().resumable()) {
            job.progressSeconds = Math.min(kept, job.durationSeconds());
            job.state = JobState.PENDING;
            pending.add(job);
            return new PreemptionResult(true, job.progressSeconds, lost);
        }
        if (restartIfNotResumable) {
            job.progressSeconds = 0;
            job.state = JobState.PENDING;
            pending.add(job);
            return new PreemptionResult(true, 0, lost);
        }
        job.state = JobState.PREEMPTED;
        job.endSeconds = time;
        return new PreemptionResult(false, 0, lost);
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
        if (job.allocated()) {
            throw new IllegalStateException("cannot promote " + job.id() + ": it is allocated already");
        }
        if (minRuntime.isZero() || minRuntime.isNegative()) {
            throw new IllegalArgumentException("a promotion needs a minimum runtime above zero, not " + minRuntime);
        }
        if (job.state == JobState.PENDING) {
            pending.remove(job);
            setContract(job, minRuntime, time);
            pending.add(job);
            return;
        }
        requireRunning(job, "promote");
        leaveRunningList(job);
        unallocatedRunningGpus -= job.gpus();
        setContract(job, minRuntime, time);
        enterAllocatedBooks(job, time);
        for (int i = 0; i < job.placement.nodeCount(); i++) {
            refileWholeNode(job.placement.node(i));
        }
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
        if (job.state != JobState.PENDING) {
            throw new IllegalStateException("cannot demote " + job.id() + ": it is " + job.state
                    + "; only waiting work changes to unallocated");
        }
        if (!job.allocated()) {
            throw new IllegalStateException("cannot demote " + job.id() + ": it is unallocated already");
        }
        pending.remove(job);
        job.spec = job.spec.withMinRuntime(Duration.ZERO);
        job.minRuntimeSeconds = 0;
        job.minRuntimeCapped = false;
        job.promotedAtSeconds = -1;
        pending.add(job);
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
        if (job.state.isFinal()) {
            throw new IllegalStateException("cannot rerank " + job.id() + ": it ended (" + job.state + ")");
        }
        if (job.queueRank == rank) {
            return;
        }
        if (job.state == JobState.PENDING) {
            pending.remove(job);
            job.queueRank = rank;
            pending.add(job);
        } else {
            job.queueRank = rank;
        }
    }

    private void setContract(Job job, Duration minRuntime, long time) {
        job.spec = job.spec.withMinRuntime(minRuntime);
        job.minRuntimeSeconds = config.minRuntimeSecondsOf(job.spec);
        job.minRuntimeCapped = minRuntime.getSeconds() > job.minRuntimeSeconds;
        job.promotedAtSeconds = time;
    }

    /**
     * Records that the running job reported progress at {@code time}: its work up to then counts as kept if it is
     * preempted later in this attempt ({@link Job#progressKeptIfPreemptedAt}).
     */
    public void recordProgress(Job job, long time) {
        requireRunning(job, "record the progress of");
        if (job.awaitingLaunch) {
            throw new IllegalStateException("cannot record the progress of " + job.id() + ": it waits to launch");
        }
        if (time < job.attemptStartSeconds || time > now) {
            throw new IllegalArgumentException("progress of " + job.id() + " at " + time + " is outside its attempt ("
                    + job.attemptStartSeconds + ".." + now + ")");
        }
        job.progressReportedSeconds = Math.max(job.progressReportedSeconds, time);
    }

    /** Cancels a job, waiting or running. */
    public void cancel(Job job, long time) {
        advanceTo(time);
        if (job.state == JobState.RUNNING) {
            stopRunning(job, time);
        } else if (job.state == JobState.PENDING) {
            pending.remove(job);
        } else if (job.state.isFinal()) {
            throw new IllegalStateException("job " + job.id() + " already ended (" + job.state + ")");
        }
        job.state = JobState.CANCELLED;
        job.endSeconds = time;
    }

    private void requireRunning(Job job, String what) {
        if (job.state != JobState.RUNNING) {
            throw new IllegalStateException("cannot " + what + " " + job.id() + ": it is " + job.state);
        }
    }

    private void stopRunning(Job job, long time) {
        Placement p = job.placement;
        boolean ran = !job.awaitingLaunch;
        if (ran) {
            job.runGpuSeconds += (time - job.attemptStartSeconds) * job.gpus();
        } else {
            stops.endWaiting(job);
            job.awaitingLaunch = false;
        }
        free.give(p);
        for (int i = 0; i < p.nodeCount(); i++) {
            int n = p.node(i);
            List<Job> on = jobsOnNode.get(n);
            on.remove(job);
            if (on.isEmpty() && !healthy[n]) {
                unhealthyBusy.clear(n);
                drainNotices.add(n);
            }
            if (job.allocated() && latestProtectionEnd[n] == job.protectedUntilSeconds) {
                recomputeLatestProtectionEnd(n);
            }
        }
        leaveRunningList(job);
        runningCount--;
        if (job.allocated()) {
            if (ran) {
                ledger.addRunning(job.leaf(), -job.gpus(), time);
            }
            if (job.protectionActive) {
                for (int i = 0; i < p.nodeCount(); i++) {
                    protectedJobsOn[p.node(i)]--;
                }
                job.protectionActive = false;
                protectedGpus[job.leaf()] -= job.gpus();
                protectedUntilGpuSum[job.leaf()] -= (long) job.gpus() * job.protectedUntilSeconds;
            } else {
                unprotectedGpus[job.leaf()][job.spec().priority().ordinal()] -= job.gpus();
                unprotectedLeafGpus[job.leaf()] -= job.gpus();
            }
        } else {
            unallocatedRunningGpus -= job.gpus();
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            refileWholeNode(p.node(i));
        }
        job.placement = null;
    }

    /** Marks a node unhealthy (it takes no new work and drains) or healthy (back in service). */
    public void setHealthy(int node, boolean value, long time) {
        advanceTo(time);
        if (healthy[node] == value) {
            return;
        }
        healthy[node] = value;
        free.setSchedulable(node, value);
        refileWholeNode(node);
        if (value) {
            unhealthyBusy.clear(node);
        } else if (jobsOnNode.get(node).isEmpty()) {
            drainNotices.add(node);
        } else {
            unhealthyBusy.set(node);
        }
    }

    /** Nodes that became drained (unhealthy and empty) since the last call, in the order it happened. */
    public List<Integer> takeDrainNotices() {
        if (drainNotices.isEmpty()) {
            return List.of();
        }
        List<Integer> out = List.copyOf(drainNotices);
        drainNotices.clear();
        return out;
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

    public int nodeCount() {
        return nodeCount;
    }

    public String nodeName(int node) {
        return cluster.nodes().get(node).name();
    }

    public NodeSpec nodeSpec(int node) {
        return cluster.nodes().get(node);
    }

    public boolean isHealthy(int node) {
        return healthy[node];
    }

    public NodeStatus nodeStatus(int node) {
        if (healthy[node]) {
            return NodeStatus.HEALTHY;
        }
        return jobsOnNode.get(node).isEmpty() ? NodeStatus.DRAINED : NodeStatus.DRAINING;
    }

    /**
     * Nodes in order of the latest protection end among the allocated jobs on them (nodes without allocated jobs
     * first), then by index: the order in which nodes can be wholly freed by preemption.
     */
    public java.util.NavigableSet<Integer> nodesByLatestProtectionEnd() {
        return Collections.unmodifiableNavigableSet(nodesByLatestProtectionEnd);
    }

    /** Nodes that could be wholly freed by preemption, grouped by the allocations on them. Read only. */
    public WholeNodeIndex wholeNodes() {
        return wholeNodes;
    }

    /** How many running jobs on a node are inside their minimum runtime. */
    public int protectedJobsOn(int node) {
        return protectedJobsOn[node];
    }

    /** The latest protection end of the allocated jobs on a node; {@link Long#MIN_VALUE} when it runs none. */
    public long latestProtectionEnd(int node) {
        return latestProtectionEnd[node];
    }

    /** The free-GPU index of the live state. Read it or copy it; never change it. */
    public FreeIndex freeIndex() {
        return free;
    }

    public int healthyGpus() {
        int g = 0;
        for (int n = 0; n < nodeCount; n++) {
            if (healthy[n]) {
                g += free.capacity(n);
            }
        }
        return g;
    }

    public List<Job> jobsOn(int node) {
        return Collections.unmodifiableList(jobsOnNode.get(node));
    }

    /** Unhealthy nodes that still run work, lowest index first. */
    public int nextUnhealthyBusyNode(int from) {
        return unhealthyBusy.nextSetBit(from);
    }

    public List<Job> jobs() {
        return Collections.unmodifiableList(jobs);
    }

    public Optional<Job> job(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    public int shapeCount() {
        return shapes.size();
    }

    public int shapeGpus(int shape) {
        return shapes.get(shape)[0];
    }

    public int shapeGpusPerNode(int shape) {
        return shapes.get(shape)[1];
    }

    public PendingQueues pending() {
        return pending;
    }

    /** Running allocated jobs of one allocation, in no particular order. */
    public List<Job> runningAllocated(int leaf) {
        return Collections.unmodifiableList(runningAllocated.get(leaf));
    }

    /** Running unallocated jobs of every allocation, in no particular order. */
    public List<Job> runningUnallocated() {
        return Collections.unmodifiableList(runningUnallocated);
    }

    public int runningCount() {
        return runningCount;
    }

    /** GPUs of running allocated jobs of a leaf and priority that are past their protection. */
    public long unprotectedGpus(int leaf, Priority priority) {
        return unprotectedGpus[leaf][priority.ordinal()];
    }

    public long unprotectedGpus(int leaf) {
        return unprotectedLeafGpus[leaf];
    }

    public long unallocatedRunningGpus() {
        return unallocatedRunningGpus;
    }

    /** GPUs of a leaf's running jobs that are still inside their minimum runtime. */
    public long protectedGpus(int leaf) {
        return protectedGpus[leaf];
    }

    /** GPU-seconds a leaf is sure to be charged from now on: the rest of its running jobs' protection. */
    public long committedGpuSeconds(int leaf) {
        return protectedUntilGpuSum[leaf] - now * protectedGpus[leaf];
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
