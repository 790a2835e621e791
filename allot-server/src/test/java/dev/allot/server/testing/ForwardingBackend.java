package dev.allot.server.testing;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.Launch;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A test backend in front of another one (e.g. a {@code SimulatedBackend}) that changes a call or two: refuses
 * starts, holds stops, reports ends or phases otherwise, fails to observe. It passes the calls every backend must
 * answer ({@link #name}, {@link #start}, {@link #stop(AttemptKey, Duration)}, {@link #observe}, {@link #forget}) to
 * {@link #backend}; a subclass overrides those it changes. The calls with a default ({@code startAll},
 * {@code stopAll}, {@code stop} with words, {@code output}, {@code nodes}, ...) keep {@link Backend}'s default, which
 * goes through this backend's own calls, so that a batch of starts reaches an overridden {@link #start}. One class
 * for what each such test backend had written out again.
 */
public abstract class ForwardingBackend implements Backend {
    /** The backend the calls pass to. */
    protected final Backend backend;

    protected ForwardingBackend(Backend backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    @Override
    public String name() {
        return backend.name();
    }

    @Override
    public void start(Launch launch) {
        backend.start(launch);
    }

    @Override
    public void stop(AttemptKey attempt, Duration grace) {
        backend.stop(attempt, grace);
    }

    @Override
    public List<AttemptStatus> observe() {
        return backend.observe();
    }

    @Override
    public void forget(AttemptKey attempt) {
        backend.forget(attempt);
    }
}
