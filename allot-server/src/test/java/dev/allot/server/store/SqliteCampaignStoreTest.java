package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The campaign store contract on embedded SQLite, plus the upgrade of a store from before campaigns. */
class SqliteCampaignStoreTest extends CampaignStoreContract {
    @TempDir
    Path dataDir;

    @Override
    protected Store openStore() {
        return Store.sqlite(dataDir);
    }

    @Test
    void theUpgradeChargesTheAttemptsOfAllocatedWorkFromTheirStartAndNeverUnallocatedWork() throws Exception {
        // given a store at schema version 6 with an allocated and an unallocated workload, each with an attempt
        String url = "jdbc:sqlite:" + dataDir.resolve("allot.db").toAbsolutePath();
        org.flywaydb.core.Flyway.configure().dataSource(url, null, null).locations("classpath:db/migration/sqlite")
                .target("6").load().migrate();
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            for (String[] w : new String[][] {{"1", "w-1", "3600"}, {"2", "w-2", "0"}}) {
                st.execute("INSERT INTO workloads (seq, id, allocation_path, user_name, gpus, gpus_per_node,"
                        + " min_runtime_seconds, resumable, priority, kind, command, environment, state, submitted_at_ms)"
                        + " VALUES (" + w[0] + ", '" + w[1] + "', 'lab/a', 'alice', 1, 0, " + w[2] + ", 1, 'normal',"
                        + " 'train', '[]', '{}', 'running', 1000)");
                st.execute("INSERT INTO attempts (workload_id, attempt, placement, phase, started_at_ms) VALUES ('"
                        + w[1] + "', 1, '[{\"node\": \"n1\", \"gpus\": [" + w[0] + "]}]', 'running', 5000)");
            }
        }

        // when the store opens and upgrades it
        try (Store store = Store.sqlite(dataDir)) {
            assertThat(store.migrationsApplied())
                    .as("V7, V8 (the leader lease), V9 (the change feed), V10 (an index dropped), V11 (reason detail),"
                            + " V12 (failure retries)")
                    .isEqualTo(6);
            assertThat(store.attempts().attempts("w-1").get(0).chargedFromMillis()).isEqualTo(5000L);
            assertThat(store.attempts().attempts("w-2").get(0).chargedFromMillis()).isNull();
            assertThat(store.attempts().usageSince(0, 15_000)).containsEntry("lab/a", 10.0);
        }
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM campaigns")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isZero();
        }
    }
}
