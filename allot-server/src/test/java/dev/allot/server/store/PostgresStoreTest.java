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
 * The store contract on PostgreSQL, when {@code ALLOT_TEST_POSTGRES_URL} names a database (with
 * {@code ALLOT_TEST_POSTGRES_USER} and {@code ALLOT_TEST_POSTGRES_PASSWORD}). Each test gets a fresh schema,
 * dropped afterwards, so the database may be shared.
 */
@EnabledIfEnvironmentVariable(named = "ALLOT_TEST_POSTGRES_URL", matches = ".+")
class PostgresStoreTest extends StoreContract {
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

    @Override
    protected void createSchemaAt(String version, String... sql) {
        String at = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        org.flywaydb.core.Flyway.configure().dataSource(at, user, password)
                .locations("classpath:db/migration/postgresql").target(version).load().migrate();
        try (Connection c = DriverManager.getConnection(at, user, password); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
