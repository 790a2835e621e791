package dev.allot.server.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The access part of the {@link Store} ({@link Store#access()}): the users and their roles, and the API tokens
 * that identify them. Together because a token is only ever a way to find its user, and together with
 * {@link #sha256Hex}, the one place that decides what the store keeps of a token (its hash, never the token).
 */
public final class Access {
    private final Transactions transactions;

    Access(Transactions transactions) {
        this.transactions = transactions;
    }

    /** Creates a user or changes its role. */
    public void putUser(User user) {
        Objects.requireNonNull(user, "user");
        transactions.tx("put user " + user.name(), h -> h.createUpdate("INSERT INTO users (name, role)"
                        + " VALUES (:name, :role) ON CONFLICT (name) DO UPDATE SET role = excluded.role")
                .bind("name", user.name()).bind("role", user.role().label())
                .execute());
    }

    /**
     * Creates a user or changes its role, and records it in the audit trail (action {@code user.put}, subject
     * {@code user:<name>}), together.
     */
    public void putUser(User user, String actor, long nowMillis) {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(actor, "actor");
        transactions.tx("put user " + user.name(), h -> {
            Optional<User> before = findUser(h, user.name());
            h.createUpdate("INSERT INTO users (name, role) VALUES (:name, :role)"
                            + " ON CONFLICT (name) DO UPDATE SET role = excluded.role")
                    .bind("name", user.name()).bind("role", user.role().label())
                    .execute();
            Allocations.audit(h, nowMillis, actor, "user.put", "user:" + user.name(),
                    before.map(Access::userJson).orElse(null), userJson(user));
            return null;
        });
    }

    /** A token as listed: its id (the hex SHA-256 the store keeps), label and creation time; never the token. */
    public record TokenInfo(String id, String user, String label, long createdAtMillis) {
    }

    /** The tokens of a user, oldest first. */
    public List<TokenInfo> tokens(String userName) {
        Objects.requireNonNull(userName, "userName");
        return transactions.tx("list the tokens of " + userName, h -> h.createQuery("SELECT hash, user_name, label,"
                        + " created_at_ms FROM tokens WHERE user_name = :user ORDER BY created_at_ms, hash")
                .bind("user", userName)
                .map((rs, ctx) -> new TokenInfo(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4)))
                .list());
    }

    /**
     * Gives a user a token and records it in the audit trail (action {@code token.create}; the label and the id, not
     * the token), together.
     *
     * @return the token's id
     * @throws NotFoundException when there is no such user
     */
    public String addToken(String userName, String tokenPlaintext, String label, String actor, long nowMillis) {
        Objects.requireNonNull(actor, "actor");
        return transactions.tx("add a token for user " + userName, h -> {
            String id = insertToken(h, userName, tokenPlaintext, label, nowMillis);
            Allocations.audit(h, nowMillis, actor, "token.create", "user:" + userName, null,
                    "{\"id\":\"" + id + "\",\"label\":" + Rows.toJson(label) + "}");
            return id;
        });
    }

    /**
     * Revokes a token of a user (by its id) and records it in the audit trail (action {@code token.revoke}),
     * together: it no longer signs anyone in.
     *
     * @throws NotFoundException when the user has no token with this id
     */
    public void revokeToken(String userName, String id, String actor, long nowMillis) {
        Objects.requireNonNull(userName, "userName");
        Objects.requireNonNull(id, "id");
        transactions.tx("revoke a token of " + userName, h -> {
            int n = h.createUpdate("DELETE FROM tokens WHERE user_name = :user AND hash = :hash")
                    .bind("user", userName).bind("hash", id).execute();
            if (n == 0) {
                throw new NotFoundException("user '" + userName + "' has no token '" + id + "'");
            }
            Allocations.audit(h, nowMillis, actor, "token.revoke", "user:" + userName, "{\"id\":\"" + id + "\"}", null);
            return null;
        });
    }

    private static String userJson(User u) {
        return "{\"name\":" + Rows.toJson(u.name()) + ",\"role\":\"" + u.role().label() + "\"}";
    }

    /** Every user, sorted by name. */
    public List<User> users() {
        return transactions.tx("list users", h -> h.createQuery("SELECT name, role FROM users ORDER BY name")
                .map((rs, ctx) -> new User(rs.getString(1), User.Role.parse(rs.getString(2))))
                .list());
    }

    /**
     * Gives a user an API token. Only the token's SHA-256 (hex) is stored, never the token itself; it is
     * returned, as the token's id for listing or revoking it.
     *
     * @throws NotFoundException when there is no such user
     * @throws ConflictException when the token is already registered
     */
    public String addToken(String userName, String tokenPlaintext, String label, long nowMillis) {
        return transactions.tx("add a token for user " + userName,
                h -> insertToken(h, userName, tokenPlaintext, label, nowMillis));
    }

    private static String insertToken(Handle h, String userName, String tokenPlaintext, String label, long nowMillis) {
        Objects.requireNonNull(userName, "userName");
        Objects.requireNonNull(label, "label");
        if (tokenPlaintext == null || tokenPlaintext.isBlank()) {
            throw new IllegalArgumentException("a token must not be blank");
        }
        String hash = sha256Hex(tokenPlaintext);
        if (findUser(h, userName).isEmpty()) {
            throw new NotFoundException("no user '" + userName + "'");
        }
        boolean taken = h.createQuery("SELECT 1 FROM tokens WHERE hash = :hash").bind("hash", hash)
                .mapTo(Integer.class).findOne().isPresent();
        if (taken) {
            throw new ConflictException("this token is already registered; generate another");
        }
        h.createUpdate("INSERT INTO tokens (hash, user_name, label, created_at_ms) VALUES (:hash, :user, :label, :now)")
                .bind("hash", hash).bind("user", userName).bind("label", label).bind("now", nowMillis)
                .execute();
        return hash;
    }

    /** The user a token belongs to, if it is registered. */
    public Optional<User> userForToken(String tokenPlaintext) {
        if (tokenPlaintext == null || tokenPlaintext.isEmpty()) {
            return Optional.empty();
        }
        String hash = sha256Hex(tokenPlaintext);
        return transactions.tx("look up a token", h -> h.createQuery("SELECT u.name, u.role FROM tokens t"
                        + " JOIN users u ON u.name = t.user_name WHERE t.hash = :hash")
                .bind("hash", hash)
                .map((rs, ctx) -> new User(rs.getString(1), User.Role.parse(rs.getString(2))))
                .findOne());
    }

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    /** A fresh token: {@code allot_} and 32 random bytes, URL-safe base64 (no padding). */
    public static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "allot_" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The hex SHA-256 of a token's UTF-8 bytes: what the store keeps of it. */
    public static String sha256Hex(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java has no SHA-256", e);
        }
    }

    private static Optional<User> findUser(Handle h, String name) {
        return h.createQuery("SELECT name, role FROM users WHERE name = :name")
                .bind("name", name)
                .map((rs, ctx) -> new User(rs.getString(1), User.Role.parse(rs.getString(2))))
                .findOne();
    }
}
