package dev.allot.core.backend;

import java.time.Duration;
import java.util.List;

/**
 * What the scheduler needs from whatever runs the work (a process on this machine, a simulated clock, Slurm): start
 * an attempt on the GPUs the policy chose, stop one with a grace period, and say what became of them. Deciding
 * stays in the policy; a backend only acts and observes.
 *
 * <p>Every call is keyed by the attempt ({@link AttemptKey}) and idempotent: starting an attempt the backend already
 * knows, or stopping one that already ended, does nothing. That is what lets a restarted scheduler repeat the last
 * actions it is not sure were carried out without ever running the same work twice. A backend that cannot tell what
 * happened to an attempt reports it {@link AttemptStatus.Phase#UNKNOWN}, never as ended: a failed probe is not a
 * finished job.
 */
public interface Backend {
    /** A short name for logs and configuration ({@code local}, {@code simulated}, {@code slurm}). */
    String name();

    /**
     * Starts an attempt. Returns once the backend has accepted it (the work may still be starting).
     *
     * @throws BackendException if the backend refused it or could not be reached; the attempt did not start
     */
    void start(Launch launch);

    /**
     * Asks an attempt to stop: politely now (SIGTERM or its equivalent), forcibly once {@code grace} has passed.
     * Returns without waiting for it to end; {@link #observe} tells when it has.
     */
    void stop(AttemptKey attempt, Duration grace);

    /** The status of every attempt the backend has started and not yet been told to {@link #forget}. */
    List<AttemptStatus> observe();

    /** Drops an ended attempt from {@link #observe} (its outcome is recorded elsewhere). */
    void forget(AttemptKey attempt);
}
