package dev.allot.server.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A fresh schema in the PostgreSQL database that {@code ALLOT_TEST_POSTGRES_URL} names (with
 * {@code ALLOT_TEST_POSTGRES_USER} and {@code ALLOT_TEST_POSTGRES_PASSWORD}), for one test of a store contract: created
 * before it, dropped after, so the database may be shared. The one place the PostgreSQL tests get theirs (the store
 * contract here, the service's crash safety in {@code service.CrashSafetyTest}).
 */
public final class PostgresSchema {
    public final String url = System.getenv("ALLOT_TEST_POSTGRES_URL");
    public final String user = System.getenv("ALLOT_TEST_POSTGRES_USER");
    public final String password = System.getenv("ALLOT_TEST_POSTGRES_PASSWORD");
    private String name;

    public void create() throws SQLException {
        name = "allot_test_" + UUID.randomUUID().toString().replace("-", "");
        execute("CREATE SCHEMA " + name);
    }

    public void drop() throws SQLException {
        execute("DROP SCHEMA " + name + " CASCADE");
    }

    /** The JDBC URL that opens the database on this schema. */
    public String jdbcUrl() {
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    public Store open() {
        return Store.open(jdbcUrl(), user, password);
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
