package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/** The store contract on embedded SQLite, plus what only a file on this machine lets us check. */
class SqliteStoreTest extends StoreContract {
    @TempDir
    Path dataDir;

    @Override
    protected Store openStore() {
        return Store.sqlite(dataDir);
    }

    @Override
    protected void createSchemaAt(String version, String... sql) {
        String url = "jdbc:sqlite:" + dataDir.resolve("allot.db").toAbsolutePath();
        org.flywaydb.core.Flyway.configure().dataSource(url, null, null).locations("classpath:db/migration/sqlite")
                .target(version).load().migrate();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aBatchCommitsItsCallsTogetherAndACallThatFailsUndoesOnlyItsOwnWrites() {
        // given two waiting workloads, one running
        Store store = open();
        Workload a = store.workloads().submit(work("lab", "ada").build());
        Workload b = store.workloads().submit(work("lab", "ada").build());
        AttemptKey key = store.attempts().beginAttempt(b.id(), on("n1", 0), 1_000);
        Store other = open(); // another handle on the same file: sees only what was committed
        // when a batch holds a workload, ends the attempt, and makes a call that fails (a second end of it)
        store.batch(() -> {
            assertThat(store.workloads().setHeld(a.id(), "held in a batch")).isTrue();
            store.attempts().endAttempt(key, AttemptOutcome.COMPLETED, "exit 0", null, null, 2_000);
            assertThatThrownBy(() -> store.attempts().endAttempt(key, AttemptOutcome.FAILED, null, null, null, 3_000))
                    .isInstanceOf(ConflictException.class);
            // then reads inside the batch see its writes, and nothing is visible outside before it commits
            assertThat(store.workloads().workload(b.id()).orElseThrow().state()).isEqualTo(WorkloadState.COMPLETED);
            assertThat(other.workloads().workload(b.id()).orElseThrow().state()).isEqualTo(WorkloadState.RUNNING);
        });
        // and once it returned, everything but the failed call is stored
        assertThat(other.workloads().workload(a.id()).orElseThrow().heldReason()).isEqualTo("held in a batch");
        assertThat(other.attempts().attempts(b.id()).get(0).outcome()).isEqualTo(AttemptOutcome.COMPLETED);

        // when a batch fails after a call, nothing of it is stored
        assertThatThrownBy(() -> store.batch(() -> {
            store.workloads().setHeld(a.id(), null);
            throw new IllegalStateException("the loop failed");
        })).hasMessageContaining("the loop failed");
        assertThat(other.workloads().workload(a.id()).orElseThrow().heldReason()).isEqualTo("held in a batch");
    }

    @Test
    void aCallWithoutASavepointThatFailsHalfwayFailsItsWholeBatchEvenWhenCaught() {
        // given a store with a waiting workload, and another handle that sees only what was committed
        Store store = open();
        Workload a = store.workloads().submit(work("lab", "ada").build());
        Store other = open();
        Transactions t = store.transactions();
        // when, in a batch, a call run without a savepoint writes, then hits a database error, and the caller goes on
        assertThatThrownBy(() -> store.batch(() -> {
            assertThatThrownBy(() -> t.txGuarded("write, then fail", h -> {
                h.createUpdate("UPDATE workloads SET held_reason = 'half' WHERE id = :id").bind("id", a.id()).execute();
                return h.execute("UPDATE no_such_table SET x = 1");
            })).isInstanceOf(StoreException.class);
            store.workloads().setHeld(a.id(), "after the failure");
        })).isInstanceOf(StoreException.class).hasMessageContaining("write, then fail");
        // then nothing of the batch is stored: not the half-done call, not what came after it
        assertThat(other.workloads().workload(a.id()).orElseThrow().heldReason()).isNull();
        // and the store goes on working
        assertThat(store.workloads().setHeld(a.id(), "later")).isTrue();
        assertThat(other.workloads().workload(a.id()).orElseThrow().heldReason()).isEqualTo("later");
    }

    @Test
    void readsDoNotWaitForAWriterHoldingTheDatabase() throws Exception {
        // given a stored workload, and another connection that holds SQLite's one write lock with a change not committed
        Store store = open();
        Workload w = store.workloads().submit(work("lab", "ada").build());
        String url = "jdbc:sqlite:" + dataDir.resolve("allot.db").toAbsolutePath();
        try (Connection writer = DriverManager.getConnection(url); Statement st = writer.createStatement()) {
            st.execute("BEGIN IMMEDIATE");
            st.execute("UPDATE workloads SET held_reason = 'not committed' WHERE id = '" + w.id() + "'");
            // when the store reads while the lock is held (its writes would wait up to the 10 s busy timeout)
            long t0 = System.nanoTime();
            Workload read = store.workloads().workload(w.id()).orElseThrow();
            List<Workload> listed = store.workloads().workloads(WorkloadFilter.all());
            long millis = (System.nanoTime() - t0) / 1_000_000;
            // then the reads answer at once, with the last committed state
            assertThat(read.heldReason()).isNull();
            assertThat(listed).extracting(Workload::id).containsExactly(w.id());
            assertThat(millis).as("ms to read beside a held write lock (a writer would wait 10,000)").isLessThan(5_000);
            st.execute("COMMIT");
        }
        // and once the other writer committed, a read sees its change
        assertThat(store.workloads().workload(w.id()).orElseThrow().heldReason()).isEqualTo("not committed");
    }

    @Test
    void theChangeFeedReadsItsIndexNotEveryRow() throws Exception {
        // given a store with waiting work, one workload changed since, statistics gathered
        Store store = open();
        for (int i = 0; i < 200; i++) {
            store.workloads().submit(work("lab", "ada").build());
        }
        long cursor = store.workloads().changeCursor();
        Workload running = store.workloads().submit(work("lab", "ada").build());
        store.attempts().beginAttempt(running.id(), on("n1", 0), 1_000);
        String url = "jdbc:sqlite:" + dataDir.resolve("allot.db").toAbsolutePath();
        List<String> plan = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("ANALYZE");
            try (ResultSet r = st.executeQuery("EXPLAIN QUERY PLAN "
                    + Workloads.CHANGES.replace(":cursor", String.valueOf(cursor)))) {
                while (r.next()) {
                    plan.add(r.getString("detail"));
                }
            }
        }
        // then the scheduler's per-cycle query walks the change index only, and finds the one workload, running
        assertThat(plan).as("query plan").anySatisfy(d -> assertThat(d).contains("workloads_by_change"))
                .noneSatisfy(d -> assertThat(d).contains("workloads_by_state"))
                .noneSatisfy(d -> assertThat(d).startsWith("SCAN workloads"));
        assertThat(store.workloads().changesSince(cursor).workloads()).singleElement()
                .satisfies(w -> assertThat(w.state()).isEqualTo(WorkloadState.RUNNING));
    }

