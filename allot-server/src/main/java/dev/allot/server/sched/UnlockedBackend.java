package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.Launch;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The backend as a {@link SchedulerLoop}'s parts call it: every call that may talk to the backend (starts, stops,
 * observations, forgets, drains, resumes, promotions, the node list) is made outside the loop's {@link StateLock},
 * so that the API's reads of the loop's state never wait for the backend. A wrapper, not a rule for each part to
 * follow, so that no call to the backend can hold the state by mistake. What the backend says of itself (its name,
 * its counters) is passed through as it is.
 */
final class UnlockedBackend implements Backend {
    private final Backend backend;
    private final StateLock lock;

    UnlockedBackend(Backend backend, StateLock lock) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.lock = Objects.requireNonNull(lock, "lock");
    }

    @Override
    public String name() {
        return backend.name();
    }

    @Override
    public void start(Launch launch) {
        lock.outside(() -> backend.start(launch));
    }

    @Override
    public void stop(AttemptKey attempt, Duration grace) {
        lock.outside(() -> backend.stop(attempt, grace));
    }

    @Override
    public void stop(AttemptKey attempt, Duration grace, String why) {
        lock.outside(() -> backend.stop(attempt, grace, why));
    }

    @Override
    public Map<AttemptKey, BackendException> startAll(List<Launch> launches, Runnable gate) {
        return lock.outside(() -> backend.startAll(launches, gate));
    }

    @Override
    public Map<AttemptKey, BackendException> stopAll(List<Stop> stops, Runnable gate) {
        return lock.outside(() -> backend.stopAll(stops, gate));
    }

    @Override
    public Mirror promote(AttemptKey attempt, Launch.Terms terms) {
        return lock.outside(() -> backend.promote(attempt, terms));
    }

    @Override
    public void onEnd(Runnable wake) {
        backend.onEnd(wake);
    }

    @Override
    public List<AttemptStatus> observe() {
        return lock.outside(backend::observe);
    }

    @Override
    public void forget(AttemptKey attempt) {
        lock.outside(() -> backend.forget(attempt));
    }

    @Override
    public void drain(String node, String reason) {
        lock.outside(() -> backend.drain(node, reason));
    }

    @Override
    public void resume(String node) {
        lock.outside(() -> backend.resume(node));
    }

    @Override
    public Optional<List<BackendNode>> nodes() {
        return lock.outside(backend::nodes);
    }

    @Override
    public Map<String, Long> counters() {
        return backend.counters();
    }

    @Override
    public boolean workMayDieWithTheService() {
        return backend.workMayDieWithTheService();
    }
}
