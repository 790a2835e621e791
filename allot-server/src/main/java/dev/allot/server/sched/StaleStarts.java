package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.BackendException;
import dev.allot.server.store.Attempt;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work the backend runs for an attempt the store says has ended: a start that reached the backend after its attempt
 * was settled. With several instances it is what a leader paused <em>inside</em> a backend call leaves behind (the
 * call passed {@link LeaderOnlyBackend}'s check before a SIGSTOP, and lands after SIGCONT, when a new leader may
 * already have ended that attempt, for example as never started after it was cancelled); a leader's check before each
 * call cannot catch it, and nothing else would ever stop it, since the loop watches only the attempts it holds. Each
 * cycle's observation hands the statuses here: a live one whose attempt the loop does not hold and the store has
 * ended is stopped at once, with no grace (it is nobody's work), and forgotten by the backend once it has ended. An
 * attempt the store still has open is left alone (one adoption refused, logged there). So a stale start holds its
 * GPUs for at most one cycle of the new leader after it lands. Works on the loop's thread.
 */
final class StaleStarts {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    private final LoopCore c;
    /** Stale attempts asked to stop, until the backend reports them ended and forgets them. */
    private final Set<AttemptKey> stopped = new TreeSet<>();
    private long count;

    StaleStarts(LoopCore c) {
        this.c = Objects.requireNonNull(c, "core");
    }

    /** Looks at one observation's statuses (those of the attempts the loop holds are passed over). */
    void sweep(List<AttemptStatus> statuses) {
        for (AttemptStatus st : statuses) {
            AttemptKey key = st.attempt();
            if (c.books.live.containsKey(key)) {
                continue;
            }
            if (st.ended()) {
                if (stopped.remove(key)) {
                    try {
                        c.backend.forget(key);
                    } catch (RuntimeException e) {
                        stopped.add(key); // asked again next cycle
                        LOG.warn("the {} backend could not forget stale attempt {}: {}", c.backend.name(), key,
                                e.getMessage());
                    }
                }
                continue;
            }
            if (st.phase() == AttemptStatus.Phase.UNKNOWN) {
                continue;
            }
            if (stopped.contains(key)) {
                stop(key); // still running: asked again (a stop is idempotent)
                continue;
            }
            Optional<Attempt> stored = c.store.attempts().attempts(key.workloadId()).stream()
                    .filter(a -> a.key().equals(key)).findFirst();
            if (stored.isEmpty() || stored.get().endedAtMillis() == null) {
                continue;
            }
            LOG.atWarn().addKeyValue("attempt", key).log("attempt {} runs on the {} backend but the store ended it ({}):"
                            + " a start that reached the backend late (a leader paused inside the call); stopped now",
                    key, c.backend.name(), stored.get().outcome());
            stopped.add(key);
            count++;
            stop(key);
        }
    }

    private void stop(AttemptKey key) {
        try {
            c.backend.stop(key, Duration.ZERO, "a start that reached the backend after its attempt had ended");
        } catch (BackendException e) {
            LOG.warn("could not stop stale attempt {} on the {} backend; trying again next cycle: {}", key,
                    c.backend.name(), e.getMessage());
        }
    }

    /** How many stale starts were stopped. */
    long count() {
        return count;
    }
}
