package dev.allot.server.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The service's durable store: everything it needs to resume after a crash. It opens the database, brings its
 * schema up to date and hands out the parts that read and write it: {@link #workloads()}, {@link #attempts()},
 * {@link #allocations()} (with the audit trail), {@link #access()} (users and tokens), {@link #nodes()} and
 * {@link #campaigns()}. Every public method of a part is one transaction, and when it returns its change is durable
 * (on disk, or flushed by PostgreSQL), so the API may acknowledge a request as soon as the store call has returned.
 * Safe to call from many threads.
 *
 * <p><b>SQLite</b> ({@link #sqlite}, the default): one file, {@code allot.db}, in the data directory. Journal in
 * write-ahead-log mode with {@code synchronous=FULL}: a commit returns only after the log was synced, so it
 * survives a crash of the process or of the machine. Both settings are read back from every connection the store
 * opens, which is refused without them ({@link Durability}). SQLite has one writer, so the store keeps one connection for
 * writing transactions, which take turns on it (begun {@code IMMEDIATE}, so a transaction never has to upgrade a read
 * lock), and a few {@code query_only} connections for transactions that only read, which the log lets run beside the
 * writer ({@link Transactions#read}); a busy timeout covers another process (a backup, the {@code sqlite3} shell)
 * holding the lock for a moment.
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
 * <p>Invariants the parts keep: a workload is {@link WorkloadState#RUNNING} exactly when it has one attempt that
 * has not ended; it enters running only by {@link Attempts#beginAttempt} and leaves it only by
 * {@link Attempts#endAttempt}.
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
    /** SQLite's reader connections, beside its one writer: API requests that read, the loop's re-reads. */
    private static final int SQLITE_READERS = 4;
    /**
     * SQLite's page cache per connection, in KiB (negative {@code cache_size} counts KiB): 32 MB, so that the loop's
     * writer keeps the workloads and attempts tables and their indexes in memory (the default, 2 MB, is smaller than
     * those at 10,000 waiting workloads, and the intake of issue 21 re-read pages from the file system cache).
     */
    static final int SQLITE_CACHE_KIB = 32 * 1024;

    private final Transactions transactions;
    private final int migrationsApplied;
    private final Workloads workloads;
    private final Attempts attempts;
    private final Allocations allocations;
    private final Access access;
    private final Nodes nodes;
    private final ClusterSettings settings;
    private final Campaigns campaigns;
    private final Leases leases;
    private final Durability durability;
    private final Vendor vendor;
    /** Whether this store owns its connections (false for a {@link #fencedBy} view, which shares them). */
    private final boolean ownsConnections;

    private Store(Vendor vendor, DataSource dataSource, ConnectionPool.Opener opener, int poolSize,
                  ConnectionPool.Opener readOpener, int readers) {
        try {
            this.migrationsApplied = Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/migration/" + vendor.migrations)
                    .failOnMissingLocations(true)
                    .load()
                    .migrate()
                    .migrationsExecuted;
        } catch (FlywayException e) {
            // Flyway's message is a block (a rule of dashes, 'SQL State : 08001', 'Error Code', the message again):
            // its first line says it all, and 'allot serve' prints one line
            String first = e.getMessage() == null ? e.toString()
                    : e.getMessage().strip().lines().findFirst().orElse("").strip();
            throw new StoreException("could not create or upgrade the store's schema: " + first, e);
        }
        this.transactions = new Transactions(opener, poolSize, readOpener, readers);
        this.vendor = vendor;
        this.ownsConnections = true;
        this.workloads = new Workloads(transactions, vendor);
        this.attempts = new Attempts(transactions);
        this.allocations = new Allocations(transactions);
        this.access = new Access(transactions);
        this.nodes = new Nodes(transactions);
        this.settings = new ClusterSettings(transactions);
        this.campaigns = new Campaigns(transactions, workloads);
        this.workloads.campaigns(campaigns);
        this.leases = new Leases(transactions, vendor);
        try {
            // the opener refuses a connection without the durability the store promises; this reads it back once
            this.durability = transactions.tx("read back the store's durability settings",
                    h -> readDurability(vendor, h.getConnection()));
        } catch (RuntimeException e) {
            transactions.close();
            throw e;
        }
    }

    /** A view of {@code base} on the same connections whose every transaction is run through {@code fenced}. */
    private Store(Store base, Transactions fenced) {
        this.transactions = fenced;
        this.vendor = base.vendor;
        this.ownsConnections = false;
        this.migrationsApplied = base.migrationsApplied;
        this.durability = base.durability;
        this.workloads = new Workloads(fenced, vendor);
        this.attempts = new Attempts(fenced);
        this.allocations = new Allocations(fenced);
        this.access = new Access(fenced);
        this.nodes = new Nodes(fenced);
        this.settings = new ClusterSettings(fenced);
        this.campaigns = new Campaigns(fenced, workloads);
        this.workloads.campaigns(campaigns);
        this.leases = new Leases(fenced, vendor);
    }

    /**
     * This store as the leader's scheduling loop must use it (high availability, {@link Leases}): the same
     * connections, but every transaction first checks, holding the lease row shared until it commits, that
     * {@code instance} still holds the leader lease at the epoch {@code epoch} gives at that moment (0 or less: none),
     * and is refused with a {@link FencedException}, changing nothing, otherwise. A transaction whose client stops
     * between statements for {@code lease} is ended by PostgreSQL (its lock released, nothing written), so that a
     * paused leader cannot keep a standby from taking over. Closing the view closes nothing.
     */
    public Store fencedBy(String instance, java.util.function.LongSupplier epoch, java.time.Duration lease) {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(epoch, "epoch");
        long leaseMillis = lease.toMillis();
        return new Store(this, transactions.fencedBy(h -> Leases.requireHeld(h, vendor, instance,
                epoch.getAsLong(), leaseMillis)));
    }

    /**
     * This store as a standby's scheduling loop follows it ({@code dev.allot.server.sched.Follower}): the same
     * connections, every transaction begun {@code READ ONLY}, so that PostgreSQL itself refuses any write made through
     * it (an error, nothing changed), whatever the code above it does. On PostgreSQL only, where several instances
     * share the store; SQLite has one instance, always the leader. Closing the view closes nothing.
     *
     * @throws IllegalStateException on SQLite
     */
    public Store readOnly() {
        if (vendor != Vendor.POSTGRESQL) {
            throw new IllegalStateException("a read-only view is for a store shared by several instances (PostgreSQL)");
        }
        return new Store(this, transactions.fencedBy(h -> h.execute("SET TRANSACTION READ ONLY")));
    }

    /**
     * Runs {@code work} with the store calls it makes on this thread in one transaction, one commit at its end, each
     * call still all or nothing: for the scheduling loop, whose cycle records many starts, stops and ends, each a
     * transaction of its own otherwise (an {@code fsync} each: 84% of the loop thread's time in a cycle of a thousand
     * preemptions, issue 21). On SQLite only; on PostgreSQL each call stays its own transaction. Whatever must happen
     * only once the calls are durable (telling a backend) belongs after it returns.
     *
     * @throws StoreException when the commit fails: then none of the calls was stored
     */
    public void batch(Runnable work) {
        transactions.batch(Objects.requireNonNull(work, "work"));
    }

    /** Whether this store is on PostgreSQL, where several instances may share it (one of them the leader). */
    public boolean shared() {
        return vendor == Vendor.POSTGRESQL;
    }

    private static Durability readDurability(Vendor vendor, Connection c) {
        try {
            return vendor == Vendor.SQLITE ? Durability.readSqlite(c) : Durability.readPostgres(c);
        } catch (SQLException e) {
            throw new StoreException("could not read back the store's durability settings: " + e.getMessage(), e);
        }
    }

    /**
     * Opens (creating it if needed) the embedded store {@code <dataDir>/allot.db}; creates the directory too. The
     * directory is made 0700 and the file 0600 before SQLite opens it (SQLite gives its {@code -wal} and {@code -shm}
     * files the database file's permissions), and tightened to that if looser ({@link dev.allot.server.OwnerOnlyFiles}).
     */
    public static Store sqlite(Path dataDir) {
        try {
            dev.allot.server.OwnerOnlyFiles.secureDataDir(dataDir);
            dev.allot.server.OwnerOnlyFiles.file(dataDir.resolve(SQLITE_FILE));
        } catch (java.io.UncheckedIOException e) {
            throw new StoreException("could not create the data directory " + dataDir + " or its store: "
                    + e.getCause().getMessage(), e);
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
            SQLiteDataSource ds = sqliteSource(jdbcUrl, SQLiteConfig.TransactionMode.IMMEDIATE);
            SQLiteDataSource readDs = sqliteSource(jdbcUrl, SQLiteConfig.TransactionMode.DEFERRED);
            return new Store(vendor, ds, () -> checked(ds.getConnection(), vendor, jdbcUrl), 1,
                    () -> queryOnly(checked(readDs.getConnection(), vendor, jdbcUrl)), SQLITE_READERS);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl);
        if (user != null) {
            ds.setUser(user);
        }
        if (password != null) {
            ds.setPassword(password);
        }
        return new Store(vendor, ds, () -> postgresConnection(ds, jdbcUrl), POSTGRES_POOL_SIZE, null, 0);
    }

    /**
     * SQLite's connections, the writer's and the readers' alike but for how they begin transactions: write-ahead
     * log, {@code synchronous=FULL}, the busy timeout, foreign keys, temporary tables in memory, a 32 MB page cache.
     */
    private static SQLiteDataSource sqliteSource(String jdbcUrl, SQLiteConfig.TransactionMode begin) {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(SQLITE_BUSY_TIMEOUT_MILLIS);
        config.enforceForeignKeys(true);
        config.setTransactionMode(begin);
        // Temporary b-trees (a sort, a GROUP BY, a statement's journal) in memory rather than in files; and the cache.
        config.setTempStore(SQLiteConfig.TempStore.MEMORY);
        config.setCacheSize(-SQLITE_CACHE_KIB);
        SQLiteDataSource ds = new SQLiteDataSource(config);
        ds.setUrl(jdbcUrl);
        return ds;
    }

    /** A SQLite connection that refuses to write: a reader of {@link Transactions#read}. */
    private static Connection queryOnly(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA query_only = 1");
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    private static Connection postgresConnection(DataSource ds, String jdbcUrl) throws SQLException {
        Connection c = ds.getConnection();
        try (Statement s = c.createStatement()) {
            s.execute("SET synchronous_commit TO on");
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return checked(c, Vendor.POSTGRESQL, jdbcUrl);
    }

    /** The connection if it runs with the durability the store needs ({@link Durability}); else closed and refused. */
    private static Connection checked(Connection c, Vendor vendor, String jdbcUrl) throws SQLException {
        String where = jdbcUrl.contains("?") ? jdbcUrl.substring(0, jdbcUrl.indexOf('?')) : jdbcUrl;
        try {
            if (vendor == Vendor.SQLITE) {
                Durability.requireSqlite(c, where);
            } else {
                Durability.requirePostgres(c, where);
            }
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * The durability settings read back from the store's own connection when it opened (the store refuses to open
     * without {@link Durability#SQLITE} or {@link Durability#POSTGRESQL}).
     */
    public Durability durability() {
        return durability;
    }

    /**
     * How many SQL statements the store's connections have executed since it opened (a fenced view: the same count
     * as its base); for benchmarks and tests that count what a change saves.
     */
    public long statementsExecuted() {
        return transactions.statementsExecuted();
    }

    /** How this store runs its work, for the store's own tests. */
    Transactions transactions() {
        return transactions;
    }

    /** A setting of the writer's connection read back ({@code PRAGMA name} on SQLite): for tests. */
    String writerPragma(String name) {
        return transactions.tx("read a setting", h -> h.createQuery("PRAGMA " + name).mapTo(String.class).one());
    }

    /** How many migrations this open applied: all of them on a new store, zero when the schema was current. */
    public int migrationsApplied() {
        return migrationsApplied;
    }

    /** Workloads: submitting, reading, listing, and the state changes that involve no attempt. */
    public Workloads workloads() {
        return workloads;
    }

    /** Attempts: beginning, marking and ending them, the open ones, and the usage they add up to. */
    public Attempts attempts() {
        return attempts;
    }

    /** Allocations, and the audit trail of their changes. */
    public Allocations allocations() {
        return allocations;
    }

    /** Users and their API tokens. */
    public Access access() {
        return access;
    }

    /** Nodes and their health. */
    public Nodes nodes() {
        return nodes;
    }

    /** Cluster-wide settings: the safety brakes' limits. */
    public ClusterSettings settings() {
        return settings;
    }

    /** Campaigns: their shards, the workloads each shard had, and what the scheduler did with them. */
    public Campaigns campaigns() {
        return campaigns;
    }

    /** The leader lease: which of several instances on one PostgreSQL database schedules. */
    public Leases leases() {
        return leases;
    }

    /** Waits for the transactions in progress to finish, then closes the connections (a fenced view: nothing). */
    @Override
    public void close() {
        if (ownsConnections) {
            transactions.close();
        }
    }
}
