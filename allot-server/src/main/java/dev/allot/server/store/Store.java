package dev.allot.server.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.core.model.Priority;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.Query;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The service's durable store: everything it needs to resume after a crash. Every public method is one
 * transaction, and when it returns its change is durable (on disk, or flushed by PostgreSQL), so the API may
 * acknowledge a request as soon as the store call has returned. Safe to call from many threads.
 *
 * <p><b>SQLite</b> ({@link #sqlite}, the default): one file, {@code allot.db}, in the data directory. Journal in
 * write-ahead-log mode with {@code synchronous=FULL}: a commit returns only after the log was synced, so it
 * survives a crash of the process or of the machine. SQLite has one writer, so the store keeps one connection and
 * transactions take turns on it (begun {@code IMMEDIATE}, so a transaction never has to upgrade a read lock); a
 * busy timeout covers another process (a backup, the {@code sqlite3} shell) holding the lock for a moment.
 * Foreign keys are enforced.
 *
 * <p><b>PostgreSQL</b> ({@link #open} with a {@code jdbc:postgresql:} URL): a small pool of connections, each in
 * {@code SERIALIZABLE} isolation with {@code synchronous_commit=on} (whatever the server's default). A transaction
 * that PostgreSQL aborts to keep serializability (or to break a deadlock) is run again, a few times, so callers see
 * the same one-at-a-time behaviour as with SQLite.
 *
 * <p>The schema is created and upgraded by Flyway on open, from {@code db/migration/sqlite} or
 * {@code db/migration/postgresql} (chosen from the JDBC URL).
 *
 * <p>Invariants the methods keep: a workload is {@link WorkloadState#RUNNING} exactly when it has one attempt that
 * has not ended; it enters running only by {@link #beginAttempt} and leaves it only by {@link #endAttempt}.
 */
public final class Store implements AutoCloseable {
    /** The database products the store knows, with the folder of their migrations. */
    enum Vendor {
        SQLITE("sqlite"), POSTGRESQL("postgresql");

        final String migrations;

        Vendor(String migrations) {
            this.migrations = migrations;
        }

        static Vendor of(String jdbcUrl) {
            if (jdbcUrl.startsWith("jdbc:sqlite:")) {
                return SQLITE;
            }
            if (jdbcUrl.startsWith("jdbc:postgresql:")) {
                return POSTGRESQL;
            }
            throw new IllegalArgumentException("unsupported JDBC URL '" + jdbcUrl
                    + "'; the store runs on SQLite (jdbc:sqlite:...) or PostgreSQL (jdbc:postgresql:...)");
        }
    }

    /** The file of an embedded store, in its data directory. */
    public static final String SQLITE_FILE = "allot.db";

    private static final int SQLITE_BUSY_TIMEOUT_MILLIS = 10_000;
    private static final int POSTGRES_POOL_SIZE = 8;
    private static final long CONNECTION_WAIT_MILLIS = 60_000;
    private static final int MAX_TRIES = 20;
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };
    private static final TypeReference<TreeMap<String, String>> STRING_MAP = new TypeReference<>() {
    };
    private static final String WORKLOAD_COLUMNS = "seq, id, allocation_path, user_name, gpus, gpus_per_node,"
            + " duration_seconds, min_runtime_seconds, resumable, priority, kind, command, environment, state,"
            + " submitted_at_ms, progress_done, progress_total, cancel_requested, idempotency_key";
    private static final String ATTEMPT_COLUMNS = "a.workload_id, a.attempt, a.placement, a.phase, a.started_at_ms,"
            + " a.ended_at_ms, a.outcome, a.reason, a.preemptor, a.lost_gpu_seconds";
    private static final String WAITING = "('pending', 'preempted', 'requeued')";
    private static final String NOT_ENDED = "('pending', 'running', 'preempted', 'requeued')";

    private final Vendor vendor;
    private final ConnectionPool pool;
    private final Jdbi jdbi;
    private final ObjectMapper json = new ObjectMapper();
    private final int migrationsApplied;

    private Store(Vendor vendor, DataSource dataSource, ConnectionPool.Opener opener, int poolSize) {
        this.vendor = vendor;
        try {
            this.migrationsApplied = Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/migration/" + vendor.migrations)
                    .failOnMissingLocations(true)
                    .load()
                    .migrate()
                    .migrationsExecuted;
        } catch (FlywayException e) {
            throw new StoreException("could not create or upgrade the store's schema: " + e.getMessage(), e);
        }
        this.pool = new ConnectionPool(opener, poolSize, CONNECTION_WAIT_MILLIS);
        this.jdbi = Jdbi.create(pool);
    }

    /**
     * Opens (creating it if needed) the embedded store {@code <dataDir>/allot.db}; creates the directory too.
     */
    public static Store sqlite(Path dataDir) {
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new StoreException("could not create the data directory " + dataDir + ": " + e.getMessage(), e);
        }
        return open("jdbc:sqlite:" + dataDir.resolve(SQLITE_FILE).toAbsolutePath(), null, null);
    }

    /**
     * Opens the store at a JDBC URL ({@code jdbc:sqlite:<file>} or {@code jdbc:postgresql://...}), creating or
     * upgrading its schema. User and password are for PostgreSQL and may be null (SQLite ignores them).
     */
    public static Store open(String jdbcUrl, String user, String password) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Vendor vendor = Vendor.of(jdbcUrl);
        if (vendor == Vendor.SQLITE) {
            SQLiteConfig config = new SQLiteConfig();
            config.setJournalMode(SQLiteConfig.JournalMode.WAL);
            config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
            config.setBusyTimeout(SQLITE_BUSY_TIMEOUT_MILLIS);
            config.enforceForeignKeys(true);
            config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
            SQLiteDataSource ds = new SQLiteDataSource(config);
            ds.setUrl(jdbcUrl);
            return new Store(vendor, ds, ds::getConnection, 1);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl);
        if (user != null) {
            ds.setUser(user);
        }
        if (password != null) {
            ds.setPassword(password);
        }
        return new Store(vendor, ds, () -> postgresConnection(ds), POSTGRES_POOL_SIZE);
    }

    private static Connection postgresConnection(DataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        try (Statement s = c.createStatement()) {
            s.execute("SET synchronous_commit TO on");
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** How many migrations this open applied: all of them on a new store, zero when the schema was current. */
    public int migrationsApplied() {
        return migrationsApplied;
    }

    /** Waits for the transactions in progress to finish, then closes the connections. */
    @Override
    public void close() {
        pool.close();
    }

    // ---------------------------------------------------------------------------------------------- workloads

    /**
     * Stores a new workload, pending, and returns it with its id {@code w-<seq>}. When the submission carries an
     * idempotency key that an earlier one already used, nothing is stored and that earlier workload is returned
     * (whatever its state now), so a client may retry a submission whose answer it did not get.
     */
    public Workload submit(NewWorkload w) {
        Objects.requireNonNull(w, "workload");
        String command = toJson(w.command());
        String environment = toJson(w.environment());
        return tx("submit a workload", h -> {
            // The id w-<seq> needs the seq from the identity column. PostgreSQL hands out the next value first and
            // the row is inserted whole; SQLite (one writer, nothing to gain) inserts under a unique placeholder id
            // and names the row after, in the same transaction. Neither reads the table back: under SERIALIZABLE
            // every read of a shared index page is a chance for a (needless) serialization failure.
            String columns = "id, allocation_path, user_name, gpus, gpus_per_node, duration_seconds,"
                    + " min_runtime_seconds, resumable, priority, kind, command, environment, state, submitted_at_ms,"
                    + " cancel_requested, idempotency_key";
            String values = ":id, :allocation, :user, :gpus, :gpusPerNode, :duration, :minRuntime, :resumable,"
                    + " :priority, :kind, :command, :environment, 'pending', :submittedAt, :no, :key";
            String sql;
            String id;
            Long nextSeq = null;
            if (vendor == Vendor.POSTGRESQL) {
                nextSeq = h.createQuery("SELECT nextval(pg_get_serial_sequence('workloads', 'seq'))")
                        .mapTo(Long.class).one();
                id = "w-" + nextSeq;
                sql = "INSERT INTO workloads (seq, " + columns + ") OVERRIDING SYSTEM VALUE VALUES (:seq, " + values + ")";
            } else {
                id = "new-" + UUID.randomUUID();
                sql = "INSERT INTO workloads (" + columns + ") VALUES (" + values + ")";
            }
            Optional<Long> inserted = h.createQuery(sql + " ON CONFLICT (idempotency_key) DO NOTHING RETURNING seq")
                    .bind("seq", nextSeq)
                    .bind("id", id)
                    .bind("allocation", w.allocationPath())
                    .bind("user", w.user())
                    .bind("gpus", w.gpus())
                    .bind("gpusPerNode", w.gpusPerNode())
                    .bind("duration", w.durationSeconds())
                    .bind("minRuntime", w.minRuntimeSeconds())
                    .bind("resumable", w.resumable())
                    .bind("priority", w.priority().label())
                    .bind("kind", w.kind())
                    .bind("command", command)
                    .bind("environment", environment)
                    .bind("submittedAt", w.submittedAtMillis())
                    .bind("no", false)
                    .bind("key", w.idempotencyKey())
                    .mapTo(Long.class)
                    .findOne();
            if (inserted.isEmpty()) {
                return h.createQuery("SELECT " + WORKLOAD_COLUMNS + " FROM workloads WHERE idempotency_key = :key")
                        .bind("key", w.idempotencyKey())
                        .map((rs, ctx) -> workload(rs))
                        .findOne()
                        .orElseThrow(() -> new StoreException("idempotency key '" + w.idempotencyKey()
                                + "' conflicted but no workload has it"));
            }
            long seq = inserted.get();
            if (vendor == Vendor.SQLITE) {
                id = "w-" + seq;
                h.createUpdate("UPDATE workloads SET id = :id WHERE seq = :seq").bind("id", id).bind("seq", seq).execute();
            }
            return new Workload(seq, id, w.allocationPath(), w.user(), w.gpus(), w.gpusPerNode(), w.durationSeconds(),
                    w.minRuntimeSeconds(), w.resumable(), w.priority(), w.kind(), w.command(), w.environment(),
                    WorkloadState.PENDING, w.submittedAtMillis(), null, null, false, w.idempotencyKey());
        });
    }

    /** The workload with this id, if there is one. */
    public Optional<Workload> workload(String id) {
        Objects.requireNonNull(id, "id");
        return tx("read workload " + id, h -> findWorkload(h, id));
    }

    /** The workloads the filter selects, in submission order. */
    public List<Workload> workloads(WorkloadFilter filter) {
        Objects.requireNonNull(filter, "filter");
        StringBuilder sql = new StringBuilder("SELECT " + WORKLOAD_COLUMNS + " FROM workloads WHERE seq > :afterSeq");
        if (!filter.states().isEmpty()) {
            sql.append(" AND state IN (<states>)");
        }
        if (filter.allocationPrefix() != null) {
            // By whole path segments; substr rather than LIKE, which would need escaping and is case-blind in SQLite.
            sql.append(" AND (allocation_path = :prefix"
                    + " OR substr(allocation_path, 1, length(:prefix) + 1) = :prefix || '/')");
        }
        if (filter.user() != null) {
            sql.append(" AND user_name = :user");
        }
        sql.append(" ORDER BY seq LIMIT :limit");
        List<String> states = filter.states().stream().sorted().map(WorkloadState::label).toList();
        return tx("list workloads", h -> {
            Query q = h.createQuery(sql.toString())
                    .bind("afterSeq", filter.afterSeq())
                    .bind("limit", filter.limit());
            if (!states.isEmpty()) {
                q.bindList("states", states);
            }
            if (filter.allocationPrefix() != null) {
                q.bind("prefix", filter.allocationPrefix());
            }
            if (filter.user() != null) {
                q.bind("user", filter.user());
            }
            return q.map((rs, ctx) -> workload(rs)).list();
        });
    }

    /**
     * Moves a workload from {@code expected} to {@code next} if it is in {@code expected} (compare and set): true
     * if it moved, false if it was in another state. For the transitions that involve no attempt (cancelling
     * before a start, putting a waiting workload back to pending); {@code running} is entered only by
     * {@link #beginAttempt} and left only by {@link #endAttempt}, so it may be neither.
     *
     * @throws NotFoundException when there is no such workload
     */
    public boolean setState(String id, WorkloadState expected, WorkloadState next) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(next, "next");
        if (expected == WorkloadState.RUNNING || next == WorkloadState.RUNNING) {
            throw new IllegalArgumentException("workload " + id + ": setState cannot move a workload into or out of"
                    + " running; that is what beginAttempt and endAttempt do");
        }
        return tx("set the state of workload " + id, h -> {
            int n = h.createUpdate("UPDATE workloads SET state = :next WHERE id = :id AND state = :expected")
                    .bind("next", next.label()).bind("id", id).bind("expected", expected.label())
                    .execute();
            if (n == 0) {
                requireWorkload(h, id);
            }
            return n == 1;
        });
    }

    /**
     * Asks for a workload to be cancelled and returns it as it is afterwards. One that waits is cancelled at once;
     * a running one is marked (its cancellation requested) and stays running until the scheduler stops it and ends
     * its attempt; an ended one is left as it is. Asking twice is harmless.
     *
     * @throws NotFoundException when there is no such workload
     */
    public Workload requestCancel(String id) {
        Objects.requireNonNull(id, "id");
        return tx("cancel workload " + id, h -> {
            Workload w = requireWorkload(h, id);
            if (w.state().ended()) {
                return w;
            }
            String set = w.state().waiting() ? "state = 'cancelled', cancel_requested = :yes" : "cancel_requested = :yes";
            h.createUpdate("UPDATE workloads SET " + set + " WHERE id = :id AND state = :state")
                    .bind("yes", true).bind("id", id).bind("state", w.state().label())
                    .execute();
            return requireWorkload(h, id);
        });
    }

    /**
     * Records a workload's progress ({@code done} out of {@code total}, in whatever unit it reports: steps,
     * samples).
     *
     * @throws NotFoundException when there is no such workload
     */
    public void reportProgress(String id, long done, long total) {
        Objects.requireNonNull(id, "id");
        if (done < 0 || total < 0 || done > total) {
            throw new IllegalArgumentException("workload " + id + ": progress must satisfy 0 <= done <= total, got "
                    + done + " of " + total);
        }
        tx("record the progress of workload " + id, h -> {
            int n = h.createUpdate("UPDATE workloads SET progress_done = :done, progress_total = :total WHERE id = :id")
                    .bind("done", done).bind("total", total).bind("id", id)
                    .execute();
            if (n == 0) {
                throw new NotFoundException("no workload " + id);
            }
            return null;
        });
    }

    // ----------------------------------------------------------------------------------------------- attempts

    /**
     * Begins the next attempt of a waiting workload (pending, preempted or requeued, its cancellation not
     * requested): stores the attempt, phase launching, and sets the workload running, together. Call it before
     * asking the backend to start the attempt, so that a crash in between leaves an open attempt to reconcile
     * rather than a process nobody knows about.
     *
     * @param placement the GPUs chosen, node by node; as many in all as the workload asked for
     * @throws NotFoundException when there is no such workload
     * @throws ConflictException when the workload is not waiting, or its cancellation was requested
     */
    public AttemptKey beginAttempt(String workloadId, List<Launch.NodeGpus> placement, long nowMillis) {
        Objects.requireNonNull(workloadId, "workloadId");
        List<Launch.NodeGpus> where = List.copyOf(placement);
        if (where.isEmpty()) {
            throw new IllegalArgumentException("workload " + workloadId + ": a placement needs at least one node");
        }
        Set<String> nodes = new HashSet<>();
        for (Launch.NodeGpus p : where) {
            if (!nodes.add(p.node())) {
                throw new IllegalArgumentException("workload " + workloadId + ": node " + p.node()
                        + " appears twice in the placement");
            }
        }
        String placementJson = placementJson(where);
        int gpus = where.stream().mapToInt(p -> p.gpus().size()).sum();
        return tx("begin an attempt of workload " + workloadId, h -> {
            Workload w = requireWorkload(h, workloadId);
            if (w.gpus() != gpus) {
                throw new IllegalArgumentException("workload " + workloadId + " asks for " + w.gpus()
                        + " GPUs; the placement has " + gpus);
            }
            int n = h.createUpdate("UPDATE workloads SET state = 'running' WHERE id = :id AND state IN " + WAITING
                            + " AND cancel_requested = :no")
                    .bind("id", workloadId).bind("no", false)
                    .execute();
            if (n == 0) {
                throw new ConflictException("workload " + workloadId + " is " + w.state().label()
                        + (w.cancelRequested() ? " and its cancellation was requested" : "")
                        + "; an attempt begins only for a pending, preempted or requeued workload not being cancelled");
            }
            int next = h.createQuery("SELECT COALESCE(MAX(attempt), 0) + 1 FROM attempts WHERE workload_id = :id")
                    .bind("id", workloadId).mapTo(Integer.class).one();
            h.createUpdate("INSERT INTO attempts (workload_id, attempt, placement, phase, started_at_ms)"
                            + " VALUES (:id, :attempt, :placement, 'launching', :now)")
                    .bind("id", workloadId).bind("attempt", next).bind("placement", placementJson).bind("now", nowMillis)
                    .execute();
            return new AttemptKey(workloadId, next);
        });
    }

    /**
     * Records that the backend reports the attempt running: true if it moved from launching to running, false if it
     * was already past launching (running, stopping or ended), so a repeated report is harmless.
     *
     * @throws NotFoundException when there is no such attempt
     */
    public boolean markRunning(AttemptKey key) {
        return movePhase(key, "('launching')", AttemptPhase.RUNNING);
    }

    /**
     * Records that the scheduler asked the backend to stop the attempt: true if it moved from launching or running
     * to stopping, false if it was already stopping or ended.
     *
     * @throws NotFoundException when there is no such attempt
     */
    public boolean markStopping(AttemptKey key) {
        return movePhase(key, "('launching', 'running')", AttemptPhase.STOPPING);
    }

    private boolean movePhase(AttemptKey key, String from, AttemptPhase to) {
        Objects.requireNonNull(key, "key");
        return tx("mark attempt " + key + " " + to.label(), h -> {
            int n = h.createUpdate("UPDATE attempts SET phase = :to"
                            + " WHERE workload_id = :id AND attempt = :attempt AND phase IN " + from)
                    .bind("to", to.label()).bind("id", key.workloadId()).bind("attempt", key.attempt())
                    .execute();
            if (n == 0) {
                requireAttempt(h, key);
            }
            return n == 1;
        });
    }

    /**
     * Ends an attempt and sets its workload's state from the outcome, together (the rule is
     * {@link AttemptOutcome#workloadState}: the state of the same name; lost is requeued when resumable and failed
     * otherwise; a workload whose cancellation was requested is cancelled rather than sent back to the queue).
     * Ending an attempt again with the same outcome changes nothing. Returns the workload as it is afterwards.
     *
     * @param reason         words for people; may be null
     * @param preemptor      the workload it made room for; may be null
     * @param lostGpuSeconds the work thrown away, when known; may be null
     * @param nowMillis      when it ended; a time before the attempt's start (a clock that stepped back) is
     *                       recorded as its start
     * @throws NotFoundException when there is no such attempt
     * @throws ConflictException when it already ended with another outcome
     */
    public Workload endAttempt(AttemptKey key, AttemptOutcome outcome, String reason, String preemptor,
                               Double lostGpuSeconds, long nowMillis) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(outcome, "outcome");
        if (lostGpuSeconds != null && !(lostGpuSeconds >= 0)) {
            throw new IllegalArgumentException("attempt " + key + ": lost GPU-seconds must be >= 0, got " + lostGpuSeconds);
        }
        return tx("end attempt " + key, h -> {
            Attempt a = requireAttempt(h, key);
            if (!a.open()) {
                if (a.outcome() == outcome) {
                    return requireWorkload(h, key.workloadId());
                }
                throw new ConflictException("attempt " + key + " already ended as " + a.outcome().label()
                        + "; it cannot end again as " + outcome.label());
            }
            h.createUpdate("UPDATE attempts SET phase = 'ended', ended_at_ms = :endedAt, outcome = :outcome,"
                            + " reason = :reason, preemptor = :preemptor, lost_gpu_seconds = :lost"
                            + " WHERE workload_id = :id AND attempt = :attempt")
                    .bind("endedAt", Math.max(nowMillis, a.startedAtMillis()))
                    .bind("outcome", outcome.label())
                    .bind("reason", reason)
                    .bind("preemptor", preemptor)
                    .bind("lost", lostGpuSeconds)
                    .bind("id", key.workloadId())
                    .bind("attempt", key.attempt())
                    .execute();
            Workload w = requireWorkload(h, key.workloadId());
            if (w.state() != WorkloadState.RUNNING) {
                throw new ConflictException("workload " + w.id() + " is " + w.state().label() + " while its attempt "
                        + key + " is open; the store is inconsistent");
            }
            WorkloadState next = outcome.workloadState(w.resumable(), w.cancelRequested());
            h.createUpdate("UPDATE workloads SET state = :state WHERE id = :id")
                    .bind("state", next.label()).bind("id", w.id())
                    .execute();
            return requireWorkload(h, w.id());
        });
    }

    /** The attempts of a workload, first to last (none for an unknown workload). */
    public List<Attempt> attempts(String workloadId) {
        Objects.requireNonNull(workloadId, "workloadId");
        return tx("list the attempts of workload " + workloadId, h ->
                h.createQuery("SELECT " + ATTEMPT_COLUMNS + " FROM attempts a WHERE a.workload_id = :id ORDER BY a.attempt")
                        .bind("id", workloadId)
                        .map((rs, ctx) -> attempt(rs))
                        .list());
    }

    /**
     * Every attempt that has not ended, in submission order of their workloads: what a restarted scheduler must
     * reconcile with the backend (ask it about each, end the ones it no longer runs).
     */
    public List<Attempt> openAttempts() {
        return tx("list open attempts", h ->
                h.createQuery("SELECT " + ATTEMPT_COLUMNS + " FROM attempts a JOIN workloads w ON w.id = a.workload_id"
                                + " WHERE a.phase <> 'ended' ORDER BY w.seq, a.attempt")
                        .map((rs, ctx) -> attempt(rs))
                        .list());
    }

    /**
     * Allocated GPU-seconds per allocation path over the window {@code [sinceMillis, nowMillis)}: for each attempt
     * of an allocated workload (minimum runtime above zero; unallocated work is never charged) that overlaps the
     * window, its GPUs times the part of its run inside the window, an attempt still open counting up to
     * {@code nowMillis}. This is what rebuilds fair-share usage after a restart. Allocations with no usage are
     * absent; the map is sorted by path.
     */
    public SortedMap<String, Double> usageSince(long sinceMillis, long nowMillis) {
        if (sinceMillis > nowMillis) {
            throw new IllegalArgumentException("usage window starts (" + sinceMillis + " ms) after it ends ("
                    + nowMillis + " ms)");
        }
        record Run(String allocationPath, int gpus, long startedAtMillis, Long endedAtMillis) {
        }
        return tx("sum usage", h -> {
            SortedMap<String, Double> usage = new TreeMap<>();
            h.createQuery("SELECT w.allocation_path, a.placement, a.started_at_ms, a.ended_at_ms"
                            + " FROM attempts a JOIN workloads w ON w.id = a.workload_id"
                            + " WHERE w.min_runtime_seconds > 0 AND a.started_at_ms < :now"
                            + " AND (a.ended_at_ms IS NULL OR a.ended_at_ms > :since)"
                            + " ORDER BY w.seq, a.attempt")
                    .bind("since", sinceMillis).bind("now", nowMillis)
                    .map((rs, ctx) -> new Run(rs.getString(1),
                            placement(rs.getString(2)).stream().mapToInt(p -> p.gpus().size()).sum(),
                            rs.getLong(3), nullableLong(rs, "ended_at_ms")))
                    .forEach(r -> {
                        long start = Math.max(r.startedAtMillis(), sinceMillis);
                        long end = r.endedAtMillis() == null ? nowMillis : Math.min(r.endedAtMillis(), nowMillis);
                        if (end > start) {
                            usage.merge(r.allocationPath(), r.gpus() * (end - start) / 1000.0, Double::sum);
                        }
                    });
            return usage;
        });
    }

    // ------------------------------------------------------------------------------------ allocations, audit

    /** Every allocation, sorted by path (so a parent comes before its children). */
    public List<Allocation> allocations() {
        return tx("list allocations", h ->
                h.createQuery("SELECT path, share, managers, members FROM allocations ORDER BY path")
                        .map((rs, ctx) -> allocation(rs))
                        .list());
    }

    /**
     * Creates or replaces an allocation, and records the change in the audit trail (action {@code allocation.put},
     * the allocation before, null when new, and after), together.
     *
     * @throws NotFoundException when its parent does not exist
     */
    public void putAllocation(Allocation allocation, String actor, long nowMillis) {
        Objects.requireNonNull(allocation, "allocation");
        Objects.requireNonNull(actor, "actor");
        String after = allocationJson(allocation);
        tx("put allocation " + allocation.path(), h -> {
            Optional<Allocation> before = findAllocation(h, allocation.path());
            String parent = allocation.parentPath();
            if (before.isEmpty() && parent != null && findAllocation(h, parent).isEmpty()) {
                throw new NotFoundException("allocation '" + allocation.path() + "' needs its parent '" + parent
                        + "', which does not exist; create the parent first");
            }
            h.createUpdate("INSERT INTO allocations (path, parent_path, name, share, managers, members)"
                            + " VALUES (:path, :parent, :name, :share, :managers, :members)"
                            + " ON CONFLICT (path) DO UPDATE SET share = excluded.share, managers = excluded.managers,"
                            + " members = excluded.members")
                    .bind("path", allocation.path())
                    .bind("parent", parent)
                    .bind("name", allocation.name())
                    .bind("share", allocation.share())
                    .bind("managers", toJson(allocation.managers()))
                    .bind("members", toJson(allocation.members()))
                    .execute();
            audit(h, nowMillis, actor, "allocation.put", allocation.path(), before.map(this::allocationJson).orElse(null),
                    after);
            return null;
        });
    }

    /**
     * Removes an allocation, and records it in the audit trail (action {@code allocation.remove}), together.
     * Refused while it has children (remove them first) or workloads that have not ended (cancel them or let them
     * end); workloads that ended keep its path in their history.
     *
     * @throws NotFoundException when there is no such allocation
     * @throws ConflictException when it has children or workloads not ended
     */
    public void removeAllocation(String path, String actor, long nowMillis) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(actor, "actor");
        tx("remove allocation " + path, h -> {
            Allocation before = findAllocation(h, path)
                    .orElseThrow(() -> new NotFoundException("no allocation '" + path + "'"));
            List<String> children = h.createQuery("SELECT path FROM allocations WHERE parent_path = :path ORDER BY path")
                    .bind("path", path).mapTo(String.class).list();
            if (!children.isEmpty()) {
                throw new ConflictException("allocation '" + path + "' has " + children.size() + " child"
                        + (children.size() == 1 ? "" : "ren") + " (" + sample(children) + "); remove them first");
            }
            List<String> active = h.createQuery("SELECT id FROM workloads WHERE allocation_path = :path"
                            + " AND state IN " + NOT_ENDED + " ORDER BY seq")
                    .bind("path", path).mapTo(String.class).list();
            if (!active.isEmpty()) {
                throw new ConflictException("allocation '" + path + "' has " + active.size() + " workload"
                        + (active.size() == 1 ? "" : "s") + " not ended (" + sample(active)
                        + "); cancel them or let them end first");
            }
            h.createUpdate("DELETE FROM allocations WHERE path = :path").bind("path", path).execute();
            audit(h, nowMillis, actor, "allocation.remove", path, allocationJson(before), null);
            return null;
        });
    }

    /** The newest {@code limit} entries of the audit trail, newest first. */
    public List<AuditEntry> audit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return tx("read the audit trail", h ->
                h.createQuery("SELECT id, at_ms, actor, action, subject, before_json, after_json FROM audit"
                                + " ORDER BY id DESC LIMIT :limit")
                        .bind("limit", limit)
                        .map((rs, ctx) -> new AuditEntry(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4),
                                rs.getString(5), rs.getString(6), rs.getString(7)))
                        .list());
    }

    private void audit(Handle h, long atMillis, String actor, String action, String subject, String before, String after) {
        h.createUpdate("INSERT INTO audit (at_ms, actor, action, subject, before_json, after_json)"
                        + " VALUES (:at, :actor, :action, :subject, :before, :after)")
                .bind("at", atMillis).bind("actor", actor).bind("action", action).bind("subject", subject)
                .bind("before", before).bind("after", after)
                .execute();
    }

    // ---------------------------------------------------------------------------------------- users, tokens

    /** Creates a user or changes its role. */
    public void putUser(User user) {
        Objects.requireNonNull(user, "user");
        tx("put user " + user.name(), h -> h.createUpdate("INSERT INTO users (name, role) VALUES (:name, :role)"
                        + " ON CONFLICT (name) DO UPDATE SET role = excluded.role")
                .bind("name", user.name()).bind("role", user.role().label())
                .execute());
    }

    /** Every user, sorted by name. */
    public List<User> users() {
        return tx("list users", h -> h.createQuery("SELECT name, role FROM users ORDER BY name")
                .map((rs, ctx) -> new User(rs.getString(1), User.Role.parse(rs.getString(2))))
                .list());
    }

    /**
     * Gives a user an API token. Only the token's SHA-256 (hex) is stored, never the token itself; it is
     * returned, as the token's id for listing or revoking it.
     *
     * @throws NotFoundException when there is no such user
     * @throws ConflictException when the token is already registered
     */
    public String addToken(String userName, String tokenPlaintext, String label, long nowMillis) {
        Objects.requireNonNull(userName, "userName");
        Objects.requireNonNull(label, "label");
        if (tokenPlaintext == null || tokenPlaintext.isBlank()) {
            throw new IllegalArgumentException("a token must not be blank");
        }
        String hash = sha256Hex(tokenPlaintext);
        return tx("add a token for user " + userName, h -> {
            if (findUser(h, userName).isEmpty()) {
                throw new NotFoundException("no user '" + userName + "'");
            }
            boolean taken = h.createQuery("SELECT 1 FROM tokens WHERE hash = :hash").bind("hash", hash)
                    .mapTo(Integer.class).findOne().isPresent();
            if (taken) {
                throw new ConflictException("this token is already registered; generate another");
            }
            h.createUpdate("INSERT INTO tokens (hash, user_name, label, created_at_ms) VALUES (:hash, :user, :label, :now)")
                    .bind("hash", hash).bind("user", userName).bind("label", label).bind("now", nowMillis)
                    .execute();
            return hash;
        });
    }

    /** The user a token belongs to, if it is registered. */
    public Optional<User> userForToken(String tokenPlaintext) {
        if (tokenPlaintext == null || tokenPlaintext.isEmpty()) {
            return Optional.empty();
        }
        String hash = sha256Hex(tokenPlaintext);
        return tx("look up a token", h -> h.createQuery("SELECT u.name, u.role FROM tokens t"
                        + " JOIN users u ON u.name = t.user_name WHERE t.hash = :hash")
                .bind("hash", hash)
                .map((rs, ctx) -> new User(rs.getString(1), User.Role.parse(rs.getString(2))))
                .findOne());
    }

    /** The hex SHA-256 of a token's UTF-8 bytes: what the store keeps of it. */
    public static String sha256Hex(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java has no SHA-256", e);
        }
    }

    // ------------------------------------------------------------------------------------------------- nodes

    /** Creates or replaces a node (GPUs, health, reason, time). */
    public void putNode(Node node) {
        Objects.requireNonNull(node, "node");
        tx("put node " + node.name(), h -> h.createUpdate("INSERT INTO nodes (name, gpus, healthy, reason, updated_at_ms)"
                        + " VALUES (:name, :gpus, :healthy, :reason, :at) ON CONFLICT (name) DO UPDATE SET"
                        + " gpus = excluded.gpus, healthy = excluded.healthy, reason = excluded.reason,"
                        + " updated_at_ms = excluded.updated_at_ms")
                .bind("name", node.name()).bind("gpus", node.gpus()).bind("healthy", node.healthy())
                .bind("reason", node.reason()).bind("at", node.updatedAtMillis())
                .execute());
    }

    /**
     * Records a node's health.
     *
     * @throws NotFoundException when there is no such node
     */
    public void setHealth(String name, boolean healthy, String reason, long nowMillis) {
        Objects.requireNonNull(name, "name");
        tx("set the health of node " + name, h -> {
            int n = h.createUpdate("UPDATE nodes SET healthy = :healthy, reason = :reason, updated_at_ms = :at"
                            + " WHERE name = :name")
                    .bind("healthy", healthy).bind("reason", reason).bind("at", nowMillis).bind("name", name)
                    .execute();
            if (n == 0) {
                throw new NotFoundException("no node '" + name + "'");
            }
            return null;
        });
    }

    /** Every node, sorted by name. */
    public List<Node> nodes() {
        return tx("list nodes", h -> h.createQuery("SELECT name, gpus, healthy, reason, updated_at_ms FROM nodes ORDER BY name")
                .map((rs, ctx) -> new Node(rs.getString(1), rs.getInt(2), rs.getBoolean(3), rs.getString(4), rs.getLong(5)))
                .list());
    }

    // ------------------------------------------------------------------------------------------ transactions

    /**
     * Runs {@code work} as one transaction. A transaction PostgreSQL aborted for serializability or a deadlock is
     * run again after a short random pause (it changed nothing); other database errors become a
     * {@link StoreException} naming what was being done. Exceptions thrown by {@code work} roll back and pass
     * through unchanged.
     */
    private <T> T tx(String what, HandleCallback<T, RuntimeException> work) {
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

    // -------------------------------------------------------------------------------------- reading and JSON

    private Optional<Workload> findWorkload(Handle h, String id) {
        return h.createQuery("SELECT " + WORKLOAD_COLUMNS + " FROM workloads WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> workload(rs))
                .findOne();
    }

    private Workload requireWorkload(Handle h, String id) {
        return findWorkload(h, id).orElseThrow(() -> new NotFoundException("no workload " + id));
    }

    private Attempt requireAttempt(Handle h, AttemptKey key) {
        return h.createQuery("SELECT " + ATTEMPT_COLUMNS + " FROM attempts a WHERE a.workload_id = :id AND a.attempt = :attempt")
                .bind("id", key.workloadId()).bind("attempt", key.attempt())
                .map((rs, ctx) -> attempt(rs))
                .findOne()
                .orElseThrow(() -> new NotFoundException("no attempt " + key));
    }

    private Optional<Allocation> findAllocation(Handle h, String path) {
        return h.createQuery("SELECT path, share, managers, members FROM allocations WHERE path = :path")
                .bind("path", path)
                .map((rs, ctx) -> allocation(rs))
                .findOne();
    }

    private static Optional<User> findUser(Handle h, String name) {
        return h.createQuery("SELECT name, role FROM users WHERE name = :name")
                .bind("name", name)
                .map((rs, ctx) -> new User(rs.getString(1), User.Role.parse(rs.getString(2))))
                .findOne();
    }

    private Workload workload(ResultSet rs) throws SQLException {
        long seq = rs.getLong("seq");
        String id = rs.getString("id");
        String allocation = rs.getString("allocation_path");
        String user = rs.getString("user_name");
        int gpus = rs.getInt("gpus");
        int gpusPerNode = rs.getInt("gpus_per_node");
        Long duration = nullableLong(rs, "duration_seconds");
        long minRuntime = rs.getLong("min_runtime_seconds");
        boolean resumable = rs.getBoolean("resumable");
        Priority priority = Priority.parse(rs.getString("priority"));
        String kind = rs.getString("kind");
        List<String> command = fromJson(rs.getString("command"), STRINGS);
        TreeMap<String, String> environment = fromJson(rs.getString("environment"), STRING_MAP);
        WorkloadState state = WorkloadState.parse(rs.getString("state"));
        long submittedAt = rs.getLong("submitted_at_ms");
        Long done = nullableLong(rs, "progress_done");
        Long total = nullableLong(rs, "progress_total");
        boolean cancelRequested = rs.getBoolean("cancel_requested");
        String key = rs.getString("idempotency_key");
        return new Workload(seq, id, allocation, user, gpus, gpusPerNode, duration, minRuntime, resumable, priority, kind,
                command, environment, state, submittedAt, done, total, cancelRequested, key);
    }

    private Attempt attempt(ResultSet rs) throws SQLException {
        AttemptKey key = new AttemptKey(rs.getString("workload_id"), rs.getInt("attempt"));
        List<Launch.NodeGpus> placement = placement(rs.getString("placement"));
        AttemptPhase phase = AttemptPhase.parse(rs.getString("phase"));
        long started = rs.getLong("started_at_ms");
        Long ended = nullableLong(rs, "ended_at_ms");
        String outcome = rs.getString("outcome");
        String reason = rs.getString("reason");
        String preemptor = rs.getString("preemptor");
        double lost = rs.getDouble("lost_gpu_seconds");
        Double lostGpuSeconds = rs.wasNull() ? null : lost;
        return new Attempt(key, placement, phase, started, ended, outcome == null ? null : AttemptOutcome.parse(outcome),
                reason, preemptor, lostGpuSeconds);
    }

    private Allocation allocation(ResultSet rs) throws SQLException {
        return new Allocation(rs.getString("path"), rs.getDouble("share"), fromJson(rs.getString("managers"), STRINGS),
                fromJson(rs.getString("members"), STRINGS));
    }

    private static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static String sample(List<String> names) {
        String shown = names.stream().limit(5).collect(Collectors.joining(", "));
        return names.size() > 5 ? shown + ", ..." : shown;
    }

    /** An allocation as the audit trail shows it: {@code {"path", "share", "managers", "members"}}. */
    private String allocationJson(Allocation a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", a.path());
        m.put("share", a.share());
        m.put("managers", a.managers());
        m.put("members", a.members());
        return toJson(m);
    }

    /** A placement as stored: {@code [{"node": "n1", "gpus": [0, 1]}, ...]}, in placement order. */
    private String placementJson(List<Launch.NodeGpus> placement) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Launch.NodeGpus p : placement) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("node", p.node());
            m.put("gpus", p.gpus());
            out.add(m);
        }
        return toJson(out);
    }

    private List<Launch.NodeGpus> placement(String text) {
        JsonNode root = fromJson(text, new TypeReference<JsonNode>() {
        });
        List<Launch.NodeGpus> out = new ArrayList<>();
        for (JsonNode p : root) {
            List<Integer> gpus = new ArrayList<>();
            p.get("gpus").forEach(g -> gpus.add(g.intValue()));
            out.add(new Launch.NodeGpus(p.get("node").textValue(), gpus));
        }
        return out;
    }

    private String toJson(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private <T> T fromJson(String text, TypeReference<T> type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new StoreException("unreadable JSON in the store: " + text, e);
        }
    }
}
