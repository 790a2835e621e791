package dev.allot.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.jdbi.v3.core.Handle;

/**
 * How new workloads are inserted on SQLite, the hot path of {@code POST /v1/workloads}: one statement per workload,
 * prepared once per transaction, its id {@code w-<seq>} written with the row.
 *
 * <p>The seq comes from the table's {@code AUTOINCREMENT}, which hands out one more than the larger of the highest
 * seq ever used ({@code sqlite_sequence}) and the highest in the table. This reads that once per transaction and
 * counts on from it: the transaction holds SQLite's one write lock from its start ({@code BEGIN IMMEDIATE}), so no
 * other writer can take a seq meanwhile, and inserting an explicit seq moves {@code sqlite_sequence} on as
 * {@code AUTOINCREMENT} would, so a seq is still never reused. (It replaces inserting under a random placeholder id
 * and renaming the row after: two statements, a random UUID and Jdbi's binding per workload, which were a third of
 * the API threads' CPU samples under single submissions; issue 21.) A submission whose idempotency key an earlier
 * one used inserts nothing and takes no seq: the earlier workload is its answer.
 */
final class SqliteInsert {
    /** The columns a new workload is inserted with, after {@code seq}. */
    static final String COLUMNS = "id, allocation_path, user_name, gpus, gpus_per_node, duration_seconds,"
            + " min_runtime_seconds, resumable, priority, kind, command, environment, state, submitted_at_ms,"
            + " cancel_requested, idempotency_key";
    private static final String INSERT = "INSERT INTO workloads (seq, " + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?,"
            + " ?, ?, ?, ?, ?, ?, 'pending', ?, 0, ?) ON CONFLICT (idempotency_key) DO NOTHING";
    private static final String LAST_SEQ = "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name ="
            + " 'workloads'), 0), coalesce((SELECT max(seq) FROM workloads), 0))";

    private SqliteInsert() {
    }

    /**
     * Inserts {@code ws} in order in the transaction {@code h} (which must hold the write lock: the store's writer
     * begins {@code IMMEDIATE}); {@code earlier} answers a submission whose idempotency key is taken.
     */
    static List<Workload> insertAll(Handle h, List<NewWorkload> ws, BiFunction<Handle, String, Workload> earlier) {
        List<Workload> out = new ArrayList<>(ws.size());
        Connection c = h.getConnection();
        try {
            long seq = lastSeq(c);
            try (PreparedStatement insert = c.prepareStatement(INSERT)) {
                for (NewWorkload w : ws) {
                    long next = seq + 1;
                    bind(insert, next, w);
                    if (insert.executeUpdate() == 1) {
                        seq = next;
                        out.add(Workloads.stored(next, w));
                    } else {
                        out.add(earlier.apply(h, w.idempotencyKey()));
                    }
                }
            }
        } catch (SQLException e) {
            throw new StoreException("could not insert " + (ws.size() == 1 ? "a workload" : ws.size() + " workloads")
                    + ": " + e.getMessage(), e);
        }
        return out;
    }

    private static long lastSeq(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(LAST_SEQ); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void bind(PreparedStatement s, long seq, NewWorkload w) throws SQLException {
        int i = 1;
        s.setLong(i++, seq);
        s.setString(i++, "w-" + seq);
        s.setString(i++, w.allocationPath());
        s.setString(i++, w.user());
        s.setInt(i++, w.gpus());
        s.setInt(i++, w.gpusPerNode());
        if (w.durationSeconds() == null) {
            s.setNull(i++, Types.INTEGER);
        } else {
            s.setLong(i++, w.durationSeconds());
        }
        s.setLong(i++, w.minRuntimeSeconds());
        s.setInt(i++, w.resumable() ? 1 : 0);
        s.setString(i++, w.priority().label());
        s.setString(i++, w.kind());
        s.setString(i++, Rows.toJson(w.command()));
        s.setString(i++, Rows.toJson(w.environment()));
        s.setLong(i++, w.submittedAtMillis());
        s.setString(i, w.idempotencyKey());
    }
}
