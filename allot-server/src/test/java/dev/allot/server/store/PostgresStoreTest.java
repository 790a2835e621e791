package dev.allot.server.store;

import dev.allot.server.testing.SecondLane;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The store contract on PostgreSQL, when {@code ALLOT_TEST_POSTGRES_URL} names a database (with
 * {@code ALLOT_TEST_POSTGRES_USER} and {@code ALLOT_TEST_POSTGRES_PASSWORD}). Each test gets a fresh schema,
 * dropped afterwards, so the database may be shared.
 */
@EnabledIfEnvironmentVariable(named = "ALLOT_TEST_POSTGRES_URL", matches = ".+")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LOCK)
class PostgresStoreTest extends StoreContract {
    private final PostgresSchema schema = new PostgresSchema();

    @BeforeEach
    void createSchema() throws SQLException {
        schema.create();
    }

    @AfterEach
    void dropSchema() throws SQLException {
        closeStores();
        schema.drop();
    }

    @org.junit.jupiter.api.Test
    void theStoreRunsWithSynchronousCommitReadBackFromItsConnection() {
        org.assertj.core.api.Assertions.assertThat(open().durability()).isEqualTo(new Durability(null, "on"));
    }

    @org.junit.jupiter.api.Test
    void aChangeCommittedAfterALaterOneWasReadIsNotMissedByTheChangeFeed() throws SQLException {
        // given a workload changed by a transaction that began first and is still open
        Store store = open();
        Workload early = store.workloads().submit(StoreContract.work("lab", "ada").build());
        long cursor = store.workloads().changesSince(store.workloads().changeCursor()).cursor();
        try (Connection slow = DriverManager.getConnection(schema.jdbcUrl(), schema.user, schema.password)) {
            slow.setAutoCommit(false);
            try (Statement s = slow.createStatement()) {
                s.executeUpdate("UPDATE workloads SET cancel_requested = TRUE WHERE id = '" + early.id() + "'");
            }
            // when a later transaction changes another workload and commits, and the feed reads past it
            Workload late = store.workloads().submit(StoreContract.work("lab", "ada").build());
            WorkloadChanges seen = store.workloads().changesSince(cursor);
            org.assertj.core.api.Assertions.assertThat(seen.workloads()).extracting(Workload::id)
                    .containsExactly(late.id());
            // and only then the first commits
            slow.commit();
            // then the next read has the first change (and may read the later one again)
            WorkloadChanges next = store.workloads().changesSince(seen.cursor());
            org.assertj.core.api.Assertions.assertThat(next.workloads()).extracting(Workload::id).contains(early.id());
            org.assertj.core.api.Assertions.assertThat(next.workloads()).filteredOn(w -> w.id().equals(early.id()))
                    .singleElement().extracting(Workload::cancelRequested).isEqualTo(true);
            // and once nothing is in progress, the cursor moves past both
            WorkloadChanges after = store.workloads().changesSince(next.cursor());
            org.assertj.core.api.Assertions.assertThat(after.workloads()).isEmpty();
        }
    }

    @Override
    protected Store openStore() {
        return schema.open();
    }

    @Override
    protected void createSchemaAt(String version, String... sql) {
        org.flywaydb.core.Flyway.configure().dataSource(schema.jdbcUrl(), schema.user, schema.password)
                .locations("classpath:db/migration/postgresql").target(version).load().migrate();
        try (Connection c = DriverManager.getConnection(schema.jdbcUrl(), schema.user, schema.password);
             Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
