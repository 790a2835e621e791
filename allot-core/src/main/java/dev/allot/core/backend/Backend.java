package dev.allot.core.backend;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

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
     * @throws BackendUnavailableException if the backend could not tell whether it took it: ask again later
     * @throws BackendException if the backend refused it; the attempt did not start
     */
    void start(Launch launch);

    /**
     * Asks an attempt to stop: politely now (SIGTERM or its equivalent), forcibly once {@code grace} has passed.
     * Returns without waiting for it to end; {@link #observe} tells when it has. An attempt whose start the backend
     * could not confirm ({@link BackendUnavailableException}), or that it does not know at all (a restarted
     * scheduler's attempt whose start never reached it), and that it finds never started is reported
     * {@link AttemptStatus.Phase#NEVER_STARTED} by {@link #observe}.
     */
    void stop(AttemptKey attempt, Duration grace);

    /**
     * {@link #stop(AttemptKey, Duration)}, saying why in a few words ({@code preempted by w-7}, {@code cancelled}) for
     * a backend that can show it in its own tools (Slurm writes it in the job's comment); null when there is nothing
     * to say. By default the words are dropped.
     */
    default void stop(AttemptKey attempt, Duration grace, String why) {
        stop(attempt, grace);
    }

    /** One stop of {@link #stopAll}: as {@link #stop(AttemptKey, Duration, String)} takes it ({@code why} may be null). */
    record Stop(AttemptKey attempt, Duration grace, String why) {
    }

    /** A gate that lets every call of a batch begin ({@link #startAll}, {@link #stopAll}). */
    Runnable OPEN = () -> { };

    /**
     * Starts attempts decided together, each as {@link #start} does, and says which failed: an attempt absent from
     * the answer was accepted; one mapped to a {@link BackendUnavailableException} may or may not have started (ask
     * again later), one mapped to another {@link BackendException} was refused. {@code gate} runs on whatever thread
     * immediately before each start begins and throws {@link BackendUnavailableException} to keep it from beginning
     * (it then counts as not known to have started). A backend whose every start is a slow command of another system
     * may begin them at once; whatever order they reach it in, each attempt runs once. By default they are started one
     * after another.
     */
    default Map<AttemptKey, BackendException> startAll(List<Launch> launches, Runnable gate) {
        return oneAfterAnother(launches, Launch::attempt, gate, this::start);
    }

    /**
     * Asks attempts to stop, each as {@link #stop(AttemptKey, Duration, String)} does, and says which could not be
     * asked (mapped to why; ask again later); {@code gate} as in {@link #startAll}. A backend may send the stops at
     * once. By default they are sent one after another.
     */
    default Map<AttemptKey, BackendException> stopAll(List<Stop> stops, Runnable gate) {
        return oneAfterAnother(stops, Stop::attempt, gate, s -> stop(s.attempt(), s.grace(), s.why()));
    }

    /** The default batch: each call after {@code gate}, one after another; what each that failed threw, by attempt. */
    private static <T> Map<AttemptKey, BackendException> oneAfterAnother(List<T> calls, Function<T, AttemptKey> attempt,
                                                                         Runnable gate, Consumer<T> call) {
        Map<AttemptKey, BackendException> failed = new LinkedHashMap<>();
        for (T c : calls) {
            try {
                gate.run();
                call.accept(c);
            } catch (BackendException e) {
                failed.put(attempt.apply(c), e);
            }
        }
        return failed;
    }

    /**
     * Tells the backend that a running attempt's contract changed in place ({@code terms}: unallocated work promoted to
     * allocated, the same attempt, the same process), for a backend that shows the contract in its own tools (Slurm's
     * QOS or partition). Allot alone decides preemption, so the promotion holds whether or not the backend could mirror
     * it; the answer says what the backend shows now. By default nothing is mirrored.
     *
     * @throws BackendUnavailableException if the backend could not be asked: the caller may try again later
     */
    default Mirror promote(AttemptKey attempt, Launch.Terms terms) {
        return new Mirror(false, "the " + name() + " backend shows no contract");
    }

    /**
     * What a backend shows of a contract change: whether its own tools now show the new terms, and in words what it
     * did or why not (e.g. "Slurm keeps QOS allot-free: a running job's QOS cannot change").
     */
    record Mirror(boolean mirrored, String detail) {
    }

    /**
     * Asks the backend to call {@code wake} whenever it notices by itself that an attempt ended (a process exited,
     * stopped or not), so that the scheduler observes the end at once instead of at its next tick: a start waiting
     * for a stopped attempt's GPUs then follows the stop without delay. {@code wake} is quick, may be called from any
     * thread and more than once per end, and tells nothing: the scheduler still learns what ended from
     * {@link #observe}. A later call replaces the earlier {@code wake}. By default nothing is noticed (a backend that
     * learns of ends only when asked, such as one that polls another system); the scheduler then sees ends at its
     * ticks.
     */
    default void onEnd(Runnable wake) {
    }

    /** The status of every attempt the backend has started and not yet been told to {@link #forget}. */
    List<AttemptStatus> observe();

    /** Drops an ended attempt from {@link #observe} (its outcome is recorded elsewhere). */
    void forget(AttemptKey attempt);

    /**
     * Tells the backend that a node takes no new work (the scheduler found it unhealthy); work on it keeps running
     * until the scheduler stops it. Idempotent. Backends that do not manage nodes do nothing.
     *
     * @throws BackendException if it could not be done; the caller tries again later
     */
    default void drain(String node, String reason) {
    }

    /**
     * Undoes {@link #drain}: the node takes work again. Leaves alone a node drained by someone else (an operator).
     * Idempotent. Backends that do not manage nodes do nothing.
     */
    default void resume(String node) {
    }

    /**
     * The last {@code maxBytes} (at least) of what {@code attempt} wrote, where this backend keeps its output where
     * the service can read it (the local backend's attempt logs); empty where it does not, and
     * {@link #outputElsewhere} then says where it goes. Output that is still being written is read as far as it goes.
     *
     * @throws BackendException if the output is kept here but could not be read
     */
    default Optional<AttemptOutput> output(AttemptKey attempt, int maxBytes) {
        return Optional.empty();
    }

    /** Where an attempt's output goes, for a backend whose {@link #output} keeps none the service can read. */
    default String outputElsewhere() {
        return "the " + name() + " backend keeps no output the service can read";
    }

    /**
     * The nodes the backend manages and whether each can run work, for a backend that owns the list of nodes (Slurm);
     * empty for one that does not (the service then keeps its own list). A node whose state the backend does not know
     * at the moment (Slurm's UNKNOWN, just after slurmctld restarted) is left out: the service keeps what it knew of
     * it, as it does of any node the listing does not name.
     *
     * @throws BackendUnavailableException if the backend could not be asked, or knows the state of none of its nodes:
     *     nothing may be concluded of any node
     */
    default Optional<List<BackendNode>> nodes() {
        return Optional.empty();
    }

    /**
     * Named counts of what the backend has met (failed probes, adopted jobs, ...), for metrics. The names are fixed
     * from the start; empty for a backend that counts nothing.
     */
    default Map<String, Long> counters() {
        return Map.of();
    }

    /**
     * Whether its work runs in the service's shadow: processes on the service's machine, which the service's own end
     * (signals to its terminal's group, a reboot) can take down with it, so that one found gone without an exit code
     * after a restart died with the service rather than of its own accord. False (the default) for a backend whose
     * work another system runs and accounts for (Slurm).
     */
    default boolean workMayDieWithTheService() {
        return false;
    }
}
