package dev.allot.server.identity;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The Unix accounts of this machine, as the C library sees them: {@code getent passwd NAME} answers from every
 * source NSS is configured with ({@code /etc/passwd}, LDAP, SSSD), which is what {@code setpriv --init-groups} and
 * Slurm will see too. Answers (found or not) are kept for {@link #CACHE_TTL} so that a burst of submissions does not
 * fork one {@code getent} each, and an account created a moment ago is seen soon.
 *
 * <p>Also tells which user this process runs as ({@link #serviceUid}), the one fact the identity mode is decided on.
 */
public class UnixAccounts {
    /** How long an answer of {@code getent} is trusted. */
    public static final Duration CACHE_TTL = Duration.ofSeconds(10);
    /** How long {@code getent} may take (NSS over a slow LDAP) before the lookup counts as failed. */
    static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(10);

    /** One passwd entry. */
    public record Account(String name, long uid, long gid, Path home, String shell) {
        public Account {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(home, "home");
            Objects.requireNonNull(shell, "shell");
        }

        public boolean root() {
            return uid == 0;
        }
    }

    private record Cached(Optional<Account> account, long atNanos) {
    }

    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    private final LongSupplier nanos;

    public UnixAccounts() {
        this(System::nanoTime);
    }

    UnixAccounts(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /**
     * The account of this name, if NSS knows one.
     *
     * @throws IllegalArgumentException if {@code name} cannot be an account name (so it never reaches getent as an
     *                                  option)
     * @throws IllegalStateException    if getent could not be run or did not answer in time
     */
    public Optional<Account> lookup(String name) {
        if (!AccountMap.validAccountName(name)) {
            throw new IllegalArgumentException("'" + name + "' cannot be a Unix account name");
        }
        long now = nanos.getAsLong();
        Cached known = cache.get(name);
        if (known != null && now - known.atNanos() < CACHE_TTL.toNanos()) {
            return known.account();
        }
        Optional<Account> found = getent(name);
        if (cache.size() > 10_000) {
            cache.clear(); // names come from the account map and the users, never from a request: this is a guard
        }
        cache.put(name, new Cached(found, now));
        return found;
    }

    /** Runs {@code getent passwd NAME}; exit 2 is "no such account". */
    protected Optional<Account> getent(String name) {
        Process p;
        try {
            p = new ProcessBuilder("getent", "passwd", name).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run 'getent passwd " + name + "' to find the Unix account: "
                    + e.getMessage(), e);
        }
        try (InputStream in = p.getInputStream()) {
            byte[] out = in.readNBytes(64 * 1024);
            if (!p.waitFor(LOOKUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("'getent passwd " + name + "' did not answer within "
                        + LOOKUP_TIMEOUT.toSeconds() + "s");
            }
            int code = p.exitValue();
            if (code == 2) {
                return Optional.empty();
            }
            String text = new String(out, StandardCharsets.UTF_8).strip();
            if (code != 0) {
                throw new IllegalStateException("'getent passwd " + name + "' failed with exit code " + code
                        + (text.isEmpty() ? "" : ": " + text));
            }
            return Optional.of(parse(text.lines().findFirst().orElse(""), name));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the answer of 'getent passwd " + name + "': "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while looking up the Unix account " + name, e);
        }
    }

    /** A passwd line: {@code name:password:uid:gid:gecos:home:shell}. */
    static Account parse(String line, String looked) {
        String[] f = line.split(":", -1);
        if (f.length != 7) {
            throw new IllegalStateException("'getent passwd " + looked + "' answered '" + line
                    + "', not a passwd entry (7 fields separated by ':')");
        }
        try {
            return new Account(f[0], Long.parseLong(f[2]), Long.parseLong(f[3]),
                    Path.of(f[5].isEmpty() ? "/" : f[5]), f[6].isEmpty() ? "/bin/sh" : f[6]);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("'getent passwd " + looked + "' answered '" + line
                    + "' whose uid or gid is not a number");
        }
    }

    /** The effective uid this process runs as (from {@code /proc/self/status}, else the JDK's Unix login module). */
    public static long serviceUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    String[] ids = line.substring(4).trim().split("\\s+");
                    return Long.parseLong(ids.length > 1 ? ids[1] : ids[0]);
                }
            }
        } catch (IOException | RuntimeException noProc) {
            // not Linux: ask the JDK
        }
        return new com.sun.security.auth.module.UnixSystem().getUid();
    }

    /** The name of the user this process runs as, for messages. */
    public static String serviceUserName() {
        try {
            return new com.sun.security.auth.module.UnixSystem().getUsername();
        } catch (RuntimeException | LinkageError e) {
            return System.getProperty("user.name", "uid " + serviceUid());
        }
    }
}
