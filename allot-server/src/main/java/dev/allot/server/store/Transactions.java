package dev.allot.server.store;

import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.SqlLogger;
import org.jdbi.v3.core.statement.SqlStatements;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * How the parts of the {@link Store} run their work: each public store method is one call of {@link #tx}, one
 * transaction on a connection from the store's {@link ConnectionPool}, or, when it only reads, of {@link #read}. The
 * connections come configured by {@link Store#open}: SQLite's begin transactions {@code IMMEDIATE} (and there is one
 * of them, so writing transactions take turns), PostgreSQL's run {@code SERIALIZABLE} with
 * {@code synchronous_commit=on}. On SQLite, reads have connections of their own ({@code query_only}, transactions
 * begun {@code DEFERRED}): in write-ahead-log mode a reader sees the last commit and neither waits for the writer nor
 * holds it up, so an API request that reads (a workload, a token) does not queue behind the scheduler's writes and
 * re-reads (issue 21 measured 106-112 ms stalls at 10,000 waiting workloads on the single connection). Kept in one
 * place so every part gets the same retries, the same error wording and the same durability, and none of them
 * touches the pools itself.
 */
final class Transactions implements AutoCloseable {
    private static final long CONNECTION_WAIT_MILLIS = 60_000;
    private static final int MAX_TRIES = 20;

    private final ConnectionPool pool;
    private final Jdbi jdbi;
    /** The pool of {@link #read}'s connections, or null: reads run as {@link #tx} on {@link #pool}. */
    private final ConnectionPool readPool;
    private final Jdbi readJdbi;
    /** Run first in every transaction (null: none): the leader lease check of {@link Store#fencedBy}. */
    private final Fence fence;
    /** Whether {@link #batch} joins calls into one transaction (SQLite: one writer, nothing to retry). */
    private final boolean batches;
    /** The transaction of the {@link #batch} running on this thread, if any. */
    private final ThreadLocal<Batch> batch = new ThreadLocal<>();
    /** Statements executed on either pool's connections ({@link #statementsExecuted}). */
    private final LongAdder executed;

    /** A check run first in a transaction, on its handle; it throws to refuse the transaction. */
    @FunctionalInterface
    interface Fence {
        void check(org.jdbi.v3.core.Handle h);
    }

    Transactions(ConnectionPool.Opener opener, int poolSize) {
        this(opener, poolSize, null, 0);
    }

    /** With {@code readers} connections from {@code readOpener} for {@link #read} (null: reads share the pool). */
    Transactions(ConnectionPool.Opener opener, int poolSize, ConnectionPool.Opener readOpener, int readers) {
        this.pool = new ConnectionPool(opener, poolSize, CONNECTION_WAIT_MILLIS);
        this.jdbi = Jdbi.create(pool);
        this.readPool = readOpener == null ? null : new ConnectionPool(readOpener, readers, CONNECTION_WAIT_MILLIS);
        this.readJdbi = readPool == null ? null : Jdbi.create(readPool);
        this.executed = new LongAdder();
        count(jdbi, executed);
        if (readJdbi != null) {
            count(readJdbi, executed);
        }
        if (readOpener != null) { // SQLite (see StatementCache)
            StatementCache statements = new StatementCache();
            jdbi.setStatementBuilderFactory(statements);
            readJdbi.setStatementBuilderFactory(statements);
        }
        this.fence = null;
        this.batches = readOpener != null;
    }

    private Transactions(Transactions base, Fence fence) {
        this.pool = base.pool;
        this.jdbi = base.jdbi;
        this.readPool = base.readPool;
        this.readJdbi = base.readJdbi;
        this.fence = fence;
        this.batches = base.batches;
        this.executed = base.executed;
    }

    /** Counts each statement {@code j} executes into {@code into} (a batch of rows counts once). */
    private static void count(Jdbi j, LongAdder into) {
        j.getConfig(SqlStatements.class).setSqlLogger(new SqlLogger() {
            @Override
            public void logBeforeExecution(StatementContext context) {
                into.increment();
            }
        });
    }

    /**
     * How many SQL statements these connections have executed since they opened, savepoints included (a JDBC batch
     * counts once): what a change that saves statements can be measured by, beside noisy wall time.
     */
    long statementsExecuted() {
        return executed.sum();
    }

    /**
     * A statement for {@code sql} (positional parameters) run by hand on {@code h}, the handle of a transaction of
     * this: for the few statements the scheduler runs by the thousand ({@link RawStatement}). Close it when done.
     */
    RawStatement raw(org.jdbi.v3.core.Handle h, String sql) {
        return RawStatement.of(h, sql, executed);
    }

    /** The same connections, every transaction of which runs {@code fence} first (and is refused if it throws). */
    Transactions fencedBy(Fence fence) {
        return new Transactions(this, java.util.Objects.requireNonNull(fence, "fence"));
    }

    /**
     * Runs {@code work} as one transaction. A transaction PostgreSQL aborted for serializability or a deadlock is
     * run again after a short random pause (it changed nothing); other database errors become a
     * {@link StoreException} naming what was being done. Exceptions thrown by {@code work} roll back and pass
     * through unchanged.
     */
    <T> T tx(String what, HandleCallback<T, RuntimeException> work) {
        Batch joined = batch.get();
        if (joined != null) {
            return inSavepoint(joined.handle, what, work);
        }
        for (int attempt = 1; ; attempt++) {
            try {
                if (fence == null) {
                    return jdbi.inTransaction(work);
                }
                return jdbi.inTransaction(h -> {
                    fence.check(h);
                    return work.withHandle(h);
                });
            } catch (StoreException | IllegalArgumentException e) {
                throw e;
            } catch (JdbiException e) {
                if (attempt < MAX_TRIES && retryable(e)) {
                    pause(attempt);
                    continue;
                }
                if (unreachable(e)) {
                    throw new StoreUnavailableException("could not " + what + ": the database could not be reached: "
                            + rootMessage(e), e);
                }
                throw new StoreException("could not " + what + ": " + rootMessage(e), e);
            }
        }
    }

    /**
     * Runs {@code work}, which only reads, as one transaction: on a reader connection of its own when the store has
     * them (SQLite), else as {@link #tx} (fenced like it, when this is a fenced view). It sees every transaction
     * committed before it began. Errors as {@link #tx}'s.
     */
    <T> T read(String what, HandleCallback<T, RuntimeException> work) {
        if (batch.get() != null) {
            return direct(what, work); // it sees the batch's writes; it writes nothing a savepoint would have to undo
        }
        if (readJdbi == null || fence != null) {
            return tx(what, work);
        }
        try {
            return readJdbi.inTransaction(work);
        } catch (StoreException | IllegalArgumentException e) {
            throw e;
        } catch (JdbiException e) {
            if (unreachable(e)) {
                throw new StoreUnavailableException("could not " + what + ": the database could not be reached: "
                        + rootMessage(e), e);
            }
            throw new StoreException("could not " + what + ": " + rootMessage(e), e);
        }
    }

    /**
     * Runs {@code work} as {@link #tx}, for work that throws exceptions of its own (a conflict, a row not found) only
     * before its first write: once it has written, only a database error can stop it. Inside a {@link #batch} it
     * therefore runs without a savepoint of its own (two statements fewer per call: the intake of 10,000 submissions
     * begins some 500 attempts, marks some 1,000 stopping and ends as many; issue 21): what it throws before writing
     * left nothing to undo, and a database error fails the whole batch ({@link #direct}), whatever the caller does
     * with it. Alone it is a transaction like any other.
     */
    <T> T txGuarded(String what, HandleCallback<T, RuntimeException> work) {
        if (batch.get() != null) {
            return direct(what, work);
        }
        return tx(what, work);
    }

    /**
     * Runs {@code work} on the running batch's transaction as it is, its errors as {@link #tx}'s. A database error
     * marks the batch failed: it rolls back whole even if the caller catches the error and goes on, since work run
     * this way has no savepoint to undo what it wrote before the error.
     */
    private <T> T direct(String what, HandleCallback<T, RuntimeException> work) {
        Batch b = batch.get();
        try {
            return work.withHandle(b.handle);
        } catch (StoreException | IllegalArgumentException e) {
            throw e;
        } catch (JdbiException e) {
            StoreException failed = new StoreException("could not " + what + ": " + rootMessage(e), e);
            b.failed = failed;
            throw failed;
        }
    }

    /** The transaction of a running {@link #batch}, and the database error that failed it, if one did. */
    private static final class Batch {
        final org.jdbi.v3.core.Handle handle;
        StoreException failed;

        Batch(org.jdbi.v3.core.Handle handle) {
            this.handle = handle;
        }
    }

    /**
     * Runs {@code work} with every store call it makes on this thread joined into one transaction, committed (one
     * {@code fsync}) when it returns, each call inside a savepoint of its own, so that a call that throws undoes only
     * its own writes, as alone it would. On SQLite only, where the one writer never has to retry: on PostgreSQL a
     * serialization failure would have to replay work whose effects outside the store cannot be replayed, so there
     * each call stays its own transaction. While it runs, other writers wait (SQLite has one); readers do not. Reads
     * inside it see its writes. If the commit fails, nothing of it was stored and the exception says so.
     */
    void batch(Runnable work) {
        if (!batches || batch.get() != null) {
            work.run();
            return;
        }
        try {
            jdbi.useTransaction(h -> {
                if (fence != null) {
                    fence.check(h);
                }
                Batch b = new Batch(h);
                batch.set(b);
                try {
                    work.run();
                } finally {
                    batch.remove();
                }
                if (b.failed != null) {
                    throw b.failed; // rolls the batch back: a call without a savepoint failed halfway
                }
            });
        } catch (StoreException | IllegalArgumentException e) {
            throw e;
        } catch (JdbiException e) {
            throw new StoreException("could not commit a batch of the scheduler's changes: " + rootMessage(e), e);
        }
    }

    /**
     * Runs one call of a batch inside a savepoint. Savepoints nest by name (a call inside a call takes the most
     * recent), so every call uses the same one, and its three statements are prepared once per connection
     * ({@link StatementCache}) rather than compiled anew for a fresh name each call.
     */
    private <T> T inSavepoint(org.jdbi.v3.core.Handle h, String what, HandleCallback<T, RuntimeException> work) {
        try {
            h.execute("SAVEPOINT allot_call");
            T result;
            try {
                result = work.withHandle(h);
            } catch (RuntimeException e) {
                h.execute("ROLLBACK TO allot_call");
                h.execute("RELEASE allot_call");
                throw e;
            }
            h.execute("RELEASE allot_call");
            return result;
        } catch (StoreException | IllegalArgumentException e) {
            throw e;
        } catch (JdbiException e) {
            throw new StoreException("could not " + what + ": " + rootMessage(e), e);
        }
    }

    /** Waits for the transactions in progress to finish, then closes the connections. */
    @Override
    public void close() {
        pool.close();
        if (readPool != null) {
            readPool.close();
        }
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

    /** Whether the database could not be reached: a connection exception (SQL state class 08), or the network's. */
    private static boolean unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("08")) {
                return true;
            }
            if (t instanceof java.io.IOException) {
                return true;
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
