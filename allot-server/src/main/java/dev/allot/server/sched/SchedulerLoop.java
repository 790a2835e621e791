package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.DecisionLoop;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.model.Words;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.GpuLanes;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.identity.AccountMap;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptPhase;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.ConflictException;
import dev.allot.server.store.Node;
import dev.allot.server.store.NotFoundException;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's real-time scheduling loop: it asks the same core {@link Policy} the simulator replays, on the
 * core's {@link ClusterState}, and carries out the plan through the {@link Store} (durable first) and a
 * {@link Backend}. It writes no policy logic of its own; it only keeps the core's state in step with what the store
 * and the backend say, and turns placements (GPU counts per node) into GPU indexes.
 *
 * <p>One {@link #runOnce() cycle}:
 * <ol>
 *   <li>on the first cycle, build the core from the store ({@link CoreBuilder}: the tree, the nodes, and the usage of
 *       the fair-share window seeded from the stored attempts; nothing happens until the store has at least one node
 *       and one allocation), admit the waiting workloads and adopt the attempts found open (see <b>Adoption</b>),
 *       then reconcile them with the backend; on later cycles, take in changes of the tree and the nodes (see
 *       <b>Changes</b>);</li>
 *   <li>observe the backend: every ended attempt the loop started is ended in the store and in the core, then
 *       forgotten by the backend;</li>
 *   <li>launch the deferred starts whose fences have cleared;</li>
 *   <li>take one step of every running campaign ({@link dev.allot.server.campaign.CampaignController}: its shards'
 *       workloads queued, retiered, promoted in place), then take in new submissions and cancellations from the
 *       store;</li>
 *   <li>if something changed since the policy was last asked, or a wake-up the policy asked for has come, or a
 *       protection has run out: ask the policy and carry out its decisions in order, deciding again at once while a
 *       plan requeued work ({@link DecisionLoop}, the loop the simulator runs, with its bound and its rules for
 *       wake-ups, so that the service decides when the simulator would);</li>
 *   <li>if anything was asked to stop, observe once more, so that work a backend stops at once makes room in the same
 *       cycle.</li>
 * </ol>
 * {@link #nudge()} asks for a cycle at once (the API calls it after every change), so a submission does not wait for
 * the next tick.
 *
 * <p><b>Fences.</b> A preemption or a cancellation is applied to the core at once (its GPUs become the next job's),
 * but the stopped process may hold its GPUs through the grace period. A start whose chosen GPUs are still held by a
 * stopping attempt (or whose workload's own previous attempt has not ended) is <em>deferred</em>: the core counts it
 * as running, the store and the backend hear of it only once the fence has cleared. Lanes free for good are chosen
 * before fenced ones, so a start waits only when it must. No GPU index is ever given to two live attempts.
 *
 * <p><b>Adoption.</b> Attempts found open in the store at load (work started before a crash or a restart) are
 * adopted, in store order: each workload is registered in the core and resumed there on its stored placement (node
 * by name, GPU count per node) <em>from the attempt's stored start</em> ({@link ClusterState#resume}), so its
 * minimum-runtime protection ends when it was promised to, neither later nor earlier, and its stored GPU indexes,
 * exactly those, are marked as held. A stopping attempt is adopted fenced (its GPUs held, the core moves it on at
 * once: cancelled if its cancellation was requested, otherwise preempted, requeued by the core's rule) and its stop is
 * sent again, with what is left of the grace period the first request gave (the store keeps when it was asked). The first cycle then reconciles them with the backend (again each cycle until the backend answers): an
 * attempt the backend reports starting, running, stopping or {@code UNKNOWN} stays live; one it reports ended is
 * ended through the usual path; one it does not know at all is, if still launching (the crash came between the
 * store's begin and the backend's start), started again with the <em>same</em> attempt key and its stored command,
 * environment and GPUs (never a new attempt number, so never a double launch), and otherwise ended as lost (requeued
 * if resumable, per the store's rule), its GPUs released. An adopted attempt whose first observation shows it ended
 * without an exit code, or killed by a signal no stop asked for, died while the service was down and ends as lost too
 * ({@link DiedWhileDown}). An attempt stopped before its start ever reached the backend (the backend reports it
 * {@code NEVER_STARTED}: stopped while its start was unconfirmed, or adopted still launching and stopped before the
 * reconciliation could start it again) ends as its stop says, its reason saying it never started, with no work lost
 * and no GPU time charged, whichever came first. An open attempt whose GPU indexes the node no longer has
 * (it shrank while the scheduler was down) is adopted as being stopped as lost, as in <b>Changes</b>. One that cannot
 * be adopted (its GPU indexes clash with another's, the core refuses the workload) is logged and left alone, its GPUs
 * unknown to the policy.
 *
 * <p><b>Changes.</b> A cycle reads the tree and the nodes from the store after {@link #topologyChanged()} (the API and
 * the health check call it) and at least every {@link #TOPOLOGY_REFRESH_SECONDS}. A change of a node's health is applied
 * to the core in place (an unhealthy node takes no new work and drains by the policy's rule). Any other change (a
 * share, an allocation or a node added, a node's GPU count) rebuilds the core the way a load does, from the same
 * books: usage seeded again, every job registered again, running ones resumed from their attempts' starts, deferred
 * starts decided anew, stopping attempts still fenced. A node whose GPU count shrank under running work (an edit, or
 * the backend's count) loses that work: an attempt holding a GPU the node no longer has is stopped through the backend
 * and ends as lost, with a reason naming the node and its new count (requeued if resumable, failed otherwise: the
 * store's rule for lost work), fencing only the GPUs that remain until it has ended. The store refuses the edits the
 * core could not follow (an allocation with unfinished work removed or given children; nodes are never removed).
 * New policy settings ({@link #usePolicy}, after {@code PUT /v1/policy}) rebuild the core the same way at the start of
 * the next cycle, with the new lookback and usage bucket.
 *
 * <p><b>Not yet.</b> Progress of resumable work from earlier attempts is not known
 * to a rebuilt or restarted core (it counts the whole duration again; only the policy's estimates use it). A deferred
 * start counts as running in the core from the decision, not from its launch. A store failure in the middle of a
 * cycle leaves the loop's books and the core out of step (the cure is restart adoption). An attempt the backend
 * stops reporting altogether keeps its GPUs fenced.
 *
 * <p>Not thread-safe beyond this: {@link #runOnce} is synchronized, so the service's thread ({@link #start}) and a
 * caller never run two cycles at once.
 */
public final class SchedulerLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    /** How long a stopped attempt may take to end before the backend forces it. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);
    /**
     * Decision instants in one cycle: after a decision, a protection that ran out at once (a minimum runtime of 0)
     * is something new for the policy, as the simulator's protection-end event at the same instant is (a guard).
     */
    static final int MAX_INSTANTS_PER_CYCLE = 16;
    /** How often the whole list of workloads not ended is read again, whatever the hints (see syncWorkloads). */
    static final long FULL_SYNC_SECONDS = 30;
    /** How often the tree and the nodes are read again without a hint ({@link #topologyChanged()}). */
    static final long TOPOLOGY_REFRESH_SECONDS = 5;
    /**
     * When an attempt that never ran is recorded as ended: before any start, which
     * {@link dev.allot.server.store.Attempts#endAttempt} records as the attempt's own start, so it has no run to charge
     * (allocated or not) and no GPU time it never had.
     */
    static final long NEVER_RAN_ENDED_AT_MILLIS = Long.MIN_VALUE;
    /** The least time between the starts of two cycles asked for by {@link #nudge()}. */
    static final long MIN_NUDGE_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The name of the tree's synthetic root: the stored top-level allocations are its children (siblings). */

    final Store store;
    final Backend backend;
    /** As whom attempts run; null: the backend's own user. Set once at start, read by the loop thread. */
    private volatile AccountMap accounts;
    private Policy policy;
    private SchedulerConfig config;
    private final Clock clock;
    private final Duration grace;
    private boolean restarts;
    /** A policy handed in by {@link #usePolicy}, to be taken at the start of the next cycle; null when none. */
    private final java.util.concurrent.atomic.AtomicReference<NextPolicy> nextPolicy =
            new java.util.concurrent.atomic.AtomicReference<>();

    private record NextPolicy(Policy policy, SchedulerConfig config) {
    }

    // ---- loaded on the first cycle
    ClusterState state;
    private List<String> nodeNames;
    private CoreBuilder.Topology topology;
    /** Something changed in the core since the policy was last asked (the policy is asked only then, or when due). */
    boolean dirty = true;
    /** The wake-ups the policy asked for, kept by the simulator's rules ({@link DecisionLoop}). */
    private final DecisionLoop wakeUps = new DecisionLoop();
    /** The core's count of protections run out when the policy was last asked ({@link ClusterState#protectionsEnded}). */
    private long protectionsSeen;
    private int[] sizes;
    private long lastSeq;
    private long lastNowSeconds = Long.MIN_VALUE;
    private int foundRunningAtLoad;
    private int adoptedAtLoad;
    /** Open attempts adopted at load that have not yet been reconciled with the backend. */
    private Map<AttemptKey, Attempt> toReconcile = new LinkedHashMap<>();

    // ---- the loop's books
    /** Attempts live, starts deferred, and the attempt each running job runs as. */
    final Books books = new Books();
    /** Jobs the core has not ended, by id, in admission order. */
    final Map<String, Job> active = new LinkedHashMap<>();
    /** What to launch for a workload: its command and environment, kept from the store at admission. */
    final Map<String, Workload> stored = new HashMap<>();
    /** Workloads the core refused (an allocation that is not a leaf, a shape the cluster cannot hold). */
    private final Map<String, String> refused = new TreeMap<>();
    /** Since when each waiting job has waited (its submission, or its last requeue), seconds, for waits. */
    private final Map<String, Long> queuedSince = new HashMap<>();
    private boolean stopsThisCycle;
    /** The health each node was last told to the backend as ({@link Backend#drain}, {@link Backend#resume}). */
    private final Map<String, Boolean> toldHealthy = new TreeMap<>();
    /** The safety brakes: workloads requeued too often or too costly are held, not queued. */
    private final Brakes brakes;
    /** The campaigns: each cycle they queue, retier and promote their shards' workloads. */
    private final dev.allot.server.campaign.CampaignController campaigns;

    // ---- counters
    private long cycles;
    private long starts;
    private long deferrals;
    private long preemptions;
    private long completions;
    private long failures;
    private long cancellations;
    private long lastDecisionNanos;
    private long decisions;
    private long rebuilds;

    private final CycleHealth health = new CycleHealth();
    private volatile ScheduledExecutorService thread;
    private final java.util.concurrent.atomic.AtomicBoolean nudged = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicBoolean resyncRequested =
            new java.util.concurrent.atomic.AtomicBoolean();
    private long lastFullSyncAt = Long.MIN_VALUE / 2;
    private final java.util.concurrent.atomic.AtomicBoolean topologyHint = new java.util.concurrent.atomic.AtomicBoolean();
    private long lastTopologyReadAt = Long.MIN_VALUE / 2;
    private volatile long lastCycleStartNanos = System.nanoTime() - MIN_NUDGE_GAP_NANOS;
    private volatile Observer observer = new Observer() {
    };

    /**
     * Hears what the loop does, for metrics and logs. Called on the loop's thread, inside the cycle: implementations
     * must be quick and must not call back into the loop. Every method does nothing by default.
     */
    public interface Observer {
        /** A cycle asked the policy: how long the policy took, in all rounds of the cycle, and how many waited. */
        default void cycle(long decisionNanos, int pending, int running) {
        }

        /** An attempt was launched on the backend, {@code waitSeconds} after its workload was submitted or requeued. */
        default void started(String workloadId, String allocation, long waitSeconds) {
        }

        /** A running workload was preempted by the policy. */
        default void preempted(String workloadId, String allocation, PreemptionCause cause, long lostGpuSeconds) {
        }

        /** An attempt ended, as recorded in the store. */
        default void ended(String workloadId, String allocation, AttemptOutcome outcome) {
        }
    }

    /** What the loop has done so far, for tests and metrics. */
    public record Counters(long cycles, long starts, long deferrals, long preemptions, long completions, long failures,
                           long cancellations, long lastDecisionNanos, int foundRunningAtLoad, int adoptedAtLoad,
                           long decisions, long rebuilds) {
    }

    public SchedulerLoop(Store store, Backend backend, Policy policy, SchedulerConfig config, Clock clock, Duration grace) {
        this.store = Objects.requireNonNull(store, "store");
        this.backend = Objects.requireNonNull(backend, "backend");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.grace = Objects.requireNonNull(grace, "grace");
        if (grace.isNegative()) {
            throw new IllegalArgumentException("the grace period must not be negative, got " + grace);
        }
        this.restarts = policy.restartsWorkThatCannotResume();
        this.brakes = new Brakes(store);
        this.campaigns = new dev.allot.server.campaign.CampaignController(store, new LoopCampaigns(this), clock);
    }

    public SchedulerLoop(Store store, Backend backend, Policy policy, SchedulerConfig config, Clock clock) {
        this(store, backend, policy, config, clock, DEFAULT_GRACE);
    }

    // ------------------------------------------------------------------ running

    /** Runs cycles on one daemon thread, {@code tick} apart (from the end of one to the start of the next). */
    public synchronized void start(Duration tick) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("the tick must be positive, got " + tick);
        }
        if (thread != null) {
            throw new IllegalStateException("the scheduling loop is already running");
        }
        thread = dev.allot.server.Daemons.single("allot-scheduler");
        thread.scheduleWithFixedDelay(this::cycleOnThread, 0, tick.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Set by {@link #close}: a cycle that fails from then on was interrupted by the stop. */
    private volatile boolean closing;

    private void cycleOnThread() {
        nudged.set(false);
        lastCycleStartNanos = System.nanoTime();
        try {
            runOnce();
        } catch (RuntimeException | AssertionError | LinkageError e) {
            if (closing) {
                // close() interrupts the cycle in progress (a database wait, a backend call): not a failure.
                LOG.info("the scheduling cycle in progress was interrupted by the stop: {}", e.toString());
                return;
            }
            // Caught, not let through: a periodic task that throws is never run again. (A VirtualMachineError goes
            // through; the health answer then keeps saying that cycles fail.)
            CycleHealth.Failing f = health.failing().orElse(null);
            if (f == null || f.failedCycles() == 1) {
                LOG.error("scheduling cycle failed; trying again next tick", e);
            } else {
                LOG.error("scheduling cycle failed again ({} in a row since {}); trying again next tick: {}",
                        f.failedCycles(), java.time.Instant.ofEpochMilli(f.sinceMillis()), f.lastError());
            }
        }
    }

    /**
     * Asks for a cycle as soon as possible on the loop's thread (after a submission, a cancellation or an edit), so
     * that work does not wait for the next tick. Nudges while one is pending are merged; without {@link #start} it
     * does nothing. Under a stream of submissions, nudged cycles come at most every {@link #MIN_NUDGE_GAP_NANOS}
     * apart, so that the loop takes them in by the batch instead of reading the store once per submission.
     */
    public void nudge() {
        ScheduledExecutorService t = thread; // volatile: never waits for a cycle in progress
        if (t != null && nudged.compareAndSet(false, true)) {
            try {
                long wait = lastCycleStartNanos + MIN_NUDGE_GAP_NANOS - System.nanoTime();
                t.schedule(this::cycleOnThread, Math.max(0, wait), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                nudged.set(false);
            }
        }
    }

    /** Stops the thread started by {@link #start}, waiting a little for a cycle in progress. */
    @Override
    public void close() {
        closing = true;
        ScheduledExecutorService t;
        synchronized (this) {
            t = thread;
            thread = null;
        }
        dev.allot.server.Daemons.stop(t, Duration.ofSeconds(10), "the scheduling thread");
    }

    /**
     * One cycle; see the class notes. A cycle that throws is recorded in {@link #health()} (and rethrown); the next
     * that succeeds clears it.
     */
    public synchronized void runOnce() {
        try {
            cycle();
        } catch (RuntimeException | Error e) {
            health.failed(e, clock.millis());
            throw e;
        }
        health.succeeded();
    }

    /** Whether the last cycles failed, and why; read without waiting for a cycle. */
    public CycleHealth health() {
        return health;
    }

    private void cycle() {
        long nowMillis = clock.millis();
        long now = Math.max(lastNowSeconds, Math.floorDiv(nowMillis, 1000));
        lastNowSeconds = now;
        boolean newPolicy = takeNextPolicy();
        if (state == null) {
            if (!load(now, nowMillis)) {
                return;
            }
        } else {
            state.advanceTo(now);
            if (newPolicy) {
                List<Allocation> allocations = store.allocations().allocations();
                if (!allocations.isEmpty()) {
                    rebuild(allocations, store.nodes().nodes(), now, "the policy settings changed");
                }
            }
            refreshTopology(now);
        }
        state.advanceTo(now);
        stopsThisCycle = false;
        if (!toReconcile.isEmpty()) {
            reconcile(now, nowMillis);
        }
        observe(now, nowMillis);
        launchDeferred(now, nowMillis);
        campaigns.step(now, nowMillis);
        syncWorkloads(now);
        for (int i = 0; i < MAX_INSTANTS_PER_CYCLE && decisionDue(now); i++) {
            decide(now, nowMillis);
            state.advanceTo(now); // ends the protections that ran out at once
        }
        if (stopsThisCycle) {
            observe(now, nowMillis);
            launchDeferred(now, nowMillis);
        }
        cycles++;
    }

    /**
     * Runs this policy with these shared settings from the next cycle on (an administrator changed them): the core is
     * rebuilt the way a change of the tree rebuilds it (its window's usage seeded again from the store with the new
     * lookback and bucket), and the policy is asked at once. Does not wait for a cycle in progress.
     */
    public void usePolicy(Policy newPolicy, SchedulerConfig newConfig) {
        nextPolicy.set(new NextPolicy(Objects.requireNonNull(newPolicy, "policy"),
                Objects.requireNonNull(newConfig, "config")));
        nudge();
    }

    private boolean takeNextPolicy() {
        NextPolicy next = nextPolicy.getAndSet(null);
        if (next == null) {
            return false;
        }
        policy = next.policy();
        config = next.config();
        restarts = policy.restartsWorkThatCannotResume();
        LOG.info("scheduling with the new policy settings from this cycle on: lookback {}, max-min-runtime {},"
                + " usage-bucket {}", config.lookback(), config.maxMinRuntime(), config.usageBucket());
        return true;
    }

    public synchronized Counters counters() {
        return new Counters(cycles, starts, deferrals, preemptions, completions, failures, cancellations,
                lastDecisionNanos, foundRunningAtLoad, adoptedAtLoad, decisions, rebuilds);
    }

    /** The campaigns the loop runs a step of every cycle (for the service to give them its identity gate). */
    public dev.allot.server.campaign.CampaignController campaigns() {
        return campaigns;
    }

    /** Sets who hears what the loop does (replacing the previous one). */
    public void observe(Observer o) {
        this.observer = Objects.requireNonNull(o, "observer");
    }

    /**
     * Reads the core's state between cycles, for explanations and metrics: {@code reader} gets the state and the time
     * of the last cycle (seconds since the epoch) and must not change the state. Empty until the first cycle has
     * loaded the store.
     */
    public synchronized <T> java.util.Optional<T> inspect(java.util.function.BiFunction<ClusterState, Long, T> reader) {
        if (state == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.ofNullable(reader.apply(state, lastNowSeconds));
    }

    /**
     * A running workload reported progress: the core counts its work up to the last cycle as kept if it is preempted
     * later in this attempt (the rule is the core's, {@code Job#progressKeptIfPreemptedAt}). Not kept across a
     * rebuild of the core.
     */
    public synchronized void progressReported(String workloadId) {
        if (state == null) {
            return;
        }
        state.job(workloadId).filter(j -> j.state() == dev.allot.core.state.JobState.RUNNING
                && state.now() >= j.attemptStartSeconds()).ifPresent(j -> state.recordProgress(j, state.now()));
    }

    /**
     * Asks the next cycle to read the tree and the nodes again (after an edit through the API, or a health change),
     * and for that cycle soon. Without a hint they are read every {@link #TOPOLOGY_REFRESH_SECONDS}.
     */
    public void topologyChanged() {
        topologyHint.set(true);
        nudge();
    }

    /**
     * Asks the next cycle to read every workload not ended again (not only what is new), and for that cycle at once:
     * after a cancellation through the API.
     */
    public void resync() {
        resyncRequested.set(true);
        nudge();
    }

    /** Ids of the workloads whose start waits for a fence, in the order they were decided. */
    public synchronized List<String> deferredLaunches() {
        return List.copyOf(books.deferred.keySet());
    }

    /** Workloads the core refused to take, with the reason. */
    public synchronized Map<String, String> refused() {
        return Map.copyOf(refused);
    }

    // ------------------------------------------------------------------ 1. load

    private boolean load(long now, long nowMillis) {
        List<Allocation> allocations = store.allocations().allocations();
        List<Node> nodes = store.nodes().nodes();
        if (allocations.isEmpty() || nodes.isEmpty()) {
            if (cycles == 0) {
                LOG.info("scheduling waits for the store to have nodes ({}) and allocations ({})", nodes.size(),
                        allocations.size());
            }
            cycles++;
            return false;
        }
        buildState(allocations, nodes, now);
        Map<String, Attempt> open = new HashMap<>();
        for (Attempt a : store.attempts().openAttempts()) {
            open.putIfAbsent(a.key().workloadId(), a);
        }
        brakes.refresh(nowMillis);
        for (Workload w : notEnded()) {
            lastSeq = Math.max(lastSeq, w.seq());
            if (w.state() == WorkloadState.RUNNING) {
                foundRunningAtLoad++;
                Attempt a = open.get(w.id());
                if (a == null) {
                    LOG.warn("workload {} is running in the store without an open attempt; left alone", w.id());
                } else {
                    adopt(w, a, now);
                }
            } else if (waitsForCore(w)) {
                admit(w, now);
            }
        }
        brakes.done();
        markHealth(nodes, now);
        lastFullSyncAt = now;
        LOG.info("scheduling loaded {}, {}, {} in the core; {} running before, {} of their attempts adopted",
                Words.count(nodes.size(), "node"), Words.count(allocations.size(), "allocation"),
                Words.count(active.size(), "workload"), Words.count(foundRunningAtLoad, "workload"),
                adoptedAtLoad);
        return true;
    }

    /** A fresh core state for this tree and these nodes, usage seeded from the store; the loop's node names. */
    private void buildState(List<Allocation> allocations, List<Node> nodes, long now) {
        state = CoreBuilder.build(store, allocations, nodes, config, now);
        protectionsSeen = state.protectionsEnded();
        topology = CoreBuilder.Topology.of(allocations, nodes);
        nodeNames = new ArrayList<>(nodes.size());
        sizes = new int[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            nodeNames.add(nodes.get(i).name());
            sizes[i] = nodes.get(i).gpus();
        }
        dirty = true;
    }

    /** Marks in the core the nodes whose health differs from the store's (work adopted on them then drains). */
    private void markHealth(List<Node> nodes, long now) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).healthy() != state.isHealthy(i)) {
                state.setHealthy(i, nodes.get(i).healthy(), now);
                LOG.info("node {} is {}{}", nodes.get(i).name(), nodes.get(i).healthy() ? "healthy" : "unhealthy",
                        nodes.get(i).reason() == null ? "" : ": " + nodes.get(i).reason());
                dirty = true;
            }
        }
        state.takeDrainNotices();
        tellBackendHealth(nodes);
    }

    /**
     * Mirrors node health in a backend that manages nodes (Slurm drains a node Allot found unhealthy, so that its own
     * tools show it and nothing else lands there). Asked once per change; a failed call is asked again at the next
     * read of the nodes. At load every node is told once (the backend leaves alone what is already so).
     */
    private void tellBackendHealth(List<Node> nodes) {
        for (Node n : nodes) {
            if (Boolean.valueOf(n.healthy()).equals(toldHealthy.get(n.name()))) {
                continue;
            }
            try {
                if (n.healthy()) {
                    backend.resume(n.name());
                } else {
                    backend.drain(n.name(), n.reason() == null ? "unhealthy" : n.reason());
                }
                toldHealthy.put(n.name(), n.healthy());
            } catch (BackendException e) {
                LOG.warn("could not {} node {} on the {} backend, trying again: {}", n.healthy() ? "resume" : "drain",
                        n.name(), backend.name(), e.getMessage());
                topologyHint.set(true);
            }
        }
    }

    /**
     * Takes in changes of the tree and the nodes made since the last cycle: a change of health is applied to the
     * core in place; any other change (a share, an allocation or a node added, a node's GPUs) rebuilds the core.
     */
    private void refreshTopology(long now) {
        if (!topologyHint.getAndSet(false) && now - lastTopologyReadAt < TOPOLOGY_REFRESH_SECONDS) {
            return;
        }
        lastTopologyReadAt = now;
        List<Allocation> allocations = store.allocations().allocations();
        List<Node> nodes = store.nodes().nodes();
        if (!CoreBuilder.Topology.of(allocations, nodes).equals(topology) && !allocations.isEmpty()) {
            rebuild(allocations, nodes, now, "the allocation tree or the nodes changed");
        }
        markHealth(nodes, now);
    }

    /**
     * Rebuilds the core on the store's current tree and nodes, keeping everything else: the window's usage is seeded
     * from the store again; every job the old core held is registered again (same spec); those running on a launched
     * attempt are resumed at the attempt's start (their protection unchanged); those whose start was deferred wait
     * again (the policy decides anew); attempts being stopped stay fenced. Workloads the old core refused are offered
     * again.
     */
    private void rebuild(List<Allocation> allocations, List<Node> nodes, long now, String why) {
        List<Job> before = new ArrayList<>(active.values());
        buildState(allocations, nodes, now);
        rebuilds++;
        Set<String> lost = new HashSet<>();
        for (LiveAttempt l : new ArrayList<>(books.live.values())) {
            LiveAttempt.Mapped m = LiveAttempt.map(l.where, nodeNames, sizes);
            if (m.ok()) {
                l.placement = m.placement();
                l.lanes = m.lanes();
                continue;
            }
            // Some of its GPUs are no longer the cluster's: it fences only those that remain while it stops.
            LiveAttempt.Mapped rest = LiveAttempt.remaining(l.where, nodeNames, sizes);
            l.placement = rest.placement();
            l.lanes = rest.lanes();
            if (l.stopping) {
                LOG.warn("attempt {}, being stopped, lost GPUs: {}", l.key, m.failure());
            } else {
                lose(l, "its GPUs are gone: " + m.failure());
                lost.add(l.jobId);
            }
        }
        active.clear();
        books.deferred.clear();
        for (Job old : before) {
            if (lost.contains(old.id()) && !requeuedWhenLost(old.id())) {
                continue; // ends with its attempt (failed in the store); the new core never runs it
            }
            Job job;
            try {
                job = state.register(old.spec());
            } catch (IllegalArgumentException e) {
                refused.put(old.id(), e.getMessage());
                LOG.warn("workload {} cannot be scheduled after the change: {}", old.id(), e.getMessage());
                AttemptKey key = books.runningAttempt.get(old.id());
                if (key != null) {
                    lose(books.live.get(key), "the cluster cannot hold it after the change: " + e.getMessage());
                }
                continue;
            }
            state.submit(job, now);
            AttemptKey key = books.runningAttempt.get(old.id());
            LiveAttempt l = key == null ? null : books.live.get(key);
            if (l != null && !l.stopping) {
                state.resume(job, l.placement, Math.min(l.startedAtSeconds, now), now);
            } else {
                books.runningAttempt.remove(old.id());
                if (lost.contains(old.id())) {
                    queuedSince.put(old.id(), now);
                }
            }
            active.put(job.id(), job);
        }
        for (String id : List.copyOf(refused.keySet())) {
            refused.remove(id);
            store.workloads().workload(id).filter(this::waitsForCore).ifPresent(w -> admit(w, now));
        }
        LOG.info("{}: the core was rebuilt with {}, {}, {}", why,
                Words.count(nodes.size(), "node"), Words.count(allocations.size(), "allocation"),
                Words.count(active.size(), "workload"));
    }

    /**
     * Stops a running attempt the cluster can no longer hold (its node lost the GPUs it runs on): it ends as lost
     * with this reason once the backend has stopped it, requeued or ended by the store's rule for lost work
     * ({@link AttemptOutcome#workloadState}); the core no longer runs it.
     */
    private void lose(LiveAttempt l, String reason) {
        LOG.atWarn().addKeyValue("attempt", l.key).log("attempt {} is stopped as lost: {}", l.key, reason);
        books.runningAttempt.remove(l.jobId);
        l.cause = null;
        l.lostReason = reason;
        dirty = true;
        requestStop(l);
    }

    /** Whether a workload whose attempt is lost waits again (the store's rule: resumable, no cancellation asked). */
    private boolean requeuedWhenLost(String workloadId) {
        Workload w = stored.get(workloadId);
        return w != null && AttemptOutcome.LOST.workloadState(w.resumable(), w.cancelRequested()).waiting();
    }

    /**
     * Adopts an attempt found open at load: the core runs its workload on its stored placement since the attempt's
     * start, the loop holds exactly its stored GPU indexes; a stopping one is moved on in the core at once and stays
     * fenced.
     */
    private void adopt(Workload w, Attempt a, long now) {
        LiveAttempt.Mapped m = LiveAttempt.map(a.placement(), nodeNames, sizes);
        if (!m.ok()) {
            adoptLost(w, a, m.failure(), now);
            return;
        }
        for (LiveAttempt other : books.live.values()) {
            if (other.overlaps(m.placement(), m.lanes())) {
                LOG.warn("open attempts {} and {} hold the same GPUs; {} not adopted", other.key, a.key(), a.key());
                return;
            }
        }
        Job job;
        try {
            job = state.register(CoreBuilder.spec(w, now));
        } catch (IllegalArgumentException e) {
            refused.put(w.id(), e.getMessage());
            LOG.warn("open attempt {} not adopted: the core cannot hold workload {}: {}", a.key(), w.id(), e.getMessage());
            return;
        }
        // A shard promoted in place is protected from its promotion, not its start.
        long startedAt = Math.min(now, Math.floorDiv(a.contractStartMillis(), 1000));
        state.submit(job, now);
        try {
            state.resume(job, m.placement(), startedAt, now);
        } catch (IllegalStateException e) {
            LOG.warn("open attempt {} not adopted: {}", a.key(), e.getMessage());
            state.cancel(job, now);
            return;
        }
        stored.put(job.id(), w);
        LiveAttempt l = new LiveAttempt(a.key(), job.id(), a.placement(), startedAt, m.placement(), m.lanes());
        l.attemptStartedAtMillis = a.startedAtMillis();
        l.markedRunning = a.phase() != AttemptPhase.LAUNCHING;
        l.adoptedUnseen = backend.workMayDieWithTheService();
        books.live.put(a.key(), l);
        adoptedAtLoad++;
        toReconcile.put(a.key(), a);
        if (a.phase() != AttemptPhase.STOPPING) {
            active.put(job.id(), job);
            books.runningAttempt.put(job.id(), a.key());
            return;
        }
        // Asked to stop before the restart: fenced until it ends; the stop is sent again (idempotent), with what is
        // left of its grace period.
        l.stopping = true;
        l.stopRequestedAtMillis = a.stopRequestedAtMillis() == null ? -1 : a.stopRequestedAtMillis();
        if (w.cancelRequested()) {
            l.cancelled = true;
            state.cancel(job, now);
        } else {
            l.result = state.preempt(job, now, restarts);
            if (!job.state().isFinal()) {
                active.put(job.id(), job);
                queuedSince.put(job.id(), now);
            }
        }
    }

    /**
     * Adopts an open attempt whose GPUs the cluster no longer has all of (its node shrank while the scheduler was
     * down) as being stopped as lost: it fences the GPUs that remain until it ends; its workload waits in the core if
     * the store's rule for lost work requeues it. One whose remaining GPUs clash with another's is left alone.
     */
    private void adoptLost(Workload w, Attempt a, String failure, long now) {
        LiveAttempt.Mapped rest = LiveAttempt.remaining(a.placement(), nodeNames, sizes);
        if (rest.placement() != null) {
            for (LiveAttempt other : books.live.values()) {
                if (other.overlaps(rest.placement(), rest.lanes())) {
                    LOG.warn("open attempts {} and {} hold the same GPUs; {} not adopted", other.key, a.key(), a.key());
                    return;
                }
            }
        }
        long startedAt = Math.min(now, Math.floorDiv(a.startedAtMillis(), 1000));
        LiveAttempt l = new LiveAttempt(a.key(), w.id(), a.placement(), startedAt, rest.placement(), rest.lanes());
        l.attemptStartedAtMillis = a.startedAtMillis();
        l.markedRunning = a.phase() != AttemptPhase.LAUNCHING;
        l.stopping = true;
        l.cancelled = w.cancelRequested();
        l.lostReason = "its GPUs are gone: " + failure;
        if (a.phase() == AttemptPhase.STOPPING && a.stopRequestedAtMillis() != null) {
            l.stopRequestedAtMillis = a.stopRequestedAtMillis();
        } else {
            l.stopRequestedAtMillis = now * 1000;
            store.attempts().markStopping(a.key(), l.stopRequestedAtMillis);
        }
        LOG.atWarn().addKeyValue("attempt", a.key()).log("open attempt {} is stopped as lost: {}", a.key(),
                l.lostReason);
        stored.put(w.id(), w);
        books.live.put(a.key(), l);
        adoptedAtLoad++;
        toReconcile.put(a.key(), a);
        if (requeuedWhenLost(w.id())) {
            try {
                Job job = state.register(CoreBuilder.spec(w, now));
                state.submit(job, now);
                active.put(job.id(), job);
                queuedSince.put(job.id(), now);
            } catch (IllegalArgumentException e) {
                refused.put(w.id(), e.getMessage());
                LOG.warn("workload {} cannot be scheduled: {}", w.id(), e.getMessage());
            }
        }
    }

    /**
     * Reconciles the attempts adopted at load with what the backend knows: those it does not know are launched
     * again with the same key (still launching) or ended as lost; the rest are left to {@link #observe}.
     */
    private void reconcile(long now, long nowMillis) {
        Set<AttemptKey> known = new HashSet<>();
        try {
            for (AttemptStatus st : backend.observe()) {
                known.add(st.attempt());
            }
        } catch (BackendException e) {
            LOG.warn("could not reconcile {} adopted attempts with the {} backend, trying again next cycle: {}",
                    toReconcile.size(), backend.name(), e.getMessage());
            return;
        }
        Map<AttemptKey, Attempt> todo = toReconcile;
        toReconcile = new LinkedHashMap<>();
        for (Attempt a : todo.values()) {
            LiveAttempt l = books.live.get(a.key());
            if (l == null || known.contains(a.key())) {
                continue;
            }
            if (a.phase() == AttemptPhase.LAUNCHING && l.stopping) {
                // Never started, and asked to stop since the load (reconciled late): it ended before it began.
                finish(l, new AttemptStatus(a.key(), AttemptStatus.Phase.NEVER_STARTED, null,
                        "never started on the backend"), now, nowMillis);
            } else if (a.phase() == AttemptPhase.LAUNCHING) {
                Workload w = stored.get(l.jobId);
                Job job = state.job(l.jobId).orElseThrow();
                Duration duration = w.durationSeconds() == null ? null : Duration.ofSeconds(job.remainingSeconds());
                try {
                    backend.start(launchOf(a.key(), a.placement(), w, duration, a.startedAtMillis()));
                    LOG.info("adopted attempt {} was never started on the {} backend; started it", a.key(),
                            backend.name());
                    starts++;
                } catch (BackendUnavailableException e) {
                    l.startUnconfirmed = true;
                    LOG.warn("could not tell whether the {} backend started adopted attempt {}; asking again next"
                            + " cycle: {}", backend.name(), a.key(), e.getMessage());
                } catch (BackendException e) {
                    end(l, AttemptOutcome.FAILED, "the " + backend.name() + " backend refused it: " + e.getMessage(),
                            null, null, now, nowMillis);
                }
            } else {
                end(l, AttemptOutcome.LOST, "the " + backend.name() + " backend did not know it after a restart",
                        null, null, now, nowMillis);
            }
        }
    }

    private boolean waitsForCore(Workload w) {
        return !w.cancelRequested() && (w.state() == WorkloadState.PENDING || w.state() == WorkloadState.REQUEUED
                || (restarts && w.state() == WorkloadState.PREEMPTED));
    }

    /** Every workload not ended, in seq order, page by page. */
    private List<Workload> notEnded() {
        List<Workload> all = new ArrayList<>();
        WorkloadFilter f = WorkloadFilter.all().withStates(WorkloadState.PENDING, WorkloadState.RUNNING,
                WorkloadState.PREEMPTED, WorkloadState.REQUEUED);
        while (true) {
            List<Workload> page = store.workloads().workloads(f);
            all.addAll(page);
            if (page.size() < f.limit()) {
                return all;
            }
            f = f.withAfterSeq(page.get(page.size() - 1).seq());
        }
    }

    /** Registers and submits a stored workload to the core. */
    private void admit(Workload w, long now) {
        if (brakes.check(w, now * 1000)) {
            return;
        }
        Job job;
        try {
            job = state.register(CoreBuilder.spec(w, now));
        } catch (IllegalArgumentException e) {
            if (refused.put(w.id(), e.getMessage()) == null) {
                LOG.warn("workload {} cannot be scheduled: {}", w.id(), e.getMessage());
            }
            return;
        }
        state.submit(job, now);
        active.put(job.id(), job);
        stored.put(job.id(), w);
        dirty = true;
        queuedSince.put(job.id(), job.spec().submitSeconds());
    }

    // ------------------------------------------------------------------ 2. observe

    private void observe(long now, long nowMillis) {
        for (LiveAttempt l : new ArrayList<>(books.live.values())) {
            if (l.startUnconfirmed) {
                retryStart(l, now, nowMillis);
            }
        }
        for (LiveAttempt l : books.live.values()) {
            if (l.stopping && !l.stopSent) {
                sendStop(l);
            }
        }
        List<AttemptStatus> statuses;
        try {
            statuses = new ArrayList<>(backend.observe());
        } catch (BackendException e) {
            LOG.warn("could not observe the {} backend: {}", backend.name(), e.getMessage());
            return;
        }
        statuses.sort(Comparator.comparing(AttemptStatus::attempt));
        for (AttemptStatus st : statuses) {
            LiveAttempt l = books.live.get(st.attempt());
            if (l == null) {
                continue;
            }
            if (st.phase() == AttemptStatus.Phase.RUNNING && !l.markedRunning) {
                store.attempts().markRunning(l.key);
                l.markedRunning = true;
            }
            if (st.ended()) {
                finish(l, st, now, nowMillis);
            } else if (st.phase() != AttemptStatus.Phase.UNKNOWN) {
                l.adoptedUnseen = false; // seen alive: from now on it ends on the service's watch
            }
        }
    }

    /**
     * Asks the backend again to start an attempt whose start it could not confirm. One asked to stop meanwhile is not
     * started again: the stop goes to the backend, which ends it either way (a backend that never started it reports
     * it stopped, see {@link Backend#stop}).
     */
    private void retryStart(LiveAttempt l, long now, long nowMillis) {
        if (l.stopping) {
            return;
        }
        Workload w = stored.get(l.jobId);
        if (w == null) {
            w = store.workloads().workload(l.jobId).orElse(null);
        }
        if (w == null) {
            return;
        }
        Duration duration = w.durationSeconds() == null ? null
                : state.job(l.jobId).map(j -> Duration.ofSeconds(j.remainingSeconds())).orElse(null);
        try {
            backend.start(launchOf(l.key, l.where, w, duration, l.attemptStartedAtMillis));
            l.startUnconfirmed = false;
            LOG.info("the {} backend confirmed the start of {}", backend.name(), l.key);
        } catch (BackendUnavailableException e) {
            LOG.warn("still cannot tell whether the {} backend started {}: {}", backend.name(), l.key, e.getMessage());
        } catch (BackendException e) {
            end(l, AttemptOutcome.FAILED, "the " + backend.name() + " backend refused it: " + e.getMessage(), null,
                    null, now, nowMillis);
        }
    }

    /** The launch of an attempt begun at {@code startedAtMillis} (its stored start), as the backend gets it. */
    private Launch launchOf(AttemptKey key, List<Launch.NodeGpus> where, Workload w, Duration duration,
                            long startedAtMillis) {
        AccountMap map = accounts;
        return new Launch(key, where, w.command(), campaigns.launchEnvironment(w), duration,
                Launch.Terms.of(w.minRuntimeSeconds(), w.resumable()), map == null ? null : map.accountOf(w.user()),
                startedAtMillis);
    }

    /**
     * Starts every later attempt as its submitter's Unix account through {@code map} (what a backend that switches
     * users needs); null, the default, starts them with no account (the backend's own user).
     */
    public void runAs(AccountMap map) {
        this.accounts = map;
    }

    /**
     * Records the end of an attempt in the store, then in the core, and lets the backend forget it. An attempt the
     * backend reports {@link AttemptStatus.Phase#NEVER_STARTED} (stopped before a start that never reached it) ends as
     * its stop says (cancelled, preempted, lost), with a reason saying it never started, however the loop came to stop
     * it: while its start was unconfirmed, or adopted after a restart and stopped before the backend was asked to start
     * it again. It threw no work away and is charged nothing: it ends at its own start ({@link #endNeverRan}).
     */
    private void finish(LiveAttempt l, AttemptStatus st, long now, long nowMillis) {
        boolean exitedOk = st.phase() == AttemptStatus.Phase.EXITED && Integer.valueOf(0).equals(st.exitCode());
        boolean neverRan = st.phase() == AttemptStatus.Phase.NEVER_STARTED;
        AttemptOutcome outcome;
        String reason;
        String preemptor = null;
        Double lost = null;
        // the backend's words, unless they only repeat the exit code the reason below states
        String detail = st.detail() == null || st.detail().equals("exited with code " + st.exitCode()) ? ""
                : " (" + st.detail() + ")";
        if (neverRan && !detail.contains("never started")) {
            detail = " (it never started on the " + backend.name() + " backend" + (st.detail() == null ? ""
                    : ": " + st.detail()) + ")";
        }
        if (exitedOk) {
            outcome = AttemptOutcome.COMPLETED;
            reason = "exited with code 0" + detail;
        } else if (l.stopping && l.cancelled) {
            // Asked to stop: however it ended (a process often exits non-zero on SIGTERM), the stop ended it.
            outcome = AttemptOutcome.CANCELLED;
            reason = "stopped: its cancellation was requested" + detail;
        } else if (l.lostReason != null) {
            outcome = AttemptOutcome.LOST;
            reason = l.lostReason + detail;
        } else if (l.stopping && l.result != null) {
            outcome = l.result.requeued() ? AttemptOutcome.REQUEUED : AttemptOutcome.PREEMPTED;
            reason = l.cause == null ? "stopped: it was being stopped when the scheduler restarted" + detail
                    : l.cause.explanation() + (l.startUnconfirmed || neverRan ? detail : "");
            preemptor = l.cause == null ? null : l.cause.preemptorId();
            lost = neverRan ? 0.0 : (double) l.result.lostGpuSeconds();
        } else if (neverRan) {
            outcome = AttemptOutcome.LOST;
            reason = "stopped before it started" + detail;
        } else if (st.phase() == AttemptStatus.Phase.STOPPED) {
            outcome = AttemptOutcome.LOST;
            reason = "stopped, but not by the scheduler" + detail;
        } else if (l.adoptedUnseen && DiedWhileDown.lostReason(st).isPresent()) {
            outcome = AttemptOutcome.LOST;
            reason = DiedWhileDown.lostReason(st).get() + detail;
        } else if (st.phase() == AttemptStatus.Phase.FAILED_TO_START) {
            outcome = AttemptOutcome.FAILED;
            reason = "failed to start" + detail;
        } else {
            outcome = AttemptOutcome.FAILED;
            reason = (st.exitCode() == null ? "exited with an unknown code" : "exited with code " + st.exitCode()) + detail;
        }
        end(l, outcome, reason, preemptor, lost, now, nowMillis, neverRan ? NEVER_RAN_ENDED_AT_MILLIS : nowMillis);
    }

    /** Ends an attempt in the store with the given outcome, lets the backend forget it, and brings the core along. */
    private void end(LiveAttempt l, AttemptOutcome outcome, String reason, String preemptor, Double lost, long now,
                     long nowMillis) {
        end(l, outcome, reason, preemptor, lost, now, nowMillis, nowMillis);
    }

    /** {@link #end}, recording the attempt's end at {@code endedAtMillis} in the store. */
    private void end(LiveAttempt l, AttemptOutcome outcome, String reason, String preemptor, Double lost, long now,
                     long nowMillis, long endedAtMillis) {
        // The policy hears of the end only if the core did not already count the attempt as over (an attempt being
        // stopped was preempted or cancelled in the core when the stop was asked; the simulator has no such end).
        dirty |= !l.stopping;
        Workload w;
        try {
            w = store.attempts().endAttempt(l.key, outcome, reason, preemptor, lost, endedAtMillis);
        } catch (ConflictException e) {
            LOG.warn("attempt {} had already ended otherwise: {}", l.key, e.getMessage());
            w = store.workloads().workload(l.jobId).orElseThrow();
        }
        books.live.remove(l.key);
        try {
            backend.forget(l.key);
        } catch (RuntimeException e) {
            LOG.warn("the {} backend could not forget {}: {}", backend.name(), l.key, e.getMessage());
        }
        observer.ended(l.jobId, w.allocationPath(), outcome);
        if (outcome == AttemptOutcome.COMPLETED) {
            completions++;
        } else if (outcome == AttemptOutcome.FAILED) {
            failures++;
        }
        Job job = state.job(l.jobId).orElse(null);
        if (job == null) {
            // Not in the core (lost when the core was rebuilt, and not to run again): the store's word is all.
            active.remove(l.jobId);
            return;
        }
        if (!l.stopping) {
            // The core still runs the job on this attempt.
            books.runningAttempt.remove(l.jobId);
            switch (outcome) {
                case COMPLETED -> state.complete(job, now);
                case LOST -> {
                    if (w.state().waiting()) {
                        state.preempt(job, now, true);
                        queuedSince.put(job.id(), now);
                    } else {
                        state.cancel(job, now);
                    }
                }
                default -> state.cancel(job, now);
            }
        } else if (w.state().ended() && !job.state().isFinal()) {
            // The core had moved it on (requeued, maybe started again behind a fence) but it ended for good: it
            // finished in its grace period, or its cancellation was requested while it was being preempted.
            books.deferred.remove(l.jobId);
            state.cancel(job, now);
            dirty = true;
        }
        if (!job.state().isFinal() && brakes.checkAfterRequeue(w, nowMillis)) {
            hold(job, now);
        }
        if (job.state().isFinal()) {
            active.remove(job.id());
        }
    }

    private void sendStop(LiveAttempt l) {
        try {
            Duration left = grace;
            if (l.stopRequestedAtMillis >= 0) {
                // After a restart, only what is left of the grace period the first request gave.
                long spent = Math.max(0, clock.millis() - l.stopRequestedAtMillis);
                left = grace.minusMillis(Math.min(spent, grace.toMillis()));
            }
            backend.stop(l.key, left, l.cancelled ? "cancelled"
                    : l.cause != null && l.cause.preemptorId() != null ? "preempted by " + l.cause.preemptorId()
                    : l.cause != null ? "stopped: " + l.cause.kind().name().toLowerCase(java.util.Locale.ROOT) : null);
            l.stopSent = true;
            stopsThisCycle = true;
        } catch (BackendException e) {
            LOG.warn("could not stop {} on the {} backend, trying again next cycle: {}", l.key, backend.name(),
                    e.getMessage());
        }
    }

    private void requestStop(LiveAttempt l) {
        l.stopping = true;
        l.stopRequestedAtMillis = clock.millis();
        store.attempts().markStopping(l.key, l.stopRequestedAtMillis);
        sendStop(l);
    }

    // ------------------------------------------------------------------ 3. launches, submissions, cancellations

    private void launchDeferred(long now, long nowMillis) {
        for (Books.Deferred d : new ArrayList<>(books.deferred.values())) {
            if (books.fenceCleared(d)) {
                books.deferred.remove(d.job().id());
                launch(d.job(), d.placement(), d.lanes(), now, nowMillis, true);
            }
        }
    }

    /**
     * Takes in what the store says of the workloads. Each cycle reads only what is new: submissions after the last
     * one seen, and running workloads whose cancellation was requested. A workload cancelled while it waited is ended
     * in the store at once (it never shows as cancelling), so the whole list of workloads not ended is read again
     * after {@link #resync()} (the API calls it on every cancellation) and every {@link #FULL_SYNC_SECONDS} in case a
     * hint was lost.
     */
    private void syncWorkloads(long now) {
        if (resyncRequested.getAndSet(false) || now - lastFullSyncAt >= FULL_SYNC_SECONDS) {
            fullSync(now);
            lastFullSyncAt = now;
            return;
        }
        WorkloadFilter f = WorkloadFilter.all().withAfterSeq(lastSeq);
        while (true) {
            List<Workload> page = store.workloads().workloads(f);
            for (Workload w : page) {
                takeIn(w, now);
            }
            if (page.size() < f.limit()) {
                break;
            }
            f = f.withAfterSeq(page.get(page.size() - 1).seq());
        }
        for (String id : store.workloads().cancellingIds()) {
            Job job = active.get(id);
            if (job != null) {
                cancel(job, now);
            }
        }
    }

    /** A workload submitted after the last one seen: admitted if it waits. */
    private void takeIn(Workload w, long now) {
        if (w.seq() <= lastSeq) {
            return;
        }
        lastSeq = w.seq();
        if (waitsForCore(w)) {
            admit(w, now);
        } else if (!w.state().ended()) {
            LOG.warn("new workload {} is {} and not waiting; left alone", w.id(), w.state().label());
        }
    }

    private void fullSync(long now) {
        List<Workload> all = notEnded();
        brakes.refresh(now * 1000);
        Map<String, Workload> byId = new HashMap<>();
        for (Workload w : all) {
            byId.put(w.id(), w);
            if (w.seq() > lastSeq) {
                lastSeq = w.seq();
                if (waitsForCore(w)) {
                    admit(w, now);
                } else {
                    LOG.warn("new workload {} is {} and not waiting; left alone", w.id(), w.state().label());
                }
            }
        }
        for (Job job : new ArrayList<>(active.values())) {
            Workload w = byId.get(job.id());
            if (w == null || w.cancelRequested()) {
                cancel(job, now);
            }
        }
        applyBrakes(all, now);
        brakes.done();
    }

    /**
     * The brakes on every waiting workload, on a full sync (so after a change of the limits): one queued that now
     * trips a brake is held; one held that no longer does is released and admitted again (after a rebuild of the
     * core when the core still knows its id, which it does when it was held after a requeue).
     */
    private void applyBrakes(List<Workload> all, long now) {
        List<String> released = new ArrayList<>();
        for (Workload w : all) {
            if (!waitsForCore(w)) {
                continue;
            }
            Job job = active.get(w.id());
            if (job == null) {
                if (w.held() && !refused.containsKey(w.id()) && !brakes.check(w, now * 1000)) {
                    released.add(w.id());
                }
            } else if (job.state() == JobState.PENDING && brakes.check(w, now * 1000)) {
                hold(job, now);
            }
        }
        if (released.isEmpty()) {
            return;
        }
        if (released.stream().anyMatch(id -> state.job(id).isPresent())) {
            rebuild(store.allocations().allocations(), store.nodes().nodes(), now, "held workloads were released");
        }
        for (String id : released) {
            store.workloads().workload(id).filter(this::waitsForCore).ifPresent(w -> admit(w, now));
        }
    }

    /** Takes a job held by a brake out of the core (the store keeps it waiting, with the reason). */
    private void hold(Job job, long now) {
        dirty = true;
        books.deferred.remove(job.id());
        if (!job.state().isFinal()) {
            state.cancel(job, now);
        }
        active.remove(job.id());
        queuedSince.remove(job.id());
    }

    /** A cancellation the store has recorded: in the core at once; a launched attempt is stopped. */
    void cancel(Job job, long now) {
        dirty = true;
        if (job.state() == JobState.RUNNING) {
            AttemptKey key = books.runningAttempt.remove(job.id());
            if (key != null) {
                LiveAttempt l = books.live.get(key);
                l.cancelled = true;
                requestStop(l);
            } else {
                books.deferred.remove(job.id());
            }
        }
        state.cancel(job, now);
        active.remove(job.id());
        queuedSince.remove(job.id());
        cancellations++;
    }

    // ------------------------------------------------------------------ 4. decide

    /**
     * Whether the policy is to be asked now, by the simulator's rules: something changed since it was last asked, a
     * wake-up it asked for has come, or a protection ran out. Takes the wake-ups that have come.
     */
    private boolean decisionDue(long now) {
        boolean woken = wakeUps.takeDue(now);
        return dirty | woken || state.protectionsEnded() != protectionsSeen;
    }

    /**
     * The earliest wake-up the policy asked for that has not come ({@link Plan#NO_WAKE_UP} if none): when the loop
     * decides next if nothing else happens before (a protection running out aside). For a driver that moves the
     * clock from event to event (a replay).
     */
    public synchronized long nextWakeUpSeconds() {
        return wakeUps.nextWakeUpSeconds();
    }

    /** One decision instant ({@link DecisionLoop#decide}): the policy's rounds, carried out in order. */
    private void decide(long now, long nowMillis) {
        dirty = false;
        long[] nanos = {0};
        DecisionLoop.Outcome outcome = DecisionLoop.decide(policy, state, now, new DecisionLoop.Driver() {
            @Override
            public Plan ask(Policy p, ClusterState s, long nowSeconds) {
                long t0 = System.nanoTime();
                Plan plan = p.schedule(s, nowSeconds);
                nanos[0] += System.nanoTime() - t0;
                return plan;
            }

            @Override
            public boolean carryOut(Decision d) {
                return SchedulerLoop.this.carryOut(d, now, nowMillis);
            }

            @Override
            public void afterRound() {
                for (int node : state.takeDrainNotices()) {
                    LOG.info("node {} is drained", nodeNames.get(node));
                }
            }
        });
        wakeUps.requestWakeUp(outcome.wakeAtSeconds(), now);
        lastDecisionNanos = nanos[0];
        protectionsSeen = state.protectionsEnded();
        decisions++;
        observer.cycle(nanos[0], state.pending().total(), state.runningCount());
    }

    /** Carries out one decision; returns whether it sent a job back to the queue. */
    private boolean carryOut(Decision d, long now, long nowMillis) {
        Job job = d.job();
        if (d instanceof Decision.Preempt p) {
            AttemptKey key = books.runningAttempt.remove(job.id());
            LiveAttempt l = key == null ? null : books.live.get(key);
            if (l != null) {
                l.cause = p.cause();
                requestStop(l);
            }
            Books.Deferred was = books.deferred.remove(job.id());
            ClusterState.PreemptionResult r = state.preempt(job, now, restarts);
            if (l != null) {
                l.result = r;
            } else if (was != null && !r.requeued()) {
                // Never launched, but the core ended it: the store must not keep it waiting.
                store.workloads().workload(job.id()).filter(w -> w.state().waiting())
                        .ifPresent(w -> store.workloads().setState(job.id(), w.state(), WorkloadState.PREEMPTED));
            }
            preemptions++;
            if (r.requeued()) {
                queuedSince.put(job.id(), now);
            }
            observer.preempted(job.id(), job.spec().allocation(), p.cause(), r.lostGpuSeconds());
            if (job.state().isFinal()) {
                active.remove(job.id());
            }
            return r.requeued();
        }
        Decision.Start s = (Decision.Start) d;
        GpuLanes.Choice lanes = books.chooseLanes(s.placement(), sizes);
        boolean ownOpen = books.live.values().stream().anyMatch(l -> l.jobId.equals(job.id()));
        if (lanes.fenced() || ownOpen) {
            state.start(job, s.placement(), now);
            books.deferred.put(job.id(), new Books.Deferred(job, s.placement(), lanes));
            deferrals++;
            return false;
        }
        launch(job, s.placement(), lanes, now, nowMillis, false);
        return false;
    }

    /**
     * Begins the attempt in the store (durable before the backend hears of it), starts it on the backend and, unless
     * the core already counts it as running (a deferred start), starts it in the core.
     */
    private void launch(Job job, Placement placement, GpuLanes.Choice lanes, long now, long nowMillis, boolean inCore) {
        List<Launch.NodeGpus> where = lanes.nodeGpus(placement, nodeNames);
        AttemptKey key;
        try {
            key = store.attempts().beginAttempt(job.id(), where, nowMillis);
        } catch (ConflictException | NotFoundException e) {
            // Cancelled (or removed) between the store's answer and now: the core lets it go too.
            LOG.info("workload {} was not started: {}", job.id(), e.getMessage());
            dirty = true;
            state.cancel(job, now);
            active.remove(job.id());
            cancellations++;
            return;
        }
        Workload w = stored.get(job.id());
        Duration duration = w.durationSeconds() == null ? null : Duration.ofSeconds(job.remainingSeconds());
        LiveAttempt l = new LiveAttempt(key, job.id(), where, now, placement, lanes.lanes());
        l.attemptStartedAtMillis = nowMillis;
        books.live.put(key, l);
        try {
            backend.start(launchOf(key, where, w, duration, nowMillis));
        } catch (BackendUnavailableException e) {
            // Not known to have started nor to have been refused: the attempt stays launching (it holds its GPUs) and
            // the start is asked again next cycle; the backend's start is idempotent, so this never runs it twice.
            l.startUnconfirmed = true;
            LOG.warn("could not tell whether the {} backend started {}; asking again next cycle: {}", backend.name(),
                    key, e.getMessage());
        } catch (BackendException e) {
            books.live.remove(key);
            store.attempts().endAttempt(key, AttemptOutcome.FAILED, "the " + backend.name()
                    + " backend refused it: " + e.getMessage(), null, null, nowMillis);
            dirty = true;
            state.cancel(job, now);
            active.remove(job.id());
            failures++;
            return;
        }
        if (!inCore) {
            state.start(job, placement, now);
        }
        books.runningAttempt.put(job.id(), key);
        starts++;
        Long since = queuedSince.remove(job.id());
        observer.started(job.id(), job.spec().allocation(), since == null ? 0 : Math.max(0, now - since));
    }

    /** Checks the loop's books against the core (see {@link Books#check}). For tests. */
    synchronized void checkBooks() {
        if (state != null) {
            books.check(state, sizes, nodeNames);
        }
    }
}
