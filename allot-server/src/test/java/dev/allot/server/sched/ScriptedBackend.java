package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.server.backend.SimulatedBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A {@link SimulatedBackend} a test can script: it records every launch and stop; while {@link #holdStops} is on, a
 * stopped attempt stays {@code STOPPING} until {@link #release}d (a process holding its GPUs through the grace
 * period); workloads named in {@link #failToStart} fail to start, those in {@link #exitCode} end with that code,
 * those in {@link #unknown} are reported {@code UNKNOWN}. Starts can be scripted to throw ({@link #startThrows}, before
 * the backend takes the start; {@link #unavailableAfterTaking}, after); an attempt whose start threw before it was
 * taken, or that it never took at all (a start lost to a crash, {@link #dropNextStart}), and that is then stopped is
 * reported {@code NEVER_STARTED}, as {@link Backend#stop} promises and as Slurm does. {@link #failObserves} makes the
 * next observations throw (a failed probe). Drains and resumes are
 * recorded in {@link #health}; {@link #failDrains} makes the next drains throw. A backend that owns its nodes (as
 * Slurm does) is scripted through {@link #nodes}: null (the default) for one that does not.
 */
final class ScriptedBackend implements Backend {
    private final SimulatedBackend sim;
    final List<Launch> launches = new ArrayList<>();
    final List<AttemptKey> stops = new ArrayList<>();
    /** The grace period each stop gave, in the order of {@link #stops}. */
    final List<Duration> graces = new ArrayList<>();
    final Set<String> failToStart = new TreeSet<>();
    final Map<String, Integer> exitCode = new HashMap<>();
    /**
     * The end each workload's attempt is reported with once ended, as Slurm reports its EndTime (the end it recorded,
     * which the loop may observe long after); a workload not named here is reported without one.
     */
    final Map<String, java.time.Instant> endedAt = new HashMap<>();
    /** Workloads whose attempts the backend cannot tell about right now (a failed probe). */
    final Set<String> unknown = new TreeSet<>();
    boolean holdStops;
    /** While on, the next start is lost on the way (the scheduler crashed before the call reached the backend). */
    boolean dropNextStart;
    /** Thrown by the next starts, in order, before the backend takes them. */
    final Deque<BackendException> startThrows = new ArrayDeque<>();
    /** How many of the next starts the backend takes and then answers {@link BackendUnavailableException}. */
    int unavailableAfterTaking;
    /** How many of the next {@link #observe} calls throw {@link BackendUnavailableException}. */
    int failObserves;
    /** Run once by the next {@link #observe} call before it looks (a test moves the clock: a listing takes time). */
    Runnable whileNextObserving;
    /** Every call of {@link #start}, taken or not, by attempt. */
    final List<AttemptKey> startCalls = new ArrayList<>();
    /** {@code drain <node> <reason>} and {@code resume <node>}, in the order they were told and done. */
    final List<String> health = new ArrayList<>();
    /** How many of the next drains throw (could not be done). */
    int failDrains;
    /** The nodes the backend reports ({@link Backend#nodes}), or null when it owns none. */
    List<dev.allot.core.backend.BackendNode> nodes;
    private final Set<AttemptKey> unconfirmed = new TreeSet<>();
    private final Set<AttemptKey> neverStarted = new TreeSet<>();
    private final Map<AttemptKey, Duration> held = new TreeMap<>();
    private final Set<AttemptKey> failed = new TreeSet<>();
    private final Map<AttemptKey, Launch> launched = new TreeMap<>();

    /** What {@link #workMayDieWithTheService} answers: false as for Slurm, true as for the local backend. */
    boolean diesWithService;

    ScriptedBackend(Clock clock) {
        this.sim = new SimulatedBackend(clock);
    }

    @Override
    public String name() {
        return "scripted";
    }

    @Override
    public boolean workMayDieWithTheService() {
        return diesWithService;
    }

    @Override
    public synchronized void start(Launch launch) {
        startCalls.add(launch.attempt());
        BackendException thrown = startThrows.poll();
        if (thrown != null) {
            if (thrown instanceof BackendUnavailableException && !launched.containsKey(launch.attempt())) {
                unconfirmed.add(launch.attempt());
            }
            throw thrown;
        }
        unconfirmed.remove(launch.attempt());
        if (unavailableAfterTaking > 0) {
            unavailableAfterTaking--;
            takeStart(launch);
            throw new BackendUnavailableException("the answer was cut short");
        }
        takeStart(launch);
    }

    private void takeStart(Launch launch) {
        if (dropNextStart) {
            dropNextStart = false;
            return;
        }
        if (launched.containsKey(launch.attempt())) {
            return; // idempotent per attempt key, as every backend is
        }
        launches.add(launch);
        launched.put(launch.attempt(), launch);
        if (failToStart.contains(launch.attempt().workloadId())) {
            failed.add(launch.attempt());
            return;
        }
        sim.start(launch);
    }

    @Override
    public synchronized void stop(AttemptKey attempt, Duration grace) {
        stops.add(attempt);
        graces.add(grace);
        if (unconfirmed.remove(attempt) || !launched.containsKey(attempt)) {
            neverStarted.add(attempt);
            return;
        }
        if (holdStops) {
            held.put(attempt, grace);
        } else {
            sim.stop(attempt, grace);
        }
    }

    @Override
    public synchronized java.util.Optional<List<dev.allot.core.backend.BackendNode>> nodes() {
        return java.util.Optional.ofNullable(nodes).map(List::copyOf);
    }

    @Override
    public synchronized void drain(String node, String reason) {
        if (failDrains > 0) {
            failDrains--;
            throw new BackendException("could not drain " + node);
        }
        health.add("drain " + node + " " + reason);
    }

    @Override
    public synchronized void resume(String node) {
        health.add("resume " + node);
    }

    /** Lets the held stops through: the processes have now ended. */
    synchronized void release() {
        held.forEach(sim::stop);
        held.clear();
    }

    @Override
    public synchronized List<AttemptStatus> observe() {
        if (failObserves > 0) {
            failObserves--;
            throw new BackendUnavailableException("the probe failed");
        }
        if (whileNextObserving != null) {
            Runnable r = whileNextObserving;
            whileNextObserving = null;
            r.run();
        }
        List<AttemptStatus> out = new ArrayList<>();
        for (AttemptKey k : failed) {
            out.add(new AttemptStatus(k, AttemptStatus.Phase.FAILED_TO_START, null, "no such program"));
        }
        for (AttemptKey k : neverStarted) {
            out.add(new AttemptStatus(k, AttemptStatus.Phase.NEVER_STARTED, null, "never started"));
        }
        for (AttemptStatus s : sim.observe()) {
            if (unknown.contains(s.attempt().workloadId())) {
                out.add(new AttemptStatus(s.attempt(), AttemptStatus.Phase.UNKNOWN, null, "probe failed"));
            } else if (held.containsKey(s.attempt()) && !s.ended()) {
                out.add(new AttemptStatus(s.attempt(), AttemptStatus.Phase.STOPPING, null, null));
            } else if (s.phase() == AttemptStatus.Phase.EXITED && exitCode.containsKey(s.attempt().workloadId())) {
                out.add(new AttemptStatus(s.attempt(), AttemptStatus.Phase.EXITED,
                        exitCode.get(s.attempt().workloadId()), "exited"));
            } else {
                out.add(s);
            }
        }
        out.replaceAll(s -> s.ended() && endedAt.containsKey(s.attempt().workloadId())
                ? s.endedAt(endedAt.get(s.attempt().workloadId()).toEpochMilli()) : s);
        return out;
    }

    @Override
    public synchronized void forget(AttemptKey attempt) {
        if (!failed.remove(attempt) && !neverStarted.remove(attempt)) {
            sim.forget(attempt);
        }
        launched.remove(attempt);
    }

    /** The launches the backend has not been told to forget and whose attempts have not ended. */
    synchronized List<Launch> liveLaunches() {
        Set<AttemptKey> ended = new TreeSet<>();
        for (AttemptStatus s : observe()) {
            if (s.ended()) {
                ended.add(s.attempt());
            }
        }
        List<Launch> out = new ArrayList<>();
        for (Launch l : launched.values()) {
            if (!ended.contains(l.attempt())) {
                out.add(l);
            }
        }
        return out;
    }
}
