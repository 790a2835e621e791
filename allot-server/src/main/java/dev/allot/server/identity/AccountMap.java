package dev.allot.server.identity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Which Unix account each Allot user's workloads run as. A lab's scheduler runs every job as its submitter (Slurm's
 * slurmstepd as the job's uid, a pod's securityContext); Allot does the same, and this map is where an operator says
 * who is who when the names differ.
 *
 * <p>The file has one {@code user: account} per line; {@code #} starts a comment; blank lines are ignored. A user
 * the file does not name runs as the account of the same name, unless a line {@code *: account} names a default for
 * everyone else (the demo on a root host maps everyone to {@code nobody} that way).
 *
 * @param accounts the named users' accounts
 * @param fallback the account of every user not named; null for "the account of the user's own name"
 */
public record AccountMap(SortedMap<String, String> accounts, String fallback) {
    /** A Unix account name as POSIX and shadow-utils allow it (portable: letters, digits, '.', '_', '-'). */
    private static final Pattern ACCOUNT = Pattern.compile("[A-Za-z_][A-Za-z0-9._-]{0,31}\\$?");

    public AccountMap {
        accounts = Collections.unmodifiableSortedMap(new TreeMap<>(accounts));
        accounts.forEach((user, account) -> requireAccountName(account, "the account of user '" + user + "'"));
        if (fallback != null) {
            requireAccountName(fallback, "the default account");
        }
    }

    /** Every user runs as the account of the same name. */
    public static AccountMap sameName() {
        return new AccountMap(new TreeMap<>(), null);
    }

    /** Every user runs as {@code account}. */
    public static AccountMap everyoneAs(String account) {
        return new AccountMap(new TreeMap<>(), account);
    }

    /** The Unix account {@code user}'s workloads run as. */
    public String accountOf(String user) {
        Objects.requireNonNull(user, "user");
        String named = accounts.get(user);
        if (named != null) {
            return named;
        }
        return fallback != null ? fallback : user;
    }

    /** True if {@code name} can be a Unix account name. */
    public static boolean validAccountName(String name) {
        return name != null && ACCOUNT.matcher(name).matches();
    }

    private static void requireAccountName(String account, String what) {
        if (!validAccountName(account)) {
            throw new IllegalArgumentException(what + " must be a Unix account name (a letter or '_', then letters,"
                    + " digits, '.', '_' or '-', at most 32 characters); got '" + account + "'");
        }
    }

    /**
     * Reads a map file.
     *
     * @throws IllegalArgumentException naming the file and line of the first bad line, what was expected and got
     * @throws IOException              if the file cannot be read
     */
    public static AccountMap read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        SortedMap<String, String> accounts = new TreeMap<>();
        String fallback = null;
        for (int i = 0; i < lines.size(); i++) {
            String where = file + ":" + (i + 1) + ": ";
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String content = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (content.isEmpty()) {
                continue;
            }
            int colon = content.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException(where + "expected 'USER: ACCOUNT' (an Allot user, a colon, a Unix"
                        + " account; '*' as the user names the default); got '" + content + "'");
            }
            String user = content.substring(0, colon).strip();
            String account = content.substring(colon + 1).strip();
            if (user.isEmpty()) {
                throw new IllegalArgumentException(where + "the user before ':' is empty; expected an Allot user or '*'");
            }
            if (!validAccountName(account)) {
                throw new IllegalArgumentException(where + "expected a Unix account name after ':' (a letter or '_',"
                        + " then letters, digits, '.', '_' or '-'); got '" + account + "'");
            }
            boolean again = user.equals("*") ? fallback != null : accounts.containsKey(user);
            if (again) {
                throw new IllegalArgumentException(where + "user '" + user + "' is mapped twice; expected one line each");
            }
            if (user.equals("*")) {
                fallback = account;
            } else {
                accounts.put(user, account);
            }
        }
        return new AccountMap(accounts, fallback);
    }
}
