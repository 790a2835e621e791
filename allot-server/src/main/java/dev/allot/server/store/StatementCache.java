package dev.allot.server.store;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.statement.DefaultStatementBuilder;
import org.jdbi.v3.core.statement.StatementBuilder;
import org.jdbi.v3.core.statement.StatementBuilderFactory;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Prepared statements kept open per connection and handed out again for the same SQL, for SQLite's connections
 * ({@link Transactions}): Jdbi prepares every statement anew, and SQLite compiles it each time (schema lookups, and
 * the triggers of the table it writes: migration V9's change stamps on every update of a workload). In the cycle that
 * takes in 10,000 submissions (some 7,000 statements: starts, stops, ends) compiling was close to half the time the
 * loop's thread spent in SQLite (issue 21). PostgreSQL's driver keeps its own server-side statements.
 *
 * <p>A statement is checked out while Jdbi uses it ({@link StatementBuilder#create} takes it from the cache, or
 * prepares one; {@link StatementBuilder#close} gives it back, its parameters cleared), so the same SQL run twice at once
 * on one connection (a query inside the loop over another's results) gets two statements, never one shared. A
 * statement given back has its result set closed, which resets it in SQLite's driver, so a statement at rest is never
 * in progress: it holds no read snapshot open and does not stop a commit. Each connection keeps at most
 * {@link #MAX_PER_CONNECTION} distinct SQL texts (a query with an IN list has a text per list length), the least
 * recently used closed beyond that; the rest close with their connection.
 *
 * <p>A statement goes back under the SQL it was prepared from, remembered while it is out: Jdbi prepares the rendered
 * SQL (named parameters become {@code ?}) but gives the statement back with the SQL as written, so keying the return
 * on what Jdbi passes would never hit and would pile up open statements under the written text.
 */
final class StatementCache implements StatementBuilderFactory {
    /** Distinct SQL texts kept per connection. */
    static final int MAX_PER_CONNECTION = 256;

    /** The cache of each connection (a few: the pool's); one closed (the pool threw it away) is forgotten. */
    private final Map<Connection, Builder> builders = new IdentityHashMap<>();
    /** Statements prepared, over all connections (a statement handed out again is not counted). */
    private final AtomicLong prepared = new AtomicLong();

    /** How many statements were prepared: what reuse saved shows as fewer. */
    long prepared() {
        return prepared.get();
    }

    @Override
    public synchronized StatementBuilder createStatementBuilder(Connection connection) {
        builders.keySet().removeIf(StatementCache::closed);
        return builders.computeIfAbsent(connection, c -> new Builder(prepared));
    }

    private static boolean closed(Connection c) {
        try {
            return c.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    /** One connection's statements at rest, by SQL, least recently used first. Used by one thread at a time. */
    static final class Builder extends DefaultStatementBuilder {
        private final LinkedHashMap<String, Deque<PreparedStatement>> idle = new LinkedHashMap<>(64, 0.75f, true);
        /** Statements handed out and not yet given back, with the SQL each was prepared from. */
        private final Map<Statement, String> out = new IdentityHashMap<>();
        private final AtomicLong prepared;

        Builder(AtomicLong prepared) {
            this.prepared = prepared;
        }

        @Override
        public synchronized PreparedStatement create(Connection conn, String sql, StatementContext ctx)
                throws SQLException {
            return checkOut(sql, () -> super.create(conn, sql, ctx));
        }

        /**
         * A statement for {@code sql} (positional parameters) used without Jdbi ({@link RawStatement}), checked out
         * as {@link #create}'s; given back with {@link #close(Connection, String, Statement)}.
         */
        synchronized PreparedStatement take(Connection conn, String sql) throws SQLException {
            return checkOut(sql, () -> conn.prepareStatement(sql));
        }

        /** Prepares a statement; throws as JDBC does. */
        @FunctionalInterface
        private interface Prepare {
            PreparedStatement prepare() throws SQLException;
        }

        /** An idle statement for {@code sql}, else a new one from {@code prepare} (counted), checked out. */
        private PreparedStatement checkOut(String sql, Prepare prepare) throws SQLException {
            PreparedStatement s = idle(sql);
            if (s == null) {
                s = prepare.prepare();
                prepared.incrementAndGet();
            }
            out.put(s, sql);
            return s;
        }

        /** An open statement at rest for {@code sql}, taken out of the idle ones; null if there is none. */
        private PreparedStatement idle(String sql) throws SQLException {
            Deque<PreparedStatement> rest = idle.get(sql);
            while (rest != null && !rest.isEmpty()) {
                PreparedStatement s = rest.pop();
                if (!s.isClosed()) {
                    return s;
                }
            }
            return null;
        }

        @Override
        public synchronized void close(Connection conn, String written, Statement stmt) throws SQLException {
            giveBack(conn, written, stmt, true);
        }

        /**
         * Gives back a statement whose user closed every result set it opened ({@link RawStatement} after a run that
         * ended normally), so there is none to look for: asking SQLite's driver for the result set of a statement
         * that returns rows reads all its column names again (a {@code RETURNING} of the workload's twenty columns
         * for each of the thousand attempts an intake ends; issue 21).
         */
        synchronized void closeSettled(Connection conn, String written, Statement stmt) throws SQLException {
            giveBack(conn, written, stmt, false);
        }

        private void giveBack(Connection conn, String written, Statement stmt, boolean mayHaveResults)
                throws SQLException {
            String sql = out.remove(stmt);
            if (sql == null || !(stmt instanceof PreparedStatement ps) || stmt instanceof CallableStatement
                    || conn.isClosed() || stmt.isClosed()) {
                super.close(conn, written, stmt);
                return;
            }
            try {
                // At rest a statement must not be in progress (SQLite would hold its read snapshot, and refuse to
                // commit): a result set Jdbi left open (a statement run with execute() that returned rows) is closed,
                // which resets it.
                java.sql.ResultSet open = mayHaveResults ? ps.getResultSet() : null;
                if (open != null) {
                    open.close();
                }
                ps.clearParameters();
            } catch (SQLException e) {
                super.close(conn, sql, stmt);
                return;
            }
            idle.computeIfAbsent(sql, k -> new ArrayDeque<>(1)).push(ps);
            if (idle.size() > MAX_PER_CONNECTION) {
                Iterator<Map.Entry<String, Deque<PreparedStatement>>> it = idle.entrySet().iterator();
                Map.Entry<String, Deque<PreparedStatement>> eldest = it.next();
                it.remove();
                for (PreparedStatement old : eldest.getValue()) {
                    super.close(conn, eldest.getKey(), old);
                }
            }
        }

        @Override
        public void close(Connection conn) {
            // The connection goes back to the pool with its statements; they close when it does.
        }
    }
}
