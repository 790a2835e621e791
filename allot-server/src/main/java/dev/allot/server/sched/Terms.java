package dev.allot.server.sched;

import dev.allot.server.store.Store;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Terms of leadership as a {@link SchedulerLoop}'s cycle meets them (several instances on one PostgreSQL:
 * {@link Leadership}): whether a cycle acts, and under which epoch. At a change of term the loop's books are forgotten,
 * so that a new term loads and adopts what runs as a restart does, and the backend of the term that ended is closed
 * ({@link LeaderOnlyBackend#endTerm}). While the instance stands by, a cycle brings the {@link Follower}'s view of the
 * leader's state up to date instead, and that view is what explanations read ({@link #viewed}). Without a leadership
 * (one instance, as tests run a loop) every cycle acts. Used on the loop's thread, under the loop's locks (its
 * {@link #viewed} also by the API's reads, under the {@link StateLock}).
 */
final class Terms {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    private final LoopCore c;
    /** Closes the backend of the term that ended, if the loop's backend has terms ({@link LeaderOnlyBackend}). */
    private final Runnable endTerm;
    /** Whether this instance may act, and under which epoch; null: always (one instance). */
    private volatile Leadership leadership;
    /** The epoch the loop's books were loaded under; 0 while it stands by. */
    private long actingEpoch;
    /** What the loop keeps while it stands by, for explanations and forecasts; null: nothing. */
    private Follower follower;
    /** What this instance does as each of its terms begins, before the loop loads the store ({@link #atTermStart}). */
    private volatile Runnable termStart = () -> { };

    Terms(LoopCore c, Runnable endTerm) {
        this.c = Objects.requireNonNull(c, "core");
        this.endTerm = Objects.requireNonNull(endTerm, "endTerm");
    }

    void lead(Leadership l) {
        this.leadership = Objects.requireNonNull(l, "leadership");
    }

    /**
     * Runs {@code r} as each term of this instance begins, before the loop loads the store: what only a leader may
     * write and the load must see (the service's own node, which a standby must not change under the leader's work).
     * If it fails, the term's first cycle fails, and the next cycle begins the term again.
     */
    void atTermStart(Runnable r) {
        this.termStart = Objects.requireNonNull(r, "termStart");
    }

    /** Null without {@link #lead}. */
    Leadership leadership() {
        return leadership;
    }

    void follow(Store readOnly) {
        this.follower = new Follower(readOnly, c.backend.name(), c.policy, c.config, c.clock, c.grace);
    }

    /**
     * At the start of a cycle: whether it acts. At a change of term the books are forgotten; while standing by, the
     * view is followed under the policy settings {@code takeNextPolicy} brings up to date, and the cycle does nothing
     * else.
     */
    boolean acts(Runnable takeNextPolicy) {
        Leadership l = leadership;
        if (l == null) {
            return true;
        }
        long epoch = l.actingEpoch();
        if (epoch != actingEpoch) {
            standBy();
            if (epoch != 0) {
                termStart.run(); // fails with the epoch still 0 here: the next cycle begins the term again
            }
            actingEpoch = epoch;
            if (epoch != 0) {
                LOG.info("the scheduling loop leads at epoch {}: it loads the store and adopts what runs, as after"
                        + " a restart", epoch);
            }
        }
        if (epoch != 0) {
            if (follower != null) {
                follower.forget();
            }
            return true;
        }
        if (follower != null) {
            takeNextPolicy.run();
            long nowMillis = c.clock.millis();
            follower.follow(Math.floorDiv(nowMillis, 1000), nowMillis, c.policy, c.config);
        }
        return false;
    }

    /** A write of this term was refused (another instance took over): step down and stand by. */
    void fenced(String why) {
        Leadership l = leadership;
        if (l != null) {
            l.stepDown(why);
        }
        standBy();
    }

    /** Forgets the books: another instance acts now, or may (see {@link LoopCore#forget}). */
    private void standBy() {
        if (actingEpoch != 0) {
            LOG.info("the scheduling loop stands by: it no longer leads (it led at epoch {})", actingEpoch);
        }
        actingEpoch = 0;
        c.forget();
        endTerm.run();
    }

    /** The core explanations read: the loop's own while it acts (or has no leadership), else the standby's view. */
    LoopCore viewed() {
        return actingEpoch != 0 || leadership == null || follower == null ? c : follower.c;
    }
}
