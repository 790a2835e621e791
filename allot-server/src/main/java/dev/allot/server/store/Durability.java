package dev.allot.server.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * The durability the store promises (a call that returned is on disk), read back from every connection it opens:
 * asking a driver for a setting is not proof that the database runs with it (a URL parameter, a wrapper or a later
 * {@code PRAGMA} can change it). A connection without it is refused, so the service never acknowledges a request on a
 * store that could lose it.
 *
 * <ul>
 *   <li>SQLite: {@code journal_mode=wal} and {@code synchronous=FULL} (2): a commit returns only after the write-ahead
 *   log was synced. {@code NORMAL} in WAL mode may lose the last commits on a power cut; {@code OFF} on any crash of
 *   the machine.</li>
 *   <li>PostgreSQL: {@code synchronous_commit=on}: a commit returns only after its WAL record was flushed.</li>
 * </ul>
 *
 * @param journalMode SQLite's {@code journal_mode}, lower case; null on PostgreSQL
 * @param synchronous SQLite's {@code synchronous} by name ({@code OFF}, {@code NORMAL}, {@code FULL},
 *                    {@code EXTRA}), or PostgreSQL's {@code synchronous_commit}
 */
public record Durability(String journalMode, String synchronous) {
    /** What the SQLite store needs. */
    public static final Durability SQLITE = new Durability("wal", "FULL");
    /** What the PostgreSQL store needs. */
    public static final Durability POSTGRESQL = new Durability(null, "on");

    private static final String[] SQLITE_SYNCHRONOUS = {"OFF", "NORMAL", "FULL", "EXTRA"};

    /** Reads SQLite's settings of this connection back. */
    static Durability readSqlite(Connection c) throws SQLException {
        String journal = query(c, "PRAGMA journal_mode").toLowerCase(Locale.ROOT);
        String level = query(c, "PRAGMA synchronous");
        int n;
        try {
            n = Integer.parseInt(level.trim());
        } catch (NumberFormatException e) {
            n = -1;
        }
        return new Durability(journal, n >= 0 && n < SQLITE_SYNCHRONOUS.length ? SQLITE_SYNCHRONOUS[n] : level);
    }

    /** Reads PostgreSQL's setting of this connection back. */
    static Durability readPostgres(Connection c) throws SQLException {
        return new Durability(null, query(c, "SHOW synchronous_commit").toLowerCase(Locale.ROOT));
    }

    /**
     * Refuses a SQLite connection that does not run with {@link #SQLITE}: a {@link StoreException} naming the
     * database, the setting read back and the one needed. {@code EXTRA} (stricter than FULL) is accepted.
     */
    static void requireSqlite(Connection c, String where) throws SQLException {
        Durability d = readSqlite(c);
        if (!SQLITE.journalMode.equals(d.journalMode)) {
            throw refused(where, "journal_mode", d.journalMode, SQLITE.journalMode);
        }
        if (!d.synchronous.equals("FULL") && !d.synchronous.equals("EXTRA")) {
            throw refused(where, "synchronous", d.synchronous, SQLITE.synchronous);
        }
    }

    /** Refuses a PostgreSQL connection that does not run with {@link #POSTGRESQL}. */
    static void requirePostgres(Connection c, String where) throws SQLException {
        Durability d = readPostgres(c);
        if (!POSTGRESQL.synchronous.equals(d.synchronous)) {
            throw refused(where, "synchronous_commit", d.synchronous, POSTGRESQL.synchronous);
        }
    }

    private static StoreException refused(String where, String setting, String found, String needed) {
        return new StoreException("the store " + where + " runs with " + setting + "=" + found + ", but it needs "
                + setting + "=" + needed + ": otherwise a request the service acknowledged could be lost in a crash");
    }

    private static String query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new SQLException(sql + " answered nothing");
            }
            return rs.getString(1);
        }
    }
}
