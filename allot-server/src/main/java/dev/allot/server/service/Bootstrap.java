package dev.allot.server.service;

import dev.allot.server.store.Allocation;
import dev.allot.server.OwnerOnlyFiles;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * What a service puts into a store it finds empty: the first administrator ({@link #ensureAdmin}) and, on request,
 * the demo tree and users ({@link #ensureDemo}). Each happens once: later starts find the users or allocations and
 * do nothing.
 *
 * <p>Their tokens expire like any other: they get the token policy's default lifetime (90 days unless an administrator
 * changed it) from when they were made. So that an expired bootstrap token cannot lock the service's owner out, a start
 * that finds no enabled administrator with a token that has not expired writes a fresh one for the first enabled
 * administrator to {@code DATA/admin-token} ({@link #renewAdminToken}; audited as {@code system:startup}): whoever
 * can read the data directory can read the store anyway.
 */
public final class Bootstrap {
    /** The administrator created in a store without users. */
    public static final String ADMIN = "admin";
    /** Where the administrator's token is written, in the data directory (owner-only permissions). */
    public static final String ADMIN_TOKEN_FILE = "admin-token";
    /** The demo's administrator, whose token the demo prints. */
    public static final String DEMO_USER = "demo";
    /** Where the demo's token is kept (0600) in the data directory, as the first administrator's is. */
    public static final String DEMO_TOKEN_FILE = "demo-token";

    private static final SecureRandom RANDOM = new SecureRandom();

    private Bootstrap() {
    }

    /** A fresh API token: 32 random bytes, URL-safe base64 without padding, prefixed {@code allot_}. */
    public static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "allot_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * On a store without users: creates {@code admin} (role admin) with a fresh token, writes the token to
     * {@code dataDir/admin-token} (0600) and returns it. Otherwise returns empty.
     */
    public static Optional<String> ensureAdmin(Store store, Path dataDir, long nowMillis) {
        if (!store.access().users().isEmpty()) {
            return Optional.empty();
        }
        String token = newToken();
        writeSecret(dataDir.resolve(ADMIN_TOKEN_FILE), token + "\n");
        store.access().putUser(new User(ADMIN, User.Role.ADMIN));
        store.access().addToken(ADMIN, token, "bootstrap", nowMillis);
        return Optional.of(token);
    }

    /**
     * When the store has enabled administrators but none holds a token that has not expired at {@code nowMillis}:
     * gives the first of them (by name) a fresh token with the default lifetime, audited as {@link
     * Service#STARTUP_ACTOR}, writes it to {@code dataDir/admin-token} (0600) and returns that administrator's name.
     * Otherwise (a live administrator token exists, or no enabled administrator at all) returns empty.
     */
    public static Optional<String> renewAdminToken(Store store, Path dataDir, long nowMillis) {
        List<User> admins = store.access().users().stream().filter(User::enabledAdmin).toList();
        boolean live = admins.stream().anyMatch(a -> store.access().tokens(a.name()).stream()
                .anyMatch(t -> !t.expiredAt(nowMillis)));
        if (admins.isEmpty() || live) {
            return Optional.empty();
        }
        String name = admins.get(0).name();
        String token = newToken();
        writeSecret(dataDir.resolve(ADMIN_TOKEN_FILE), token + "\n");
        store.access().addToken(name, token, "renewed at start", Service.STARTUP_ACTOR, nowMillis);
        return Optional.of(name);
    }

    /**
     * On a store without allocations: creates the demo tree and users, writes the demo administrator's fresh token to
     * {@code dataDir/demo-token} (0600) and returns it. Otherwise returns empty.
     *
     * <pre>
     * lab                 share 1, managed by demo
     * lab/nlp             share 60, managed by maria
     * lab/nlp/pretrain    share 3, members demo, maria, ana
     * lab/nlp/eval        share 1, members demo, maria, ana, ben
     * lab/vision          share 40
     * lab/vision/video    share 1, members demo, ben
     * </pre>
     */
    public static Optional<String> ensureDemo(Store store, Path dataDir, long nowMillis) {
        if (!store.allocations().allocations().isEmpty()) {
            return Optional.empty();
        }
        store.access().putUser(new User(DEMO_USER, User.Role.ADMIN));
        for (String name : List.of("maria", "ana", "ben")) {
            store.access().putUser(new User(name, User.Role.USER));
        }
        String actor = DEMO_USER;
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(DEMO_USER), List.of()), actor, nowMillis);
        store.allocations().putAllocation(new Allocation("lab/nlp", 60, List.of("maria"), List.of()), actor, nowMillis);
        store.allocations().putAllocation(new Allocation("lab/nlp/pretrain", 3, List.of(),
                List.of(DEMO_USER, "maria", "ana")), actor, nowMillis);
        store.allocations().putAllocation(new Allocation("lab/nlp/eval", 1, List.of(),
                List.of(DEMO_USER, "maria", "ana", "ben")), actor, nowMillis);
        store.allocations().putAllocation(new Allocation("lab/vision", 40, List.of(), List.of()), actor, nowMillis);
        store.allocations().putAllocation(new Allocation("lab/vision/video", 1, List.of(), List.of(DEMO_USER, "ben")),
                actor, nowMillis);
        String token = newToken();
        writeSecret(dataDir.resolve(DEMO_TOKEN_FILE), token + "\n");
        store.access().addToken(DEMO_USER, token, "demo", nowMillis);
        return Optional.of(token);
    }

    /**
     * The demo token kept in {@code dataDir/demo-token} by an earlier start, when the store still knows it (a restart
     * of the demo: the client configuration may since name another server, or no token); empty otherwise.
     */
    public static Optional<String> keptDemoToken(Store store, Path dataDir) {
        Path file = dataDir.resolve(DEMO_TOKEN_FILE);
        if (!java.nio.file.Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            String token = java.nio.file.Files.readString(file).strip();
            return token.isEmpty() || store.access().tokenHolder(token).isEmpty() ? Optional.empty()
                    : Optional.of(token);
        } catch (java.io.IOException | RuntimeException e) {
            return Optional.empty(); // unreadable: the demo runs without it, as before the file existed
        }
    }

    /** Writes a file readable by its owner only (0600 where the file system has POSIX permissions), atomically. */
    public static void writeSecret(Path file, String text) {
        OwnerOnlyFiles.write(file, text);
    }
}
