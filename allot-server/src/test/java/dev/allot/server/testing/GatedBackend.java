package dev.allot.server.testing;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A backend that is slow when a test says so, as Slurm is while {@code slurmctld} is down (each command waits for
 * its timeout, and is retried): once {@link #close}d, the next call of the kinds named there ({@code observe},
 * {@code startAll}, {@code stopAll}) blocks until {@link #open}, or {@link #HOLD_AT_MOST} at most, so that a test
 * that fails never hangs. {@link #awaitHeld} waits until a call is blocked: the cycle that made it is then talking to
 * the backend. Every call passes to the backend it wraps (e.g. a {@code SimulatedBackend}), after the gate: those
 * with a default too ({@link ForwardingBackend} passes only the required ones).
 */
public final class GatedBackend extends ForwardingBackend {
    /** The longest a call is held. */
    public static final Duration HOLD_AT_MOST = Duration.ofSeconds(20);

    /** The calls that can be held. */
    public enum Call { OBSERVE, START_ALL, STOP_ALL }

    private volatile Call gated;
    private volatile CountDownLatch opened = new CountDownLatch(0);
    private volatile CountDownLatch held = new CountDownLatch(1);

    public GatedBackend(Backend backend) {
        super(backend);
    }

    /** From now on, the calls of kind {@code call} block until {@link #open}. */
    public void close(Call call) {
        held = new CountDownLatch(1);
        opened = new CountDownLatch(1);
        gated = Objects.requireNonNull(call, "call");
    }

    /** Lets the blocked call, and every later one, through. */
    public void open() {
        gated = null;
        opened.countDown();
    }

    /** Waits until a call is blocked at the gate; whether one was within {@code timeout}. */
    public boolean awaitHeld(Duration timeout) throws InterruptedException {
        return held.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void gate(Call call) {
        if (gated != call) {
            return;
        }
        held.countDown();
        try {
            if (!opened.await(HOLD_AT_MOST.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the test never opened the gate of " + call);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted at the gate of " + call, e);
        }
    }

    @Override
    public String name() {
        return "gated";
    }

    @Override
    public void stop(AttemptKey attempt, Duration grace, String why) {
        backend.stop(attempt, grace, why);
    }

    @Override
    public Map<AttemptKey, BackendException> startAll(List<Launch> launches, Runnable gate) {
        gate(Call.START_ALL);
        return backend.startAll(launches, gate);
    }

    @Override
    public Map<AttemptKey, BackendException> stopAll(List<Stop> stops, Runnable gate) {
        gate(Call.STOP_ALL);
        return backend.stopAll(stops, gate);
    }

    @Override
    public List<AttemptStatus> observe() {
        gate(Call.OBSERVE);
        return backend.observe();
    }

    @Override
    public void onEnd(Runnable wake) {
        backend.onEnd(wake);
    }

    @Override
    public Map<String, Long> counters() {
        return backend.counters();
    }
}
