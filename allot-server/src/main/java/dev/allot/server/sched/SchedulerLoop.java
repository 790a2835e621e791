package dev.allot.server.sched;

import dev.allot.core.backend.Backend;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.DecisionLoop;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.identity.AccountMap;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;

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
 *       and one allocation), admit the waiting workloads and adopt the attempts found open (see {@link Adoption}),
 *       then reconcile them with the backend; on later cycles, take in changes of the tree and the nodes (see
 *       {@link TopologyChanges});</li>
 *   <li>observe the backend: every ended attempt the loop started is ended in the store and in the core, then
 *       forgotten by the backend;</li>
 *   <li>launch the deferred starts whose fences have cleared (a start waits while its GPUs are held by a stopping
 *       attempt: see {@link Carrier});</li>
 *   <li>take one step of every running campaign ({@link dev.allot.server.campaign.CampaignController}: its shards'
 *       workloads queued, retiered, promoted in place), then take in new submissions and cancellations from the
 *       store;</li>
 *   <li>if something changed since the policy was last asked, or a wake-up the policy asked for has come, or a
 *       protection has run out: ask the policy and carry out its decisions in order, deciding again at once while a
 *       plan requeued work ({@link DecisionLoop}, the loop the simulator runs, with its bound and its rules for
 *       wake-ups, so that the service decides when the simulator would), at the clock read again once the steps
 *       above have seen the backend and the store: a start is stamped, and counted from its second, no earlier than
 *       the end or the submission it was decided on (with {@link #settleEnds}, a cycle that found ends leaves this
 *       to the next, so that ends the backend reports a listing apart are decided on together);</li>
 *   <li>if anything was asked to stop, observe once more, so that work a backend stops at once makes room in the same
 *       cycle.</li>
 * </ol>
 * {@link #nudge()} asks for a cycle at once (the API calls it after every change, the backend when it notices that
 * an attempt ended: {@link Backend#onEnd}), so a submission, or a start waiting for a stopped attempt's GPUs, does not
 * wait for the next tick.
 *
 * <p><b>Not yet.</b> Progress of resumable work from earlier attempts is not known
 * to a rebuilt or restarted core (it counts the whole duration again; only the policy's estimates use it). A store failure in the middle of a
 * cycle leaves the loop's books and the core out of step (the cure is restart adoption). An attempt the backend
 * stops reporting altogether keeps its GPUs fenced.
 *
 * <p><b>Where things are.</b> This class is the cycle and the API; each idea of the cycle is its own class, all
 * working on one shared {@link LoopCore} (the core's state, the books, the counters): {@link Adoption} (load, adoption,
 * reconciliation), {@link TopologyChanges} (changes of the tree and the nodes, rebuilds), {@link Intake}
 * (submissions, cancellations, the brakes), {@link Decider} (when and how the policy is asked) and {@link Carrier} (launches, deferred starts and
 * their fences, stops, observation of the backend, the ends of attempts). With several instances ({@link #lead}),
 * {@link Leadership} says whether this one acts; while it stands by, a {@link Follower} keeps a view of the leader's
 * state from the store ({@link #follow}), which {@link #inspect} reads, so that a standby explains and forecasts too.
 * Around the cycle: {@link LoopThread} runs cycles on the service's thread, by the tick and when nudged;
 * {@link PendingPolicy} hands new policy settings from the API to the next cycle; a {@link LoopObserver} hears what
 * the loop does, for metrics and logs.
 *
 * <p><b>Threads: reads never wait for the backend.</b> Two locks. The loop's monitor is held for a whole cycle
 * ({@link #runOnce}), so the service's thread ({@link #start}) and a caller never run two cycles at once. The
 * {@link StateLock} guards the loop's state, and is what the API's reads take ({@link #inspect},
 * {@link #inspectDecided}, {@link #view}, {@link #counters}, ...): a cycle holds it while it works on the state, and
 * gives it up around every call to the backend ({@link UnlockedBackend}), which may take seconds or a minute (Slurm's
 * commands while {@code slurmctld} is down). So a read answers from the state the cycle published at its last
 * backend call (before a listing, as the last cycle left it; while starts and stops are sent, with their decision
 * taken and recorded), or at its end, and waits at most for a cycle's work in memory and in the store, never for the
 * backend. Nothing changes the state while the
 * cycle waits for the backend: the API's writes go to the store and nudge the loop, and what must reach the core
 * from the API ({@link #progressReported}, new policy settings) is handed to the next cycle; so deciding and carrying
 * out stay one thread's work on one state, as in the simulator.
 */
public final class SchedulerLoop implements AutoCloseable {
    /** How long a stopped attempt may take to end before the backend forces it. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);
    /**
     * Decision instants in one cycle: after a decision, a protection that ran out at once (a minimum runtime of 0)
     * is something new for the policy, as the simulator's protection-end event at the same instant is (a guard).
     */
    static final int MAX_INSTANTS_PER_CYCLE = 16;
    /**
     * How often the brakes' limits are read again without a hint ({@link #brakesChanged()}): a change made through
     * another instance's API (see {@link Intake}).
     */
    static final long BRAKES_REFRESH_SECONDS = 30;
    /** How often the tree and the nodes are read again without a hint ({@link #topologyChanged()}). */
    static final long TOPOLOGY_REFRESH_SECONDS = 5;
    /**
     * When an attempt that never ran is recorded as ended: before any start, which
     * {@link dev.allot.server.store.Attempts#endAttempt} records as the attempt's own start, so it has no run to charge
     * (allocated or not) and no GPU time it never had.
     */
    static final long NEVER_RAN_ENDED_AT_MILLIS = Long.MIN_VALUE;

    /** What the parts share: the store, the backend, the policy, the core's state, the books, the counters. */
    final LoopCore c;
    /** Over {@link #c} and the standby's view: taken by reads, held by a cycle except while it calls the backend. */
    private final StateLock state = new StateLock();
    /** The backend as given (the loop's parts call it through {@link UnlockedBackend}). */
    private final Backend backend;
    /** Policy settings handed in by {@link #usePolicy}, taken at the start of the next cycle. */
    private final PendingPolicy nextPolicy = new PendingPolicy();
    private final CycleHealth health = new CycleHealth();
    /** The thread the service runs cycles on ({@link #start}), and the nudges. */
    private final LoopThread loopThread = new LoopThread(this::runOnce, health);
    /** Whether a cycle that saw ends waits for the next before deciding (off unless {@link #settleEnds}). */
    private volatile EndSettling endSettling = new EndSettling(Duration.ZERO);
    /** Whether this instance acts, at which term, and its view of the leader's state while it stands by. */
    private final Terms terms;

    /** What the loop has done so far, for tests and metrics. */
    public record Counters(long cycles, long starts, long deferrals, long preemptions, long completions, long failures,
                           long cancellations, long lastDecisionNanos, int foundRunningAtLoad, int adoptedAtLoad,
                           long decisions, long rebuilds) {
    }

    public SchedulerLoop(Store store, Backend backend, Policy policy, SchedulerConfig config, Clock clock, Duration grace) {
        Objects.requireNonNull(grace, "grace");
        if (grace.isNegative()) {
            throw new IllegalArgumentException("the grace period must not be negative, got " + grace);
        }
        this.backend = Objects.requireNonNull(backend, "backend");
        this.c = new LoopCore(Objects.requireNonNull(store, "store"), new UnlockedBackend(backend, state),
                Objects.requireNonNull(policy, "policy"), Objects.requireNonNull(config, "config"),
                Objects.requireNonNull(clock, "clock"), grace);
        c.adoption = new Adoption(c);
        c.changes = new TopologyChanges(c);
        c.intake = new Intake(c);
        c.decider = new Decider(c);
        c.carrier = new Carrier(c);
        c.staleStarts = new StaleStarts(c);
        this.terms = new Terms(c, () -> {
            if (backend instanceof LeaderOnlyBackend b) {
                state.outside(b::endTerm); // closing a term's backend may wait for its commands: not the reads
            }
        });
        c.brakes = new Brakes(store);
        c.campaigns = new dev.allot.server.campaign.CampaignController(store, new LoopCampaigns(c), clock);
        backend.onEnd(this::nudge); // an attempt that ended makes room now, not at the next tick
    }

    public SchedulerLoop(Store store, Backend backend, Policy policy, SchedulerConfig config, Clock clock) {
        this(store, backend, policy, config, clock, DEFAULT_GRACE);
    }

    // ------------------------------------------------------------------ running

    /**
     * After a cycle sees work end, the policy is asked only by a later cycle that sees no further end, or once
     * {@code settle} has passed since the first of those ends ({@link EndSettling}); zero (the default) asks at once.
     * Set before {@link #start}.
     */
    public void settleEnds(Duration settle) {
        endSettling = new EndSettling(Objects.requireNonNull(settle, "settle"));
    }

    /**
     * Runs cycles on one daemon thread, {@code tick} apart (from the end of one to the start of the next); a cycle
     * that fails is logged and tried again next tick ({@link LoopThread}).
     */
    public synchronized void start(Duration tick) {
        loopThread.start(tick);
    }

    /**
     * Asks for a cycle as soon as possible on the loop's thread (after a submission, a cancellation or an edit), so
     * that work does not wait for the next tick. Nudges while one is pending are merged; without {@link #start} it
     * does nothing. Under a stream of submissions, nudged cycles come at most every
     * {@link LoopThread#MIN_NUDGE_GAP_NANOS} apart, so that the loop takes them in by the batch instead of reading the
     * store once per submission. Never waits for a cycle in progress.
     */
    public void nudge() {
        loopThread.nudge();
    }

    /** Stops the thread started by {@link #start}, waiting a little for a cycle in progress. */
    @Override
    public void close() {
        loopThread.stopping();
        ScheduledExecutorService t;
        synchronized (this) {
            t = loopThread.detach();
        }
        dev.allot.server.Daemons.stop(t, Duration.ofSeconds(10), "the scheduling thread");
        if (backend instanceof LeaderOnlyBackend b) {
            b.endTerm(); // the backend of the term closes with the loop (its work keeps running)
        }
    }

    /**
     * One cycle; see the class notes. A cycle that throws is recorded in {@link #health()} (and rethrown); the next
     * that succeeds clears it. It holds the state's lock except while it calls the backend.
     */
    public synchronized void runOnce() {
        long startNanos = System.nanoTime();
        state.lock();
        try {
            cycle();
        } catch (dev.allot.server.store.FencedException e) {
            // Another instance took over between the leadership check and this write: nothing was written.
            terms.fenced(e.getMessage());
            return;
        } catch (RuntimeException | Error e) {
            health.failed(e, c.clock.millis());
            throw e;
        } finally {
            state.unlock();
        }
        health.succeeded();
        if (c.state != null) {
            c.observer.cycleEnded(System.nanoTime() - startNanos);
        }
    }

    /** Whether the last cycles failed, and why; read without waiting for a cycle. */
    public CycleHealth health() {
        return health;
    }

    /** Whether the backend could be observed lately; read without waiting for a cycle. */
    public BackendSight backendSight() {
        return c.sight;
    }

    /** The backend's name ({@code local}, {@code slurm}, ...). */
    public String backendName() {
        return c.backend.name();
    }

    /**
     * Runs the loop under {@code l}: a cycle acts only while this instance may act ({@link Leadership#actingEpoch});
     * when the epoch changes the loop forgets what it loaded and, leading again, loads and adopts as a restart does.
     * The loop's store must be fenced by the same leadership, and its backend guarded by it
     * ({@link LeaderOnlyBackend}).
     */
    public synchronized void lead(Leadership l) {
        state.holding(() -> terms.lead(l));
        l.onGain(this::nudge);
    }

    /**
     * Runs {@code r} as each term of leadership ({@link #lead}) begins, on the loop's thread, before the term loads the
     * store (the service registers its own node there: a standby must not change the node under the leader's work).
     */
    public synchronized void atTermStart(Runnable r) {
        state.holding(() -> terms.atTermStart(r));
    }

    /**
     * While this instance stands by, keeps a view of the scheduler that follows {@code readOnly} (the loop's store as
     * a read-only view: {@link Store#readOnly}), so that explanations, the queue and forecasts are answered here too
     * ({@link Follower}); the view never writes, calls the backend or decides. Without it a standby has no view.
     */
    public synchronized void follow(Store readOnly) {
        state.holding(() -> terms.follow(readOnly));
    }

    /**
     * Where {@link #inspect} reads from now: the leader's state (also the only instance's), or a standby's view of
     * it; {@code asOfMillis} is when it was last brought up to date with the store.
     */
    public record View(boolean standby, long asOfMillis) {
    }

    /** The view {@link #inspect} reads now; empty until one has loaded. Never waits for the backend. */
    public java.util.Optional<View> view() {
        return state.read(() -> {
            LoopCore v = terms.viewed();
            return v.state == null ? java.util.Optional.<View>empty()
                    : java.util.Optional.of(new View(v.following, v.syncedAtMillis));
        });
    }

    /**
     * Why the scheduler has not loaded the store, when that is because the store has no node or no allocation
     * ({@link Adoption#awaiting}); empty once it has loaded, and before its first cycle. Never waits for the backend.
     */
    public java.util.Optional<String> awaiting() {
        return state.read(() -> {
            LoopCore v = terms.viewed();
            return v.state != null ? java.util.Optional.<String>empty() : java.util.Optional.ofNullable(v.awaiting);
        });
    }

    /** Who leads, as this instance knows it; empty without {@link #lead} (the only instance: it always leads). */
    public java.util.Optional<Leadership.Status> leadership() {
        Leadership l = terms.leadership();
        return l == null ? java.util.Optional.empty() : java.util.Optional.of(l.status());
    }

    private void cycle() {
        takeProgressReports();
        if (!terms.acts(() -> nextPolicy.takeInto(c))) {
            return;
        }
        long nowMillis = c.clock.millis();
        long now = Math.max(c.lastNowSeconds, Math.floorDiv(nowMillis, 1000));
        c.lastNowSeconds = now;
        boolean newPolicy = nextPolicy.takeInto(c);
        if (c.state == null) {
            if (!c.adoption.load(now, nowMillis)) {
                return;
            }
        } else {
            c.state.advanceTo(now);
            if (newPolicy) {
                List<Allocation> allocations = c.store.allocations().allocations();
                if (!allocations.isEmpty()) {
                    c.changes.rebuild(allocations, c.store.nodes().nodes(), now, "the policy settings changed");
                }
            }
            c.changes.refreshTopology(now);
        }
        c.state.advanceTo(now);
        c.stopsThisCycle = false;
        if (!c.toReconcile.isEmpty()) {
            c.adoption.reconcile(now, nowMillis);
        }
        int ends = c.carrier.observe(now, nowMillis);
        c.carrier.launchDeferred(now, nowMillis);
        c.campaigns.step(now, nowMillis);
        c.intake.syncWorkloads(now);
        // Decide at the clock as it is now, after the ends and submissions above were seen: the cycle's start may be
        // a second before them (the backend's listing and the store take time), and a start decided on an end or a
        // submission must not count from before it (its minimum runtime, its charge, ALLOT_ATTEMPT_STARTED_AT).
        long decidedAtMillis = c.clock.millis();
        if (decidedAtMillis > nowMillis) {
            nowMillis = decidedAtMillis;
            now = Math.max(now, Math.floorDiv(decidedAtMillis, 1000));
            c.lastNowSeconds = now;
            c.state.advanceTo(now);
        }
        boolean settling = endSettling.holds(ends, nowMillis); // the next cycle decides
        for (int i = 0; !settling && i < MAX_INSTANTS_PER_CYCLE && c.decider.decisionDue(now); i++) {
            c.decider.decide(now, nowMillis);
            c.state.advanceTo(now); // ends the protections that ran out at once
        }
        if (c.stopsThisCycle) {
            c.carrier.observe(now, nowMillis);
            c.carrier.launchDeferred(now, nowMillis);
        }
        c.cycles++;
        c.syncedAtMillis = nowMillis;
    }

    /**
     * Runs this policy with these shared settings from the next cycle on (an administrator changed them): the core is
     * rebuilt the way a change of the tree rebuilds it (its window's usage seeded again from the store with the new
     * lookback and bucket), and the policy is asked at once. Does not wait for a cycle in progress.
     */
    public void usePolicy(Policy newPolicy, SchedulerConfig newConfig) {
        nextPolicy.offer(newPolicy, newConfig);
        nudge();
    }

    /** What the loop has done so far; never waits for the backend. */
    public Counters counters() {
        return state.read(() -> new Counters(c.cycles, c.starts, c.deferrals, c.preemptions, c.completions, c.failures,
                c.cancellations, c.lastDecisionNanos, c.foundRunningAtLoad, c.adoptedAtLoad, c.decisions, c.rebuilds));
    }

    /** The campaigns the loop runs a step of every cycle (for the service to give them its identity gate). */
    public dev.allot.server.campaign.CampaignController campaigns() {
        return c.campaigns;
    }

    /** Sets who hears what the loop does (replacing the previous one). */
    public void observe(LoopObserver o) {
        c.observer = Objects.requireNonNull(o, "observer");
    }

    /**
     * Reads the core's state as the loop last published it, for explanations and metrics: between cycles, or while a
     * cycle waits for the backend (see the class notes; it never waits for the backend). {@code reader} gets the state
     * and the time of the cycle (seconds since the epoch) and must not change the state. Empty until the first cycle
     * has loaded the store. While this instance stands by, the state read is its view of the leader's
     * ({@link #follow}; {@link #view} says which and how old), empty without one.
     */
    public <T> java.util.Optional<T> inspect(java.util.function.BiFunction<ClusterState, Long, T> reader) {
        return state.read(() -> {
            LoopCore v = terms.viewed();
            if (v.state == null) {
                return java.util.Optional.<T>empty();
            }
            return java.util.Optional.ofNullable(reader.apply(v.state, v.lastNowSeconds));
        });
    }

    /**
     * {@link #inspect}, with the policy that decides the state read: the one the cycles run (on a standby, the
     * leader's as this instance knows it). Explanations ask it, never a policy of default settings, so that what they
     * say is the rule in force.
     */
    public <T> java.util.Optional<T> inspectDecided(java.util.function.BiFunction<ClusterState, Policy, T> reader) {
        return state.read(() -> {
            LoopCore v = terms.viewed();
            if (v.state == null) {
                return java.util.Optional.<T>empty();
            }
            return java.util.Optional.ofNullable(reader.apply(v.state, v.policy));
        });
    }

    /**
     * A running workload reported progress: the core counts its work up to the last cycle as kept if it is preempted
     * later in this attempt (the rule is the core's, {@code Job#progressKeptIfPreemptedAt}). Not kept across a
     * rebuild of the core. Handed to the next cycle, which takes it in before it moves the core's clock (a write that
     * never waits for a cycle, nor for the backend).
     */
    public void progressReported(String workloadId) {
        c.progressReports.add(Objects.requireNonNull(workloadId, "workloadId"));
    }

    /** Takes in the progress reports handed over since the last cycle, as of the core's time (the last cycle's). */
    private void takeProgressReports() {
        for (String id; (id = c.progressReports.poll()) != null; ) {
            if (c.state == null) {
                continue;
            }
            c.state.job(id).filter(j -> j.state() == JobState.RUNNING && !j.awaitingLaunch()
                    && c.state.now() >= j.attemptStartSeconds()).ifPresent(j -> c.state.recordProgress(j, c.state.now()));
        }
    }

    /**
     * Asks the next cycle to read the tree and the nodes again (after an edit through the API, or a health change),
     * and for that cycle soon. Without a hint they are read every {@link #TOPOLOGY_REFRESH_SECONDS}.
     */
    public void topologyChanged() {
        c.topologyHint.set(true);
        nudge();
    }

    /**
     * Asks the next cycle to check the safety brakes again on every waiting workload (their limits changed through the
     * API), and for that cycle at once. Without a hint the limits are read every {@link #BRAKES_REFRESH_SECONDS}.
     */
    public void brakesChanged() {
        c.brakesHint.set(true);
        nudge();
    }

    /** Ids of the workloads whose start waits for a fence, in the order they were decided. */
    public List<String> deferredLaunches() {
        return state.read(() -> List.copyOf(c.books.deferred.keySet()));
    }

    /** Workloads the core refused to take, with the reason. */
    public Map<String, String> refused() {
        return state.read(() -> Map.copyOf(c.refused));
    }

    /**
     * The earliest wake-up the policy asked for that has not come ({@link Plan#NO_WAKE_UP} if none): when the loop
     * decides next if nothing else happens before (a protection running out aside). For a driver that moves the
     * clock from event to event (a replay).
     */
    public long nextWakeUpSeconds() {
        return state.read(() -> c.wakeUps.nextWakeUpSeconds());
    }

    /**
     * Starts every later attempt as its submitter's Unix account through {@code map} (what a backend that switches
     * users needs); null, the default, starts them with no account (the backend's own user).
     */
    public void runAs(AccountMap map) {
        c.accounts = map;
    }

    /** Checks the loop's books against the core (see {@link Books#check}). For tests. */
    synchronized void checkBooks() {
        state.holding(() -> {
            if (c.state != null) {
                c.books.check(c.state, c.sizes, c.nodeNames);
            }
        });
    }
}
