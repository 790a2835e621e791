package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The backend as the scheduling loop of one of several instances sees it: one backend per term of leadership, made
 * when the instance starts to lead (so that it adopts what runs as a backend made at a restart does) and closed when
 * the term ends; and every call refused with {@link BackendUnavailableException} unless this instance may act now
 * ({@link Leadership#mayAct}), so an instance that lost the lease, or may have, launches and stops nothing. The loop
 * takes a refusal as it takes an unreachable backend (it changes nothing it cannot undo), and the fenced store makes
 * it step down.
 *
 * <p>The check is made immediately before each call, by the instance's monotonic clock ({@link Leadership}), and
 * guarantees that no call <em>begins</em> once the lease may have passed to another. It cannot guarantee that a call
 * begun before lands before: a pause inside the call (SIGSTOP, a long GC) delivers it late. Such a call is of a start
 * or a stop already recorded in the store; what the new leader does with it is said in {@link Leadership} and
 * {@link StaleStarts}.
 */
public final class LeaderOnlyBackend implements Backend, AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LeaderOnlyBackend.class);

    private final String name;
    private final java.util.function.Supplier<Backend> maker;
    private final Leadership leadership;
    private final boolean workMayDie;
    /**
     * The backend of the current term, and the epoch it was made for; null between terms. Set under this object's
     * lock; volatile so that {@link #counters} reads it without waiting for the making of a term's backend (which
     * may wait for Slurm).
     */
    private volatile Backend current;
    private long madeForEpoch;
    /** What every term's backend is told to call when it notices an end ({@link #onEnd}). */
    private volatile Runnable wake = () -> { };

    /**
     * @param name       the backend's name (for logs, before any term)
     * @param maker      makes the backend of a term (as the service makes it at a start)
     * @param workMayDie what {@link #workMayDieWithTheService} answers (the made backends' answer)
     */
    public LeaderOnlyBackend(String name, java.util.function.Supplier<Backend> maker, Leadership leadership,
                             boolean workMayDie) {
        this.name = Objects.requireNonNull(name, "name");
        this.maker = Objects.requireNonNull(maker, "maker");
        this.leadership = Objects.requireNonNull(leadership, "leadership");
        this.workMayDie = workMayDie;
    }

    /** The backend of the term this instance acts in now; refused when it may not act. */
    private synchronized Backend acting(String what) {
        long epoch = leadership.actingEpoch();
        if (epoch == 0) {
            throw new BackendUnavailableException("this instance (" + leadership.instance() + ") is not the leader"
                    + " now; it does not " + what);
        }
        if (current == null || madeForEpoch != epoch) {
            endTerm();
            current = maker.get();
            current.onEnd(wake);
            madeForEpoch = epoch;
        }
        return current;
    }

    /** Closes the backend of the term that ended (its work keeps running, for the next leader to adopt). */
    public synchronized void endTerm() {
        Backend b = current;
        current = null;
        madeForEpoch = 0;
        if (b instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("could not close the {} backend of the term that ended: {}", name, e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        endTerm();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start(Launch launch) {
        acting("start " + launch.attempt()).start(launch);
    }

    @Override
    public void stop(AttemptKey attempt, Duration grace) {
        acting("stop " + attempt).stop(attempt, grace);
    }

    @Override
    public void stop(AttemptKey attempt, Duration grace, String why) {
        acting("stop " + attempt).stop(attempt, grace, why);
    }

    /**
     * The backend of the term starts them together; each start is checked as a call of its own is: {@code gate}
     * refuses it unless this instance still acts in the term the batch began in.
     */
    @Override
    public Map<AttemptKey, BackendException> startAll(List<Launch> launches, Runnable gate) {
        Term t = term("start " + launches.size() + " attempt(s)");
        return t.backend().startAll(launches, t.gate(gate));
    }

    /** As {@link #startAll}: each stop is checked before it begins. */
    @Override
    public Map<AttemptKey, BackendException> stopAll(List<Stop> stops, Runnable gate) {
        Term t = term("stop " + stops.size() + " attempt(s)");
        return t.backend().stopAll(stops, t.gate(gate));
    }

    /** The backend of the term this instance acts in now, and the term's epoch. */
    private record Term(Backend backend, long epoch, Leadership leadership) {
        /** {@code then} after a check that the instance still acts in this term. */
        Runnable gate(Runnable then) {
            return () -> {
                if (leadership.actingEpoch() != epoch) {
                    throw new BackendUnavailableException("this instance (" + leadership.instance() + ") no longer"
                            + " leads in the term this batch began in; it does not start or stop its rest");
                }
                then.run();
            };
        }
    }

    private synchronized Term term(String what) {
        Backend b = acting(what);
        return new Term(b, madeForEpoch, leadership);
    }

    @Override
    public Mirror promote(AttemptKey attempt, Launch.Terms terms) {
        return acting("promote " + attempt).promote(attempt, terms);
    }

    /** Passed on to the backend of every term, this one and the next. */
    @Override
    public synchronized void onEnd(Runnable wake) {
        this.wake = Objects.requireNonNull(wake, "wake");
        if (current != null) {
            current.onEnd(wake);
        }
    }

    @Override
    public List<AttemptStatus> observe() {
        return acting("observe its attempts").observe();
    }

    @Override
    public void forget(AttemptKey attempt) {
        acting("forget " + attempt).forget(attempt);
    }

    @Override
    public void drain(String node, String reason) {
        acting("drain " + node).drain(node, reason);
    }

    @Override
    public void resume(String node) {
        acting("resume " + node).resume(node);
    }

    /** The current term's backend's output; none while this instance does not lead (a standby runs no work). */
    @Override
    public Optional<dev.allot.core.backend.AttemptOutput> output(AttemptKey attempt, int maxBytes) {
        Backend b = current;
        return b == null ? Optional.empty() : b.output(attempt, maxBytes);
    }

    @Override
    public String outputElsewhere() {
        Backend b = current;
        return b == null ? "this instance does not lead (a standby runs no work): read it from the leading instance"
                : b.outputElsewhere();
    }

    @Override
    public synchronized Optional<List<BackendNode>> nodes() {
        return current == null ? Optional.empty() : current.nodes();
    }

    /** The counters of the current term's backend; never waits for a term's backend to be made. */
    @Override
    public Map<String, Long> counters() {
        Backend b = current;
        return b == null ? Map.of() : b.counters();
    }

    @Override
    public boolean workMayDieWithTheService() {
        return workMayDie;
    }
}
