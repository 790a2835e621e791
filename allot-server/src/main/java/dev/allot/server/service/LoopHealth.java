package dev.allot.server.service;

import dev.allot.server.api.ServiceHealth;
import dev.allot.server.sched.SchedulerLoop;
import java.util.Objects;
import java.util.Optional;

/**
 * The service's health as {@code /v1/health} tells it: failing while the scheduling loop's cycles fail (nothing is
 * scheduled then, though the API answers), from the loop's {@link SchedulerLoop#health()}, read without waiting for a
 * cycle. It also says who leads ({@link SchedulerLoop#leadership}) and whether the backend has been seen lately
 * ({@link SchedulerLoop#backendSight}).
 */
public final class LoopHealth implements ServiceHealth {
    private final SchedulerLoop loop;

    public LoopHealth(SchedulerLoop loop) {
        this.loop = Objects.requireNonNull(loop, "loop");
    }

    @Override
    public Optional<Leader> leader() {
        return loop.leadership().map(s -> new Leader(s.role(), s.instance(), s.leader(), s.epoch()));
    }

    @Override
    public Optional<BackendUnseen> backendUnseen(long nowMillis) {
        return loop.backendSight().unseen(nowMillis).map(u -> new BackendUnseen(loop.backendName(), u.lastError(),
                u.lastObservedMillis(), u.sinceMillis(), u.failures()));
    }

    @Override
    public Optional<Problem> problem() {
        return loop.health().failing().map(f -> new Problem("scheduling cycles have failed", f.lastError(),
                f.sinceMillis(), f.failedCycles()));
    }
}
