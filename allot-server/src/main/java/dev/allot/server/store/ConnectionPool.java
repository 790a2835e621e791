package dev.allot.server.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.ConnectionFactory;

/**
 * A fixed-size pool of JDBC connections for the Jdbi of {@link Transactions}: at most {@code size} connections are
 * in use at once, callers beyond that wait (fairly, first come first served) up to a time limit.
 *
 * <p>Why our own: SQLite has one writer, so its store uses a pool of one, which makes every transaction of the
 * process take turns on a single connection (no SQLITE_BUSY between our own threads, no write-lock upgrade
 * deadlocks). PostgreSQL gets a few connections. The service needs nothing more, and no pool library is a
 * dependency. A connection that comes back closed or inside a transaction is thrown away, not reused; one that has
 * been idle for a while is checked before it is handed out (a database server may have restarted).
 */
final class ConnectionPool implements ConnectionFactory, AutoCloseable {
    /** Opens one new connection, configured for the store. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    private record Idle(Connection connection, long returnedAtNanos) {
    }

    private static final long CHECK_AFTER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int VALID_TIMEOUT_SECONDS = 5;

    private final Opener opener;
    private final int size;
    private final long waitMillis;
    private final Semaphore permits;
    private final Deque<Idle> idle = new ArrayDeque<>();
    private volatile boolean closed;

    ConnectionPool(Opener opener, int size, long waitMillis) {
        if (size < 1) {
            throw new IllegalArgumentException("a pool needs at least one connection, got " + size);
        }
        this.opener = opener;
        this.size = size;
        this.waitMillis = waitMillis;
        this.permits = new Semaphore(size, true);
    }

    @Override
    public Connection openConnection() throws SQLException {
        if (closed) {
            throw new StoreException("the store is closed");
        }
        try {
            if (!permits.tryAcquire(waitMillis, TimeUnit.MILLISECONDS)) {
                throw new StoreException("timed out after " + waitMillis + " ms waiting for a database connection ("
                        + size + " in the pool, all in use)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for a database connection", e);
        }
        try {
            if (closed) {
                throw new StoreException("the store is closed");
            }
            Idle i;
            while ((i = pollIdle()) != null) {
                if (System.nanoTime() - i.returnedAtNanos < CHECK_AFTER_IDLE_NANOS
                        || i.connection.isValid(VALID_TIMEOUT_SECONDS)) {
                    return i.connection;
                }
                closeQuietly(i.connection);
            }
            return opener.open();
        } catch (SQLException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    @Override
    public void closeConnection(Connection connection) {
        try {
            boolean reusable;
            try {
                reusable = !closed && !connection.isClosed() && connection.getAutoCommit();
            } catch (SQLException e) {
                reusable = false;
            }
            if (reusable) {
                synchronized (idle) {
                    idle.push(new Idle(connection, System.nanoTime()));
                }
            } else {
                closeQuietly(connection);
            }
        } finally {
            permits.release();
        }
    }

    private Idle pollIdle() {
        synchronized (idle) {
            return idle.pollFirst();
        }
    }

    /**
     * Closes the pool: waits (up to the same time limit) for the connections in use to come back, so that no
     * transaction is cut short, then closes every connection.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        boolean all = false;
        try {
            all = permits.tryAcquire(size, waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closed = true;
        Idle i;
        while ((i = pollIdle()) != null) {
            closeQuietly(i.connection);
        }
        if (all) {
            permits.release(size);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // a connection we no longer want; nothing to do about it failing to close
        }
    }
}
