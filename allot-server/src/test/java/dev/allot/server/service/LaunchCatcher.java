package dev.allot.server.service;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * Finds the moment {@link CrashSafetyTest} needs for its rarest case: an attempt the service has begun in its store
 * (phase {@code launching}, durable) that the local backend has not received yet (no trace of it under
 * {@code attempts/}: no pid, exit, failure or log file). A kill then leaves a start the backend never got, which the
 * restarted service must launch under the same attempt number. At random moments that window (between the store's
 * commit and the backend's first file) is hit only now and then, so some rounds watch for it: a read-only
 * connection to the service's database, polled every millisecond. The watch is racy by nature (the backend may
 * receive the start between the look and the kill); the test classifies what happened from the service's own log.
 */
final class LaunchCatcher implements AutoCloseable {
    private static final List<String> TRACES = List.of(".pid", ".exit", ".failed", ".log");
    private final Connection connection;
    private final Path attemptsDir;

    /** A read-only connection to the service's store: SQLite in {@code data}, or the database. */
    LaunchCatcher(Path data, ServiceTestSupport.Database database) throws SQLException {
        this.attemptsDir = data.resolve("attempts");
        if (database == null) {
            org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
            config.setReadOnly(true);
            this.connection = config.createConnection("jdbc:sqlite:" + data.resolve("allot.db").toAbsolutePath());
        } else {
            this.connection = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
            this.connection.setReadOnly(true);
        }
    }

    /** Polls until an attempt is launching in the store with no trace on the backend; false after {@code timeout}. */
    boolean awaitUnreceivedLaunch(Duration timeout) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Statement s = connection.createStatement();
                 ResultSet rs = s.executeQuery("SELECT workload_id, attempt FROM attempts WHERE phase = 'launching'")) {
                while (rs.next()) {
                    String base = rs.getString(1) + "-" + rs.getInt(2);
                    if (TRACES.stream().noneMatch(suffix -> Files.exists(attemptsDir.resolve(base + suffix)))) {
                        return true;
                    }
                }
            }
            Thread.sleep(1);
        }
        return false;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