    @Test
    void theShareMigrationKeepsTheTreeAndItsParentReference() throws Exception {
        // given a store at schema version 3 (shares > 0) holding lab > nlp
        String url = "jdbc:sqlite:" + dataDir.resolve("allot.db").toAbsolutePath();
        org.flywaydb.core.Flyway.configure().dataSource(url, null, null).locations("classpath:db/migration/sqlite")
                .target("3").load().migrate();
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("INSERT INTO allocations VALUES ('lab', NULL, 'lab', 1.0, '[]', '[\"ada\"]')");
            st.execute("INSERT INTO allocations VALUES ('lab/nlp', 'lab', 'nlp', 2.5, '[\"bo\"]', '[]')");
        }

        // when the store opens and upgrades it
        Store store = Store.sqlite(dataDir);

        // then the tree is as it was, a zero share can be stored, and the parent reference still holds
        assertThat(store.migrationsApplied()).isPositive();
        assertThat(store.allocations().allocations()).containsExactly(
                new Allocation("lab", 1, List.of(), List.of("ada")), new Allocation("lab/nlp", 2.5, List.of("bo"), List.of()));
        store.allocations().putAllocation(new Allocation("lab/scratch", 0, List.of(), List.of()), "root", 1);
        store.close();
        org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
        config.enforceForeignKeys(true);
        try (Connection c = DriverManager.getConnection(url, config.toProperties()); Statement st = c.createStatement()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> st.execute(
                    "INSERT INTO allocations VALUES ('x/y', 'x', 'y', 1.0, '[]', '[]')"))
                    .hasMessageContaining("FOREIGN KEY");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> st.execute(
                    "INSERT INTO allocations VALUES ('z', NULL, 'z', -1.0, '[]', '[]')")).hasMessageContaining("CHECK");
        }
    }

    @Test
    void tokensAreStoredOnlyAsTheirHash() throws Exception {
        Store store = open();
        store.access().putUser(new User("ada", User.Role.USER));
        String token = "allot_tok_7f3a9c1e5b2d4f60a8e1";
        String hash = store.access().addToken("ada", token, "laptop", 1);

        String whileOpen = databaseBytes();
        assertThat(whileOpen).contains(hash).doesNotContain(token);
        store.close();
        String afterClose = databaseBytes();
        assertThat(afterClose).contains(hash).doesNotContain(token);
    }

    /** Every file of the database (main file, write-ahead log, shared memory), as Latin-1 so any byte matches. */
    private String databaseBytes() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(dataDir)) {
            for (Path f : files.sorted().toList()) {
                all.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
            }
        }
        return all.toString();
    }

    @Test
    void theDatabaseIsOneFileInTheDataDirectoryInWalMode() throws Exception {
        Path nested = dataDir.resolve("a/b");
        try (Store store = Store.sqlite(nested)) {
            store.access().putUser(new User("ada", User.Role.USER));
        }
        assertThat(nested.resolve(Store.SQLITE_FILE)).isRegularFile();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + nested.resolve(Store.SQLITE_FILE));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("wal");
        }
    }

    @Test
    void theWritersConnectionKeepsTemporaryTablesInMemoryAndA32MbPageCache() {
        Store store = open();
        assertThat(store.writerPragma("temp_store")).as("temp_store (2: memory)").isEqualTo("2");
        assertThat(store.writerPragma("cache_size")).as("cache_size (negative: KiB)")
                .isEqualTo(String.valueOf(-Store.SQLITE_CACHE_KIB));
    }

    @Test
    void theStoreRunsWithTheWriteAheadLogAndSynchronousFullReadBackFromItsConnection() {
        assertThat(open().durability()).isEqualTo(new Durability("wal", "FULL"));
    }

    @Test
    void aConnectionWithoutSynchronousFullOrTheWriteAheadLogIsRefused() throws Exception {
        String url = "jdbc:sqlite:" + dataDir.resolve("other.db").toAbsolutePath();
        for (SQLiteConfig.SynchronousMode mode : List.of(SQLiteConfig.SynchronousMode.OFF,
                SQLiteConfig.SynchronousMode.NORMAL)) {
            SQLiteConfig config = new SQLiteConfig();
            config.setJournalMode(SQLiteConfig.JournalMode.WAL);
            config.setSynchronous(mode);
            try (Connection c = config.createConnection(url)) {
                assertThatThrownBy(() -> Durability.requireSqlite(c, url)).isInstanceOf(StoreException.class)
                        .hasMessage("the store " + url + " runs with synchronous=" + mode.name() + ", but it needs"
                                + " synchronous=FULL: otherwise a request the service acknowledged could be lost in a"
                                + " crash");
            }
        }
        SQLiteConfig rollback = new SQLiteConfig();
        rollback.setJournalMode(SQLiteConfig.JournalMode.DELETE);
        rollback.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        try (Connection c = rollback.createConnection(url)) {
            assertThatThrownBy(() -> Durability.requireSqlite(c, url))
                    .hasMessageContaining("runs with journal_mode=delete, but it needs journal_mode=wal");
        }
        SQLiteConfig extra = new SQLiteConfig();
        extra.setJournalMode(SQLiteConfig.JournalMode.WAL);
        extra.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        try (Connection c = extra.createConnection(url); Statement st = c.createStatement()) {
            st.execute("PRAGMA synchronous=EXTRA"); // stricter than FULL: accepted
            Durability.requireSqlite(c, url);
            assertThat(Durability.readSqlite(c)).isEqualTo(new Durability("wal", "EXTRA"));
        }
    }

    /**
     * A real crash: a child JVM submits workloads and begins attempts, printing each acknowledgement once the store
     * call has returned, and is killed (SIGKILL) mid-stream. Everything it acknowledged must be there on reopen. A
     * SIGKILL leaves the operating system's buffers to be written, so this passes even without syncs: the child
     * first prints the durability its store read back from its own connection, which must be WAL with FULL syncs.
     */
    @Test
    void everythingAcknowledgedSurvivesAKilledProcess() throws Exception {
        List<String> acknowledged = acknowledgedBeforeTheKill(100);
        assertThat(acknowledged).hasSize(100);

        Store store = open();
        for (String ack : acknowledged) {
            String[] parts = ack.split(" ");
            Workload w = store.workloads().workload(parts[0]).orElseThrow(() -> new AssertionError("lost " + ack));
            if (parts.length > 1) {
                assertThat(w.state()).as(ack).isEqualTo(WorkloadState.RUNNING);
                assertThat(store.attempts().openAttempts()).extracting(Attempt::key).contains(new AttemptKey(parts[0], 1));
            }
        }
        // The store is usable after the crash: the open attempts can be reconciled.
        for (Attempt a : store.attempts().openAttempts()) {
            store.attempts().endAttempt(a.key(), AttemptOutcome.LOST, "restarted", null, null, System.currentTimeMillis());
        }
        assertThat(store.attempts().openAttempts()).isEmpty();
    }

    /**
     * Runs {@link SqliteCrashChild} on this store with {@code args}, checks the durability it reads back (WAL, FULL
     * syncs), reads what it acknowledges line by line and kills it (SIGKILL) after {@code count} acknowledgements.
     */
    private List<String> acknowledgedBeforeTheKill(int count, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                SqliteCrashChild.class.getName(), dataDir.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process child = pb.start();
        List<String> acknowledged = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).as("the durability the child's store read back from its connection")
                    .isEqualTo("durability " + new Durability("wal", "FULL"));
            String line;
            while (acknowledged.size() < count && (line = out.readLine()) != null) {
                acknowledged.add(line);
            }
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        return acknowledged;
    }

    @Test
    void everySubmissionAcknowledgedToConcurrentCallersSurvivesAKilledProcess() throws Exception {
        // given a child process whose 8 threads submit at once, so that their submissions share commits, each
        // printing its id only once its submit returned; killed (SIGKILL) after 400 acknowledgements
        List<String> acknowledged = acknowledgedBeforeTheKill(400, "concurrent", "8");
        assertThat(acknowledged).hasSize(400).doesNotHaveDuplicates();

        // then on reopening, every acknowledged workload is there, under the id it was acknowledged with
        Store store = open();
        for (String id : acknowledged) {
            assertThat(store.workloads().workload(id)).as("acknowledged " + id).isPresent()
                    .hasValueSatisfying(w -> assertThat(w.id()).isEqualTo("w-" + w.seq()));
        }
        // and the next submission takes an id no acknowledged one had
        Workload next = store.workloads().submit(work("lab", "ada").build());
        assertThat(acknowledged).doesNotContain(next.id());
        assertThat(next.seq()).isGreaterThan(acknowledged.stream().mapToLong(id -> Long.parseLong(id.substring(2)))
                .max().orElseThrow());
    }

    @Test
    void aSeqIsNeverHandedOutTwiceEvenAfterTheNewestWorkloadIsGone() throws Exception {
        // given three workloads, the newest of which is then deleted behind the store's back (a repair by hand)
        Store store = open();
        store.workloads().submitAll(List.of(work("lab", "ada").build(), work("lab", "ada").build(),
                work("lab", "ada").build()));
        String url = "jdbc:sqlite:" + dataDir.resolve("allot.db").toAbsolutePath();
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            assertThat(st.executeUpdate("DELETE FROM workloads WHERE id = 'w-3'")).isEqualTo(1);
        }
        // when more are submitted, alone and together
        Workload alone = store.workloads().submit(work("lab", "ada").build());
        List<Workload> together = store.workloads().submitAll(List.of(work("lab", "bob").build(),
                work("lab", "cy").build()));
        // then none is w-3 again: ids go on from the highest ever handed out, each its row's seq
        assertThat(alone.id()).isEqualTo("w-4");
        assertThat(together).extracting(Workload::id).containsExactly("w-5", "w-6");
        assertThat(store.workloads().workload("w-5")).contains(together.get(0));
        assertThat(store.workloads().workload("w-3")).isEmpty();
    }

    @Test
    void aRepeatedIdempotencyKeyInOneTransactionTakesNoId() {
        // given one transaction with a key, the same key again (asking for more GPUs) and another key
        Store store = open();
        List<Workload> stored = store.workloads().submitAll(List.of(
                work("lab", "ada").idempotencyKey("ada:1").gpus(2).build(),
                work("lab", "ada").idempotencyKey("ada:1").gpus(8).build(),
                work("lab", "ada").idempotencyKey("ada:2").build()));
        // then the repeat is answered with the first workload, and the next takes the next id
        assertThat(stored).extracting(Workload::id).containsExactly("w-1", "w-1", "w-2");
        assertThat(stored.get(1).gpus()).isEqualTo(2);
        assertThat(store.workloads().workloads(WorkloadFilter.all())).hasSize(2);
    }
}
