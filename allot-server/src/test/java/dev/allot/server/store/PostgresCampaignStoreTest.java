package dev.allot.server.store;

import dev.allot.server.testing.SecondLane;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The campaign store contract on PostgreSQL, when {@code ALLOT_TEST_POSTGRES_URL} names a database (as
 * {@link PostgresStoreTest}): each test gets a fresh schema, dropped afterwards.
 */
@EnabledIfEnvironmentVariable(named = "ALLOT_TEST_POSTGRES_URL", matches = ".+")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LOCK)
class PostgresCampaignStoreTest extends CampaignStoreContract {
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

    @Override
    protected Store openStore() {
        return schema.open();
    }
}
