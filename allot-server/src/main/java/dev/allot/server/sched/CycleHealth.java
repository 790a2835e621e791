package dev.allot.server.sched;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the scheduling loop's cycles succeed, for the service's health answer and metrics: a cycle that throws
 * starts (or extends) a run of failures, kept with the last failure's message and when the run began; the next cycle
 * that succeeds ends it. Written by the loop inside its cycle, read by any thread without waiting for a cycle.
 */
public final class CycleHealth {
    /**
     * A run of failed cycles: the last failure's message, when the first of the run failed and the last did (epoch
     * millis), and how many failed in a row.
     */
    public record Failing(String lastError, long sinceMillis, long lastMillis, long failedCycles) {
    }

    private volatile Failing failing;
    private final AtomicLong failedTotal = new AtomicLong();

    /** The current run of failures, or empty when the last cycle succeeded (or none ran yet). */
    public Optional<Failing> failing() {
        return Optional.ofNullable(failing);
    }

    /** Every cycle that failed since the loop was made. */
    public long failedTotal() {
        return failedTotal.get();
    }

    void succeeded() {
        failing = null;
    }

    /** Records a failed cycle: it begins a run of failures, or extends the one going on. */
    void failed(Throwable e, long nowMillis) {
        Failing before = failing;
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getName()
                : e.getClass().getSimpleName() + ": " + e.getMessage();
        failing = before == null ? new Failing(message, nowMillis, nowMillis, 1)
                : new Failing(message, before.sinceMillis(), nowMillis, before.failedCycles() + 1);
        failedTotal.incrementAndGet();
    }
}
