package dev.allot.server.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The campaign store contract on PostgreSQL, when {@code ALLOT_TEST_POSTGRES_URL} names a database (as
 * {@link PostgresStoreTest}): each test gets a fresh schema, dropped afterwards.
 */
@EnabledIfEnvironmentVariable(named = "ALLOT_TEST_POSTGRES_URL", matches = ".+")
class PostgresCampaignStoreTest extends CampaignStoreContract {
    private final String url = System.getenv("ALLOT_TEST_POSTGRES_URL");
    private final String user = System.getenv("ALLOT_TEST_POSTGRES_USER");
    private final String password = System.getenv("ALLOT_TEST_POSTGRES_PASSWORD");
    private String schema;

    @BeforeEach
    void createSchema() throws SQLException {
        schema = "allot_test_" + UUID.randomUUID().toString().replace("-", "");
        execute("CREATE SCHEMA " + schema);
    }

    @AfterEach
    void dropSchema() throws SQLException {
        closeStores();
        execute("DROP SCHEMA " + schema + " CASCADE");
    }

    @Override
    protected Store openStore() {
        return Store.open(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema, user, password);
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
