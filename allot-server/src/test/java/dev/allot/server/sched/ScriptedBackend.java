package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.Launch;
import dev.allot.server.backend.SimulatedBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
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
 * those in {@link #unknown} are reported {@code UNKNOWN}.
 */
final class ScriptedBackend implements Backend {
    private final SimulatedBackend sim;
    final List<Launch> launches = new ArrayList<>();
    final List<AttemptKey> stops = new ArrayList<>();
    /** The grace period each stop gave, in the order of {@link #stops}. */
    final List<Duration> graces = new ArrayList<>();
    final Set<String> failToStart = new TreeSet<>();
    final Map<String, Integer> exitCode = new HashMap<>();
    /** Workloads whose attempts the backend cannot tell about right now (a failed probe). */
    final Set<String> unknown = new TreeSet<>();
    boolean holdStops;
    /** While on, the next start is lost on the way (the scheduler crashed before the call reached the backend). */
    boolean dropNextStart;
    private final Map<AttemptKey, Duration> held = new TreeMap<>();
    private final Set<AttemptKey> failed = new TreeSet<>();
    private final Map<AttemptKey, Launch> launched = new TreeMap<>();

    ScriptedBackend(Clock clock) {
        this.sim = new SimulatedBackend(clock);
    }

    @Override
    public String name() {
        return "scripted";
    }

    @Override
    public synchronized void start(Launch launch) {
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
        if (holdStops) {
            held.put(attempt, grace);
        } else {
            sim.stop(attempt, grace);
        }
    }

    /** Lets the held stops through: the processes have now ended. */
    synchronized void release() {
        held.forEach(sim::stop);
        held.clear();
    }

    @Override
    public synchronized List<AttemptStatus> observe() {
        List<AttemptStatus> out = new ArrayList<>();
        for (AttemptKey k : failed) {
            out.add(new AttemptStatus(k, AttemptStatus.Phase.FAILED_TO_START, null, "no such program"));
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
        return out;
    }

    @Override
    public synchronized void forget(AttemptKey attempt) {
        if (!failed.remove(attempt)) {
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
