package dev.allot.server.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
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
