package dev.allot.server.campaign;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.Launch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A backend whose attempts end only when the test says ({@link #exit}) or when they are stopped (at once), so that a
 * campaign's story runs step by step: it records every launch (with its environment) and every promotion it was told
 * of, and shows a promotion as mirrored, saying so.
 */
final class ManualBackend implements Backend {
    final List<Launch> launches = new ArrayList<>();
    final List<String> promotions = new ArrayList<>();
    private final Map<AttemptKey, AttemptStatus> status = new TreeMap<>();

    @Override
    public String name() {
        return "manual";
    }

    @Override
    public synchronized void start(Launch launch) {
        launches.add(launch);
        status.put(launch.attempt(), new AttemptStatus(launch.attempt(), AttemptStatus.Phase.RUNNING, null, null));
    }

    @Override
    public synchronized void stop(AttemptKey attempt, Duration grace) {
        if (status.containsKey(attempt) && !status.get(attempt).ended()) {
            status.put(attempt, new AttemptStatus(attempt, AttemptStatus.Phase.STOPPED, 143, "stopped"));
        }
    }

    @Override
    public synchronized Mirror promote(AttemptKey attempt, Launch.Terms terms) {
        promotions.add(attempt + (terms.unallocated() ? " unallocated" : " allocated"));
        return new Mirror(true, "the manual backend now shows " + attempt + " as allocated");
    }

    @Override
    public synchronized List<AttemptStatus> observe() {
        return List.copyOf(status.values());
    }

    @Override
    public synchronized void forget(AttemptKey attempt) {
        status.remove(attempt);
    }

    /** The running attempt of {@code workloadId} exits with {@code code}. */
    synchronized void exit(String workloadId, int code) {
        AttemptKey key = status.keySet().stream().filter(k -> k.workloadId().equals(workloadId)
                && !status.get(k).ended()).findFirst().orElseThrow(() -> new AssertionError(workloadId + " does not run"));
        status.put(key, new AttemptStatus(key, AttemptStatus.Phase.EXITED, code, "exited"));
    }

    /** The running attempt of {@code workloadId} is found never to have started, the backend saying why in {@code words}. */
    synchronized void failToStart(String workloadId, String words) {
        AttemptKey key = status.keySet().stream().filter(k -> k.workloadId().equals(workloadId)
                && !status.get(k).ended()).findFirst().orElseThrow(() -> new AssertionError(workloadId + " does not run"));
        status.put(key, new AttemptStatus(key, AttemptStatus.Phase.FAILED_TO_START, null, words));
    }

    /** The environment of the last launch of {@code workloadId}. */
    synchronized Map<String, String> lastEnvironment(String workloadId) {
        for (int i = launches.size() - 1; i >= 0; i--) {
            if (launches.get(i).attempt().workloadId().equals(workloadId)) {
                return launches.get(i).environment();
            }
        }
        throw new AssertionError(workloadId + " was never launched");
    }
}
