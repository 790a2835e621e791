package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Backend;
import dev.allot.core.policy.DecisionLoop;
import dev.allot.core.policy.Policy;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.campaign.CampaignController;
import dev.allot.server.identity.AccountMap;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the parts of a {@link SchedulerLoop} share: the store and the backend, the policy, the core's state and the
 * loop's books of it, the hints the API leaves for the next cycle, and the counters. The parts ({@link Adoption},
 * {@link TopologyChanges}, {@link Intake}, {@link Decider}, {@link Carrier}) each do one idea of the cycle on this one
 * state; they reach each other through it. Written on the loop's thread only (inside {@link SchedulerLoop#runOnce}), under the loop's
 * {@link StateLock}, which the API's reads take too; the fields marked volatile or atomic, and the queue of progress
 * reports, are what the API's threads set. The parts call the backend through {@link UnlockedBackend}, which lets
 * the reads in while the backend answers: so a part calls it only where the state is whole.
 */
final class LoopCore {
    final Store store;
    final Backend backend;
    final Clock clock;
    /** How long a stopped attempt may take to end before the backend forces it. */
    final Duration grace;
    /**
     * Whether this core only follows the store (a standby's view, {@link Follower}): it loads and takes in what the
     * leader recorded, and never writes the store, calls the backend or decides.
     */
    final boolean following;
    /** When the state was last brought up to date with the store (a cycle's or a follow's start), epoch millis. */
    long syncedAtMillis;
    /** As whom attempts run; null: the backend's own user. Set once at start, read by the loop thread. */
    volatile AccountMap accounts;
    Policy policy;
    SchedulerConfig config;
    /** Whether the policy restarts work that cannot resume (a preempted workload then waits again). */
    boolean restarts;

    // ---- the parts, wired by the loop
    Adoption adoption;
    TopologyChanges changes;
    Intake intake;
    Decider decider;
    Carrier carrier;
    /** The safety brakes: workloads requeued too often or too costly are held, not queued. */
    Brakes brakes;
    /** The campaigns: each cycle they queue, retier and promote their shards' workloads. */
    CampaignController campaigns;
    /** Work the backend runs for attempts the store has ended (starts that landed late), stopped. */
    StaleStarts staleStarts;

    // ---- loaded on the first cycle
    ClusterState state;
    List<String> nodeNames;
    CoreBuilder.Topology topology;
    int[] sizes;
    /** Something changed in the core since the policy was last asked (the policy is asked only then, or when due). */
    boolean dirty = true;
    /** The wake-ups the policy asked for, kept by the simulator's rules ({@link DecisionLoop}). */
    DecisionLoop wakeUps = new DecisionLoop();
    /**
     * The core's count of protections run out when the policy was last asked ({@link dev.allot.core.state.ProtectionBooks#endedCount}).
     */
    long protectionsSeen;
    /**
     * Where the next cycle reads the workloads' changes from ({@link dev.allot.server.store.Workloads#changesSince});
     * taken before the full read at load.
     */
    long changeCursor;
    long lastNowSeconds = Long.MIN_VALUE;
    int foundRunningAtLoad;
    int adoptedAtLoad;
    /** Open attempts adopted at load that have not yet been reconciled with the backend. */
    Map<AttemptKey, Attempt> toReconcile = new LinkedHashMap<>();

    // ---- the loop's books
    /** Attempts live, starts deferred, and the attempt each running job runs as. */
    final Books books = new Books();
    /** Whether the backend could be observed lately (for {@code /v1/health}). */
    final BackendSight sight = new BackendSight();
    /** Jobs the core has not ended, by id, in admission order. */
    final Map<String, Job> active = new LinkedHashMap<>();
    /** What to launch for a workload: its command and environment, kept from the store at admission. */
    final Map<String, Workload> stored = new HashMap<>();
    /** Workloads the core refused (an allocation that is not a leaf, a shape the cluster cannot hold). */
    final Map<String, String> refused = new TreeMap<>();
    /**
     * Waiting workloads a safety brake holds (not in the core's queue), by id, with the reason the store has for each:
     * what the brakes are checked again on when their limits change.
     */
    final Map<String, String> held = new TreeMap<>();
    /** Since when each waiting job has waited (its submission, or its last requeue), seconds, for waits. */
    final Map<String, Long> queuedSince = new HashMap<>();
    boolean stopsThisCycle;
    /**
     * Why the last load did not happen, as a sentence ("no node is registered yet ..."): the store has no node or no
     * allocation, so there is nothing to schedule on or for. Null once loaded, and before the first try.
     */
    String awaiting;
    /** The health each node was last told to the backend as ({@link Backend#drain}, {@link Backend#resume}). */
    final Map<String, Boolean> toldHealthy = new TreeMap<>();

    // ---- hints left by the API's threads for the next cycle
    /** Workloads that reported progress since the last cycle ({@link SchedulerLoop#progressReported}). */
    final java.util.concurrent.ConcurrentLinkedQueue<String> progressReports =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    final AtomicBoolean brakesHint = new AtomicBoolean();
    long lastBrakesReadAt = Long.MIN_VALUE / 2;
    final AtomicBoolean topologyHint = new AtomicBoolean();
    long lastTopologyReadAt = Long.MIN_VALUE / 2;

    // ---- counters
    long cycles;
    long starts;
    long deferrals;
    long preemptions;
    long completions;
    long failures;
    long cancellations;
    long lastDecisionNanos;
    long decisions;
    long rebuilds;

    volatile LoopObserver observer = new LoopObserver() {
    };

    /**
     * Forgets everything loaded from the store and the backend, as if the service had just started: what a loop does
     * when its instance stops leading (another instance acts now), so that when it leads again it loads and adopts
     * anew. The counters stay.
     */
    void forget() {
        state = null;
        awaiting = null;
        nodeNames = null;
        topology = null;
        sizes = null;
        dirty = true;
        wakeUps = new DecisionLoop();
        protectionsSeen = 0;
        changeCursor = 0;
        toReconcile = new LinkedHashMap<>();
        books.live.clear();
        books.runningAttempt.clear();
        books.deferred.clear();
        active.clear();
        stored.clear();
        refused.clear();
        queuedSince.clear();
        held.clear();
        stopsThisCycle = false;
        toldHealthy.clear();
        lastBrakesReadAt = Long.MIN_VALUE / 2;
        lastTopologyReadAt = Long.MIN_VALUE / 2;
    }

    LoopCore(Store store, Backend backend, Policy policy, SchedulerConfig config, Clock clock, Duration grace) {
        this(store, backend, policy, config, clock, grace, false);
    }

    LoopCore(Store store, Backend backend, Policy policy, SchedulerConfig config, Clock clock, Duration grace,
             boolean following) {
        this.following = following;
        this.store = store;
        this.backend = backend;
        this.policy = policy;
        this.config = config;
        this.clock = clock;
        this.grace = grace;
        this.restarts = policy.restartsWorkThatCannotResume();
    }
}
