package dev.allot.server.service;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What {@code allot serve --db-url URL} says when the PostgreSQL store cannot be opened at start: the option and the
 * URL (its parameters left out, so that a password given in it is never shown), what went wrong as PostgreSQL said
 * it, and what to do about the usual causes: nothing listening at the host and port, a user PostgreSQL does not know
 * or a wrong password ({@code --db-user}, {@code ALLOT_DB_PASSWORD}), a database that does not exist. A walk-through
 * found the bare driver message ("role root does not exist") with no word of the option that picks the user.
 */
final class DatabaseStartError {
    /** The PostgreSQL default port, when the URL names none. */
    private static final String DEFAULT_PORT = "5432";

    private DatabaseStartError() {
    }

    /** The failure to open the store at {@code url} as {@code user} (null: none given), told as a user needs it. */
    static IllegalStateException of(String url, String user, RuntimeException e) {
        String shown = withoutParameters(url);
        String where = hostAndPort(url);
        Optional<SQLException> sql = cause(e, SQLException.class);
        String state = sql.map(SQLException::getSQLState).orElse("");
        String said = sql.map(Throwable::getMessage).orElse(e.getMessage()).replaceFirst("\\.\\s*$", "");
        String asUser = user != null ? "--db-user '" + user + "'"
                : "no --db-user (so PostgreSQL was asked for the user '" + System.getProperty("user.name")
                        + "', this process's Unix account)";
        String hint;
        if (state.startsWith("28")) { // invalid authorization: an unknown role, a wrong password
            hint = "PostgreSQL refused the user: " + said + "; given " + asUser + ". Name a PostgreSQL user that may"
                    + " connect with --db-user USER, and its password in the environment variable ALLOT_DB_PASSWORD";
        } else if ("3D000".equals(state)) {
            hint = "the database does not exist: " + said + "; create it (e.g. createdb -h HOST -p PORT -O USER NAME)"
                    + " or name an existing one in --db-url";
        } else if (cause(e, ConnectException.class).isPresent() || cause(e, UnknownHostException.class).isPresent()
                || state.startsWith("08")) {
            hint = "cannot connect to PostgreSQL at " + where + ": " + said + ". Is PostgreSQL running at " + where
                    + " and accepting TCP connections? Check the host and port in --db-url";
        } else {
            hint = said + ". Check that --db-url names a PostgreSQL database that " + (user != null ? "user '" + user
                    + "'" : "the user given with --db-user") + " may create tables in";
        }
        return new IllegalStateException("--db-url " + shown + ": could not open the store; " + hint, e);
    }

    /** The URL without its parameters ({@code ?password=...} among them) and without a password before an @. */
    static String withoutParameters(String url) {
        String s = url.contains("?") ? url.substring(0, url.indexOf('?')) : url;
        return s.replaceFirst("//([^/@:]*):[^/@]*@", "//$1:***@");
    }

    /** The host and port a {@code jdbc:postgresql:} URL names (the first of several), 5432 when it names no port. */
    static String hostAndPort(String url) {
        String rest = withoutParameters(url).replaceFirst("^jdbc:postgresql:", "");
        if (!rest.startsWith("//")) {
            return "localhost:" + DEFAULT_PORT; // jdbc:postgresql:database
        }
        rest = rest.substring(2);
        int slash = rest.indexOf('/');
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        hosts = hosts.substring(hosts.indexOf('@') + 1).split(",")[0];
        if (hosts.isEmpty()) {
            return "localhost:" + DEFAULT_PORT;
        }
        boolean hasPort = hosts.startsWith("[") ? hosts.contains("]:") : hosts.contains(":");
        return hasPort ? hosts : hosts + ":" + DEFAULT_PORT;
    }

    private static <T extends Throwable> Optional<T> cause(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return Optional.of(type.cast(t));
            }
        }
        return Optional.empty();
    }
}
