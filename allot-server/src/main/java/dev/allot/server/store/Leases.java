package dev.allot.server.store;

import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The leader lease part of the {@link Store} ({@link Store#leases()}): which of several Allot instances on one
 * database is the leader, the one that runs the scheduling loop and talks to the backend. One row, by the database's
 * clock (so the instances' clocks need not agree): its holder, its epoch and when it expires. The epoch rises by one
 * at every change of holder; it is the fencing token that {@link Store#fencedBy} checks in every transaction of the
 * leader's loop, so that an instance that lost the lease (paused, cut off, slow) has every write refused once another
 * has taken over.
 *
 * <p>Taking over and renewing are one transaction that locks the row ({@code FOR UPDATE}); a fenced transaction locks
 * it shared ({@code FOR SHARE}). So a takeover waits for the old leader's write in progress, and a write that starts
 * after a takeover sees the new epoch: every write of the old term is either committed before the new term begins
 * (and the new leader, which loads after its takeover, sees it) or refused.
 */
public final class Leases {
    /** The lease the scheduling loop runs under (one per database). */
    static final String SCHEDULER = "scheduler";

    private final Transactions transactions;
    private final Store.Vendor vendor;

    Leases(Transactions transactions, Store.Vendor vendor) {
        this.transactions = transactions;
        this.vendor = vendor;
    }

    /**
     * The lease as the database holds it: its holder, epoch, when the holder took it and when it expires (epoch
     * millis by the database's clock), with the database's clock when it was read.
     */
    public record Lease(String holder, long epoch, long acquiredAtMillis, long expiresAtMillis,
                        long databaseNowMillis) {
        /** Whether {@code instance} holds it at {@code epoch}. */
        public boolean heldBy(String instance, long ofEpoch) {
            return holder.equals(instance) && epoch == ofEpoch;
        }

        /** Whether it had expired when it was read. */
        public boolean expired() {
            return expiresAtMillis <= databaseNowMillis;
        }
    }

    /**
     * Takes or renews the scheduler lease for {@code instance} for {@code durationMillis} from now (the database's
     * now), in one transaction: renewed, same epoch, when {@code instance} still holds it at {@code knownEpoch};
     * taken, epoch one higher, when nobody holds it, it has expired, or its holder's name starts with
     * {@code restartOf} (an earlier process of this instance, which the caller knows is gone); otherwise left as it
     * is. Returns the lease as it is afterwards: {@code instance} holds it exactly when {@link Lease#holder} names it.
     *
     * @param restartOf  the part of a holder's name that says it was this instance (null: none)
     * @param knownEpoch the epoch {@code instance} believes it holds, or 0 when it believes it holds none
     */
    public Lease acquire(String instance, String restartOf, long knownEpoch, long durationMillis) {
        Objects.requireNonNull(instance, "instance");
        if (durationMillis <= 0) {
            throw new IllegalArgumentException("a lease lasts a positive time, got " + durationMillis + " ms");
        }
        return transactions.tx("take or renew the leader lease", h -> {
            bounded(h, vendor, durationMillis);
            long now = databaseNow(h);
            Optional<Lease> row = read(h, vendor == Store.Vendor.POSTGRESQL ? " FOR UPDATE" : "", now);
            if (row.isEmpty()) {
                h.createUpdate("INSERT INTO leader_lease (name, holder, epoch, acquired_at_ms, expires_at_ms)"
                                + " VALUES (:name, :holder, 1, :now, :expires)")
                        .bind("name", SCHEDULER).bind("holder", instance).bind("now", now)
                        .bind("expires", now + durationMillis).execute();
                return new Lease(instance, 1, now, now + durationMillis, now);
            }
            Lease l = row.get();
            if (l.heldBy(instance, knownEpoch)) {
                h.createUpdate("UPDATE leader_lease SET expires_at_ms = :expires WHERE name = :name")
                        .bind("expires", now + durationMillis).bind("name", SCHEDULER).execute();
                return new Lease(instance, l.epoch(), l.acquiredAtMillis(), now + durationMillis, now);
            }
            if (l.expired() || l.holder().equals(instance)
                    || restartOf != null && l.holder().startsWith(restartOf)) {
                // Expired, or held by an earlier process of this instance (gone: for a service, its data
                // directory's lock proves it): a new term.
                h.createUpdate("UPDATE leader_lease SET holder = :holder, epoch = :epoch, acquired_at_ms = :now,"
                                + " expires_at_ms = :expires WHERE name = :name")
                        .bind("holder", instance).bind("epoch", l.epoch() + 1).bind("now", now)
                        .bind("expires", now + durationMillis).bind("name", SCHEDULER).execute();
                return new Lease(instance, l.epoch() + 1, now, now + durationMillis, now);
            }
            return l;
        });
    }

    /**
     * Gives the lease up at once (on a clean stop, once the loop has stopped acting), so that a standby need not wait
     * for it to expire. Does nothing unless {@code instance} still holds it at {@code epoch}.
     */
    public void release(String instance, long epoch) {
        transactions.tx("release the leader lease", h -> h.createUpdate("UPDATE leader_lease SET expires_at_ms = :now"
                        + " WHERE name = :name AND holder = :holder AND epoch = :epoch")
                .bind("now", databaseNow(h)).bind("name", SCHEDULER).bind("holder", instance).bind("epoch", epoch)
                .execute());
    }

    /** The lease as it is now; empty before any instance took it. */
    public Optional<Lease> current() {
        return transactions.tx("read the leader lease", h -> read(h, "", databaseNow(h)));
    }

    /**
     * Refuses (with a {@link FencedException}) a transaction of {@code instance}'s scheduling loop unless it still
     * holds the lease at {@code epoch}: the check {@link Store#fencedBy} runs first in every transaction, holding the
     * row shared until the transaction ends (PostgreSQL), so no takeover can commit in between.
     */
    static void requireHeld(Handle h, Store.Vendor vendor, String instance, long epoch, long leaseMillis) {
        bounded(h, vendor, leaseMillis);
        Optional<Lease> l = h.createQuery("SELECT holder, epoch FROM leader_lease WHERE name = :name"
                        + (vendor == Store.Vendor.POSTGRESQL ? " FOR SHARE" : ""))
                .bind("name", SCHEDULER)
                .map((rs, ctx) -> new Lease(rs.getString(1), rs.getLong(2), 0, 0, 0))
                .findOne();
        if (epoch <= 0) {
            throw new FencedException("instance " + instance + " is not the leader; its scheduling loop may not write");
        }
        if (l.isEmpty() || !l.get().heldBy(instance, epoch)) {
            throw new FencedException("instance " + instance + " lost the leader lease (it held epoch " + epoch + "; "
                    + l.map(x -> "now " + x.holder() + " holds epoch " + x.epoch()).orElse("nobody holds it now")
                    + "): the write was refused");
        }
    }

    /**
     * Bounds how long this transaction may hold the lease row locked while its client does nothing (PostgreSQL ends
     * a session idle in a transaction that long, releasing its locks): a leader paused or cut off in the middle of a
     * transaction would otherwise keep every standby from taking over until it came back. A lease's length: by then
     * the lease has run out anyway.
     */
    private static void bounded(Handle h, Store.Vendor vendor, long leaseMillis) {
        if (vendor == Store.Vendor.POSTGRESQL) {
            h.execute("SET LOCAL idle_in_transaction_session_timeout = " + Math.max(1, leaseMillis));
        }
    }

    private static Optional<Lease> read(Handle h, String lock, long now) {
        return h.createQuery("SELECT holder, epoch, acquired_at_ms, expires_at_ms FROM leader_lease WHERE name = :name"
                        + lock)
                .bind("name", SCHEDULER)
                .map((rs, ctx) -> new Lease(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), now))
                .findOne();
    }

    /** The database's clock, epoch millis: the one clock every instance agrees on. */
    private long databaseNow(Handle h) {
        String sql = vendor == Store.Vendor.POSTGRESQL
                ? "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)"
                : "SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
        return h.createQuery(sql).mapTo(Long.class).one();
    }
}
