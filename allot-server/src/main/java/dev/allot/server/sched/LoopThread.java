package dev.allot.server.sched;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a {@link SchedulerLoop}'s cycles run in the service: on one daemon thread, every tick ({@link #start}) and at
 * once when nudged ({@link #nudge}: nudges while one is pending are merged, and nudged cycles start at least
 * {@link #MIN_NUDGE_GAP_NANOS} apart), a failed cycle logged and tried again next tick, until {@link #stopping}. A
 * class of its own because it is the loop's only concurrency besides its lock: which thread runs a cycle and when.
 * It takes no lock itself: each cycle is the loop's {@code runOnce}, which holds the loop's lock (and its
 * {@link StateLock} except while it calls the backend), {@link #start} and {@link #detach} are called under that
 * lock, and {@link #nudge} never waits for it (the API's threads call it).
 */
final class LoopThread {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    /** The least time between the starts of two cycles asked for by {@link #nudge()}. */
    static final long MIN_NUDGE_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** One cycle, as the loop runs it (under its lock); records a failure in {@link #health} and rethrows it. */
    private final Runnable runOnce;
    private final CycleHealth health;
    private volatile ScheduledExecutorService thread;
    private final AtomicBoolean nudged = new AtomicBoolean();
    private volatile long lastCycleStartNanos = System.nanoTime() - MIN_NUDGE_GAP_NANOS;
    /** Set by {@link #stopping}: a cycle that fails from then on was interrupted by the stop. */
    private volatile boolean closing;

    LoopThread(Runnable runOnce, CycleHealth health) {
        this.runOnce = runOnce;
        this.health = health;
    }

    /**
     * Runs cycles on one daemon thread, {@code tick} apart (from the end of one to the start of the next). Called
     * under the loop's lock.
     */
    void start(Duration tick) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("the tick must be positive, got " + tick);
        }
        if (thread != null) {
            throw new IllegalStateException("the scheduling loop is already running");
        }
        thread = dev.allot.server.Daemons.single("allot-scheduler");
        thread.scheduleWithFixedDelay(this::cycleOnThread, 0, tick.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void cycleOnThread() {
        nudged.set(false);
        lastCycleStartNanos = System.nanoTime();
        try {
            runOnce.run();
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
     * Asks for a cycle as soon as possible on the loop's thread; see {@link SchedulerLoop#nudge}. Any thread; never
     * waits for a cycle in progress.
     */
    void nudge() {
        ScheduledExecutorService t = thread; // volatile: never waits for a cycle in progress
        if (t != null && nudged.compareAndSet(false, true)) {
            try {
                long wait = lastCycleStartNanos + MIN_NUDGE_GAP_NANOS - System.nanoTime();
                t.schedule(this::cycleOnThread, Math.max(0, wait), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                nudged.set(false);
            }
        }
    }

    /** Closing begins (before {@link #detach}): from now on a cycle that fails was interrupted by the stop. */
    void stopping() {
        closing = true;
    }

    /**
     * Forgets the thread started by {@link #start} and returns it (null if none), for the caller to stop. Called
     * under the loop's lock.
     */
    ScheduledExecutorService detach() {
        ScheduledExecutorService t = thread;
        thread = null;
        return t;
    }
}
