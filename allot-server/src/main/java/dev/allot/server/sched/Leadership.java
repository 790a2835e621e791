package dev.allot.server.sched;

import dev.allot.server.store.Leases;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leadership, the part of a {@link SchedulerLoop} that says whether this instance may act: with several Allot
 * instances on one PostgreSQL database, exactly one, the leader, runs the cycle and talks to the backend; the others
 * stand by (they serve the API through the database). The leader is whoever holds the lease in the database
 * ({@link Leases}), taken or renewed every {@link #renewEvery} on a thread of its own (so that a long cycle never
 * delays a renewal) for {@link #lease} from the database's now.
 *
 * <p><b>When this instance may act.</b> From a successful renewal that began at local time {@code t0} (monotonic),
 * until {@code t0 + lease - margin}: the database's expiry is at least that late, since the database read its clock
 * after {@code t0}. So an instance that cannot renew (paused by SIGSTOP, cut off from the database, starved) stops
 * acting before any other can take over, by its own clock alone; and whatever it was doing when it stopped is caught
 * by the fence: the loop's store refuses every write of an epoch that is no longer the lease's
 * ({@link dev.allot.server.store.Store#fencedBy}), and the loop's backend refuses every call while this instance may
 * not act ({@link LeaderOnlyBackend}). That no other instance takes over before this one's own view of its lease ran
 * out assumes the two clocks run at the same rate to within {@link #MARGIN} a lease. What remains is a backend call
 * already past that check when the instance was paused, landing after it resumes: every start and stop was recorded
 * in the store first (fenced), so the new leader knows of it; it reconciles an attempt still open as a restart does
 * (started again under the same key, which backends start at most once; a stop sent again), never as absent, and
 * stops at its next observation a late start of an attempt it has already ended ({@link StaleStarts}).
 *
 * <p><b>Failover.</b> A standby tries to take the lease every {@link #renewEvery}; the leader's lease expires at most
 * {@link #lease} after its last renewal; so a standby leads at most {@code lease + renewEvery} after the leader died
 * (3 s + 1 s by default), and its first cycle (load and adoption, as after a restart) starts within one tick of that.
 *
 * <p>With SQLite ({@link #single}) there is one instance and it is always the leader: nothing is read or written.
 */
public final class Leadership implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

    /** How long a lease lasts from its last renewal. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(3);
    /** How often the leader renews, and a standby tries to take over. */
    public static final Duration DEFAULT_RENEW_EVERY = Duration.ofSeconds(1);
    /** Taken off the local validity of a lease, for the time between reading the database's clock and committing. */
    static final Duration MARGIN = Duration.ofMillis(100);

    /** What {@code /v1/health} and the metrics say of leadership. */
    public record Status(String role, String instance, String leader, long epoch, long termsLed, long stepDowns) {
        public static final String LEADER = "leader";
        public static final String STANDBY = "standby";

        public boolean leads() {
            return LEADER.equals(role);
        }
    }

    private final Leases leases;
    private final String instance;
    /** What the names of this instance's processes start with ({@link Leases#acquire}); null: none. */
    private final String place;
    private final Duration lease;
    private final Duration renewEvery;
    /** The epoch this instance holds the lease at; 0 when it holds none. */
    private volatile long epoch;
    /** Local monotonic time until which it may act on {@link #epoch}. */
    private volatile long validUntilNanos;
    /**
     * The holder of the lease as last read (this instance or another); null before the first read and after a read
     * failed (then nobody knows who leads, as far as this instance can tell).
     */
    private volatile String lastHolder;
    private final AtomicLong termsLed = new AtomicLong();
    private final AtomicLong stepDowns = new AtomicLong();
    private volatile Runnable onGain = () -> { };
    /** Whether the last try to reach the lease failed (logged once per streak). */
    private boolean unreachable;
    private ScheduledExecutorService thread;

    private Leadership(Leases leases, String place, String instance, Duration lease, Duration renewEvery) {
        this.leases = leases;
        this.place = place;
        this.instance = Objects.requireNonNull(instance, "instance");
        this.lease = Objects.requireNonNull(lease, "lease");
        this.renewEvery = Objects.requireNonNull(renewEvery, "renewEvery");
        if (lease.compareTo(MARGIN.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("a lease lasts at least " + MARGIN.multipliedBy(2).toMillis()
                    + " ms, got " + lease.toMillis() + " ms");
        }
        if (renewEvery.isNegative() || renewEvery.isZero() || renewEvery.compareTo(lease.minus(MARGIN)) >= 0) {
            throw new IllegalArgumentException("the lease must be renewed more often than it lasts (less "
                    + MARGIN.toMillis() + " ms): lease " + lease.toMillis() + " ms, renewal every "
                    + renewEvery.toMillis() + " ms");
        }
    }

    /** The one instance on an unshared store (SQLite): always the leader, at epoch 1, without a lease. */
    public static Leadership single(String instance) {
        Leadership l = new Leadership(null, null, instance, DEFAULT_LEASE, DEFAULT_RENEW_EVERY);
        l.epoch = 1;
        l.lastHolder = instance;
        l.termsLed.set(1);
        return l;
    }

    /**
     * One of several instances on a shared store: leads while it holds the lease in {@code leases}. Its name is
     * {@code place} and a part no other process has; a lease held under a name starting with {@code place} was held
     * by an earlier process of this instance, which the caller guarantees is gone (a service: its data directory's
     * lock), and is taken over at once.
     */
    public static Leadership onLease(Leases leases, String place, Duration lease, Duration renewEvery) {
        String instance = place + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong()
                & 0xffffffL | 0x1000000L).substring(1);
        return new Leadership(Objects.requireNonNull(leases, "leases"), place, instance, lease, renewEvery);
    }

    /** Runs {@code whenLeading} (a nudge of the loop) each time this instance becomes the leader. */
    public void onGain(Runnable whenLeading) {
        this.onGain = Objects.requireNonNull(whenLeading, "whenLeading");
    }

    /** Takes or renews the lease now, then every {@link #renewEvery} on a thread of its own. */
    public synchronized void start() {
        if (leases == null || thread != null) {
            return;
        }
        renewOnce();
        thread = dev.allot.server.Daemons.single("allot-leadership");
        thread.scheduleWithFixedDelay(this::renewSafely, renewEvery.toNanos(), renewEvery.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /** {@link #renewOnce}, never letting an exception through (a periodic task that throws is not run again). */
    private void renewSafely() {
        try {
            renewOnce();
        } catch (RuntimeException e) {
            LOG.error("the leader lease round failed; trying again in {} ms", renewEvery.toMillis(), e);
        }
    }

    /** One round: take or renew the lease, or learn who holds it. A database error leaves the validity to lapse. */
    void renewOnce() {
        if (leases == null) {
            return;
        }
        long t0 = System.nanoTime();
        long held = epoch;
        Leases.Lease l;
        try {
            l = leases.acquire(instance, place, held, lease.toMillis());
        } catch (RuntimeException e) {
            if (held > 0) {
                LOG.warn("could not renew the leader lease (epoch {}); this instance stops acting when it runs out:"
                        + " {}", held, e.getMessage());
            } else if (!unreachable) {
                LOG.warn("could not read the leader lease; this instance stands by until it can: {}", e.getMessage());
            }
            unreachable = true;
            lastHolder = null;
            return;
        }
        unreachable = false;
        if (!l.holder().equals(lastHolder) && !l.holder().equals(instance)) {
            LOG.info("instance {} leads (epoch {}); this instance ({}) stands by", l.holder(), l.epoch(), instance);
        }
        lastHolder = l.holder();
        if (l.holder().equals(instance)) {
            validUntilNanos = t0 + lease.minus(MARGIN).toNanos();
            if (l.epoch() != held) {
                epoch = l.epoch();
                termsLed.incrementAndGet();
                LOG.info("this instance ({}) is the leader from epoch {} on: it schedules and talks to the backend",
                        instance, l.epoch());
                onGain.run();
            }
        } else if (held > 0 || epoch > 0) {
            stepDown("instance " + l.holder() + " holds the lease at epoch " + l.epoch());
        }
    }

    /**
     * The epoch this instance may act under now, or 0 when it may not (a standby, or a leader whose lease may have
     * run out by its own clock). The loop's store and backend check it before every action.
     */
    public long actingEpoch() {
        long e = epoch;
        if (e <= 0) {
            return 0;
        }
        if (leases != null && System.nanoTime() - validUntilNanos >= 0) {
            return 0;
        }
        return e;
    }

    /** Whether this instance may act now ({@link #actingEpoch} above 0). */
    public boolean mayAct() {
        return actingEpoch() > 0;
    }

    /** Steps down at once (a write of this instance's loop was refused: another has taken over). */
    public void stepDown(String why) {
        if (leases == null) {
            return; // the only instance: nobody can take over
        }
        if (epoch > 0) {
            stepDowns.incrementAndGet();
            LOG.warn("this instance ({}) steps down as leader (epoch {}): {}", instance, epoch, why);
        }
        epoch = 0;
        validUntilNanos = System.nanoTime();
    }

    /**
     * Who leads, as this instance knows it: itself while it may act; otherwise the other instance that held the lease
     * at the last read, or null (none known) when the lease could not be read or this instance was its last holder
     * (its lease lapsed or it stepped down: it does not know who took over, if anyone did, before its next read). So
     * the role and the leader never disagree: a standby never names itself.
     */
    public Status status() {
        boolean leads = mayAct();
        String holder = lastHolder;
        String leader = leads ? instance : instance.equals(holder) ? null : holder;
        return new Status(leads ? Status.LEADER : Status.STANDBY, instance, leader, leads ? epoch : 0,
                termsLed.get(), stepDowns.get());
    }

    public String instance() {
        return instance;
    }

    /** How long a lease lasts; with the renewal period, what bounds a failover. */
    public Duration lease() {
        return lease;
    }

    public Duration renewEvery() {
        return renewEvery;
    }

    /**
     * Stops renewing and, if this instance leads, gives the lease up so that a standby takes over at once. Call it
     * once the loop has stopped acting.
     */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = thread;
            thread = null;
        }
        dev.allot.server.Daemons.stop(t, Duration.ofSeconds(5), "the leadership thread");
        long held = epoch;
        if (leases != null && held > 0) {
            epoch = 0;
            try {
                leases.release(instance, held);
                LOG.info("this instance ({}) gave the leader lease up (epoch {})", instance, held);
            } catch (RuntimeException e) {
                LOG.warn("could not give the leader lease up; it expires within {} ms: {}", lease.toMillis(),
                        e.getMessage());
            }
        }
    }
}
