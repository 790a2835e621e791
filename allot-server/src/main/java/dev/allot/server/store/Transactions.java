package dev.allot.server.store;

import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * How the parts of the {@link Store} run their work: each public store method is one call of {@link #tx}, one
 * transaction on a connection from the store's {@link ConnectionPool}. The connections come configured by
 * {@link Store#open}: SQLite's begin transactions {@code IMMEDIATE} (and there is one of them, so transactions take
 * turns), PostgreSQL's run {@code SERIALIZABLE} with {@code synchronous_commit=on}. Kept in one place so every part
 * gets the same retries, the same error wording and the same durability, and none of them touches the pool itself.
 */
final class Transactions implements AutoCloseable {
    private static final long CONNECTION_WAIT_MILLIS = 60_000;
    private static final int MAX_TRIES = 20;

    private final ConnectionPool pool;
    private final Jdbi jdbi;

    Transactions(ConnectionPool.Opener opener, int poolSize) {
        this.pool = new ConnectionPool(opener, poolSize, CONNECTION_WAIT_MILLIS);
        this.jdbi = Jdbi.create(pool);
    }

    /**
     * Runs {@code work} as one transaction. A transaction PostgreSQL aborted for serializability or a deadlock is
     * run again after a short random pause (it changed nothing); other database errors become a
     * {@link StoreException} naming what was being done. Exceptions thrown by {@code work} roll back and pass
     * through unchanged.
     */
    <T> T tx(String what, HandleCallback<T, RuntimeException> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return jdbi.inTransaction(work);
            } catch (StoreException | IllegalArgumentException e) {
                throw e;
            } catch (JdbiException e) {
                if (attempt < MAX_TRIES && retryable(e)) {
                    pause(attempt);
                    continue;
                }
                throw new StoreException("could not " + what + ": " + rootMessage(e), e);
            }
        }
    }

    /** Waits for the transactions in progress to finish, then closes the connections. */
    @Override
    public void close() {
        pool.close();
    }

    private static boolean retryable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                for (SQLException x = s; x != null; x = x.getNextException()) {
                    if ("40001".equals(x.getSQLState()) || "40P01".equals(x.getSQLState())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2L + Math.min(attempt, 8) * 5L));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while retrying a transaction", e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
