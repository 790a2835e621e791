package dev.allot.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.concurrent.atomic.LongAdder;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementBuilder;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * One prepared statement run by hand on a Jdbi {@link Handle}'s connection, for the few statements the scheduler runs
 * by the thousand in a cycle (beginning, stopping and ending attempts): Jdbi's set-up of a statement (a copy of its
 * configuration, named parameters, argument and row mappers) cost some 20 us a statement, as much as SQLite's own work
 * for these (issue 21, the intake of 10,000 submissions: about 4,000 such statements). Positional parameters, bound in
 * order by the {@code set} methods; the statement is SQLite's cached one for the connection
 * ({@link StatementCache.Builder#take}) or, on PostgreSQL, prepared for the call (its driver keeps server-side
 * statements by SQL). Each execution counts in {@link Transactions#statementsExecuted} as Jdbi's do (a JDBC batch
 * once). A database error is thrown as Jdbi's {@link UnableToExecuteStatementException}, so {@link Transactions}
 * treats it as it treats Jdbi's: retried when PostgreSQL asks, failing a batch, worded the same. Used by one thread,
 * inside one transaction; closing it gives the statement back.
 */
final class RawStatement implements AutoCloseable {
    private final Connection connection;
    private final StatementCache.Builder cache;
    private final String sql;
    private final PreparedStatement ps;
    private final LongAdder executed;
    private int next = 1;
    /**
     * Whether every run so far ended normally, its result set closed (which resets the statement): then the cache
     * takes it back without looking for an open one ({@link StatementCache.Builder#closeSettled}).
     */
    private boolean settled = true;

    private RawStatement(Connection connection, StatementCache.Builder cache, String sql, PreparedStatement ps,
                         LongAdder executed) {
        this.connection = connection;
        this.cache = cache;
        this.sql = sql;
        this.ps = ps;
        this.executed = executed;
    }

    /** A statement for {@code sql} on {@code h}'s connection, its executions counted into {@code executed}. */
    static RawStatement of(Handle h, String sql, LongAdder executed) {
        Connection c = h.getConnection();
        StatementBuilder b = h.getStatementBuilder();
        StatementCache.Builder cache = b instanceof StatementCache.Builder cb ? cb : null;
        try {
            return new RawStatement(c, cache, sql, cache == null ? c.prepareStatement(sql) : cache.take(c, sql),
                    executed);
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** Binds one parameter, the next in order, with JDBC's setter; throws as JDBC does. */
    @FunctionalInterface
    private interface Binding {
        void bind(PreparedStatement ps, int index) throws SQLException;
    }

    private RawStatement bind(Binding binding) {
        try {
            binding.bind(ps, next++);
        } catch (SQLException e) {
            throw failed(e);
        }
        return this;
    }

    RawStatement set(String value) {
        return bind((p, i) -> p.setString(i, value));
    }

    RawStatement set(long value) {
        return bind((p, i) -> p.setLong(i, value));
    }

    RawStatement set(boolean value) {
        return bind((p, i) -> p.setBoolean(i, value));
    }

    /** A {@code BIGINT} that may be null. */
    RawStatement setNullable(Long value) {
        return bind((p, i) -> {
            if (value == null) {
                p.setNull(i, Types.BIGINT);
            } else {
                p.setLong(i, value);
            }
        });
    }

    /** A {@code DOUBLE} that may be null. */
    RawStatement setNullable(Double value) {
        return bind((p, i) -> {
            if (value == null) {
                p.setNull(i, Types.DOUBLE);
            } else {
                p.setDouble(i, value);
            }
        });
    }

    /** Runs it as a statement that returns no rows; how many rows it changed. Parameters are bound anew after. */
    int update() {
        executed.increment();
        settled = false;
        try {
            int n = ps.executeUpdate();
            settled = true;
            return n;
        } catch (SQLException e) {
            throw failed(e);
        } finally {
            next = 1;
        }
    }

    /** Adds the parameters bound to the batch ({@link #runBatch}); they are bound anew after. */
    RawStatement add() {
        try {
            ps.addBatch();
        } catch (SQLException e) {
            throw failed(e);
        } finally {
            next = 1;
        }
        return this;
    }

    /** Runs the batch; the rows each of its entries changed, in order. It counts as one statement. */
    int[] runBatch() {
        executed.increment();
        settled = false;
        try {
            int[] n = ps.executeBatch();
            settled = true;
            return n;
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** A row read from a result set; throws as JDBC does. */
    @FunctionalInterface
    interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /**
     * Runs it as a statement that returns at most one row ({@code RETURNING}), read with {@code reader}; null when it
     * returned none. Parameters are bound anew after.
     */
    <T> T one(RowReader<T> reader) {
        executed.increment();
        settled = false;
        try {
            ps.execute();
            T row;
            try (ResultSet rs = ps.getResultSet()) {
                row = rs != null && rs.next() ? reader.read(rs) : null;
            }
            settled = true;
            return row;
        } catch (SQLException e) {
            throw failed(e);
        } finally {
            next = 1;
        }
    }

    /** What is done with each row of a query ({@link #forEachRow}); throws as JDBC does. */
    @FunctionalInterface
    interface RowConsumer {
        void accept(ResultSet rs) throws SQLException;
    }

    /** Runs it as a query, giving {@code consumer} each row in turn. Parameters are bound anew after. */
    void forEachRow(RowConsumer consumer) {
        executed.increment();
        settled = false;
        try {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    consumer.accept(rs);
                }
            }
            settled = true;
        } catch (SQLException e) {
            throw failed(e);
        } finally {
            next = 1;
        }
    }

    /** Gives the statement back to the connection's cache, or closes it. */
    @Override
    public void close() {
        try {
            if (cache != null && settled) {
                cache.closeSettled(connection, sql, ps);
            } else if (cache != null) {
                cache.close(connection, sql, ps);
            } else {
                ps.close();
            }
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    private static UnableToExecuteStatementException failed(SQLException e) {
        return new UnableToExecuteStatementException(e, null);
    }
}
