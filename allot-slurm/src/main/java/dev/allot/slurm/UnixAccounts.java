package dev.allot.slurm;

import dev.allot.core.backend.BackendUnavailableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Looks Unix accounts up as Slurm will: in the passwd database of this host, through {@code getent passwd} (so LDAP
 * and SSSD accounts count, as they do for {@code sbatch --uid}). A job runs as its account's uid and primary group,
 * in its home directory.
 */
@FunctionalInterface
interface UnixAccounts {
    /** A Unix account name as POSIX and shadow-utils allow: a letter or '_', then letters, digits, '.', '_', '-'. */
    Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9._-]{0,31}\\$?");

    /** One passwd entry: what a job needs to run as the account. */
    record Account(String name, long uid, long gid, Path home) {
        boolean root() {
            return uid == 0;
        }
    }

    /**
     * The account of this name.
     *
     * @return empty if the passwd database has no such account
     * @throws BackendUnavailableException if the database could not be asked (the answer is unknown, not "none")
     */
    Optional<Account> find(String name);

    /** The service's own account: the user this JVM runs as. */
    /**
     * Whether the account's home is a directory on the Allot host: not so for accounts that have none, such as
     * Debian's {@code nobody} ({@code /nonexistent}), where slurmd cannot start a job nor write its output.
     */
    default boolean homeExists(Account account) {
        return java.nio.file.Files.isDirectory(account.home());
    }

    default Account self() {
        String me = System.getProperty("user.name");
        return find(me).orElseThrow(() -> new BackendUnavailableException("this service's own user '" + me
                + "' is not in the passwd database (getent passwd " + me + ")"));
    }

    /** {@code getent passwd NAME}, killed after {@code timeout}. */
    static UnixAccounts getent(Duration timeout) {
        return name -> {
            if (name == null || !NAME.matcher(name).matches()) {
                return Optional.empty(); // no such account can exist; and never an option to getent
            }
            Path out = null;
            try {
                out = Files.createTempFile("allot-getent", ".out");
                Process p = new ProcessBuilder("getent", "passwd", name).redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    throw new BackendUnavailableException("getent passwd " + name + " did not answer within "
                            + timeout.toMillis() + " ms");
                }
                String text = Files.readString(out, StandardCharsets.UTF_8).strip();
                if (p.exitValue() == 2) {
                    return Optional.empty(); // getent: "One or more supplied key could not be found"
                }
                if (p.exitValue() != 0) {
                    throw new BackendUnavailableException("getent passwd " + name + " exited " + p.exitValue()
                            + (text.isEmpty() ? "" : ": " + text));
                }
                return Optional.of(parse(name, text));
            } catch (IOException e) {
                throw new BackendUnavailableException("could not run getent passwd " + name + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BackendUnavailableException("interrupted while looking up account " + name, e);
            } finally {
                if (out != null) {
                    try {
                        Files.deleteIfExists(out);
                    } catch (IOException e) {
                        // a temp file left behind is harmless
                    }
                }
            }
        };
    }

    /** One passwd line, {@code name:password:uid:gid:gecos:home:shell}. */
    static Account parse(String name, String line) {
        String[] f = line.split(":", -1);
        if (f.length != 7 || !f[0].equals(name)) {
            throw new BackendUnavailableException("getent passwd " + name + " printed an entry that is not"
                    + " name:password:uid:gid:gecos:home:shell for " + name + ": '" + line + "'");
        }
        try {
            return new Account(f[0], Long.parseLong(f[2]), Long.parseLong(f[3]), Path.of(f[5]));
        } catch (RuntimeException e) {
            throw new BackendUnavailableException("getent passwd " + name + ": uid, gid or home unreadable in '"
                    + line + "'", e);
        }
    }
}
