package dev.allot.server.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The access part of the {@link Store} ({@link Store#access()}): the users, their roles and whether they are
 * disabled, and the API tokens that identify them. Together because a token is only ever a way to find its user, and
 * together with {@link #sha256Hex}, the one place that decides what the store keeps of a token (its hash, never the
 * token).
 *
 * <p>The rules of access kept here, inside the transactions that change it, so no two concurrent requests can break
 * them: every token expires ({@link TokenPolicy}); a token minted with a token ({@code mintedBy}) never outlives it
 * and is revoked with it, transitively; and no change may leave the store without an enabled administrator once it
 * had one ({@link ConflictException}).
 */
public final class Access {
    private static final String TOKEN_COLUMNS = "t.hash, t.user_name, t.label, t.created_at_ms, t.expires_at_ms,"
            + " t.minted_by";

    private final Transactions transactions;

    Access(Transactions transactions) {
        this.transactions = transactions;
    }

    /**
     * Creates a user or changes its role and whether it is disabled.
     *
     * @throws ConflictException when this would leave no enabled administrator
     */
    public void putUser(User user) {
        Objects.requireNonNull(user, "user");
        transactions.tx("put user " + user.name(), h -> {
            upsert(h, user);
            return null;
        });
    }

    /**
     * Creates a user or changes its role and whether it is disabled, and records it in the audit trail (action
     * {@code user.put}, subject {@code user:<name>}), together.
     *
     * @throws ConflictException when this would leave no enabled administrator (the last one may not demote or
     *                           disable itself)
     */
    public void putUser(User user, String actor, long nowMillis) {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(actor, "actor");
        transactions.tx("put user " + user.name(), h -> {
            Optional<User> before = upsert(h, user);
            Allocations.audit(h, nowMillis, actor, "user.put", "user:" + user.name(),
                    before.map(Access::userJson).orElse(null), userJson(user));
            return null;
        });
    }

    /** Writes the user and checks that an enabled administrator is left if there was one; returns the user before. */
    private static Optional<User> upsert(Handle h, User user) {
        Optional<User> before = findUser(h, user.name());
        int adminsBefore = enabledAdmins(h);
        h.createUpdate("INSERT INTO users (name, role, disabled) VALUES (:name, :role, :disabled)"
                        + " ON CONFLICT (name) DO UPDATE SET role = excluded.role, disabled = excluded.disabled")
                .bind("name", user.name()).bind("role", user.role().label()).bind("disabled", user.disabled())
                .execute();
        if (adminsBefore > 0 && enabledAdmins(h) == 0) {
            throw new ConflictException("'" + user.name() + "' is the last enabled administrator: it may not be "
                    + (user.role() != User.Role.ADMIN ? "demoted" : "disabled")
                    + "; make another user an administrator first");
        }
        return before;
    }

    private static int enabledAdmins(Handle h) {
        return h.createQuery("SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled = :no")
                .bind("no", false).mapTo(Integer.class).one();
    }

    /**
     * A token as listed: its id (the hex SHA-256 the store keeps), owner, label, creation and expiry times, and the
     * id of the token that minted it (null when it was made outside the API); never the token.
     */
    public record TokenInfo(String id, String user, String label, long createdAtMillis, long expiresAtMillis,
                            String mintedBy) {
        /** True once the token no longer signs anyone in for age. */
        public boolean expiredAt(long nowMillis) {
            return nowMillis >= expiresAtMillis;
        }
    }

    /**
     * A token just made, as listed, and the expiry its lifetime would have given when the token that minted it
     * expires sooner and so capped it ({@code cappedFromMillis}; null when not capped), for the answer to say so.
     */
    public record Minted(TokenInfo token, Long cappedFromMillis) {
    }

    /** A registered token and its user, as signing in finds them; whether it may sign in is {@link #refusal}. */
    public record TokenHolder(User user, TokenInfo token) {
        /** Why this token may not sign in now, or empty when it may. */
        public Optional<String> refusal(long nowMillis) {
            if (user.disabled()) {
                return Optional.of("user '" + user.name() + "' is disabled: its tokens are refused until an"
                        + " administrator enables it again");
            }
            if (token.expiredAt(nowMillis)) {
                // how to get a new one is the API's hint (ApiException.EXPIRED_TOKEN_HINT)
                return Optional.of("token expired at " + dev.allot.server.Instants.ofMillis(token.expiresAtMillis()));
            }
            return Optional.empty();
        }
    }

    /** The tokens of a user, oldest first, expired ones included. */
    public List<TokenInfo> tokens(String userName) {
        Objects.requireNonNull(userName, "userName");
        return transactions.read("list the tokens of " + userName, h -> h.createQuery("SELECT " + TOKEN_COLUMNS
                        + " FROM tokens t WHERE t.user_name = :user ORDER BY t.created_at_ms, t.hash")
                .bind("user", userName)
                .map((rs, ctx) -> tokenInfo(rs))
                .list());
    }

    /**
     * Gives a user a token and records it in the audit trail (action {@code token.create}; the label, the id and
     * the expiry, not the token), together. It lives {@code lifetimeSeconds} (null: the policy's default, see
     * {@link TokenPolicy#lifetimeSeconds}), but never past the token that minted it, if any.
     *
     * @param mintedBy the id of the token the request was made with, or null when made outside the API
     * @return the token as listed, and whether the minting token's expiry capped it
     * @throws NotFoundException        when there is no such user
     * @throws IllegalArgumentException when the lifetime asked for passes the policy's maximum
     * @throws ConflictException        when {@code mintedBy} no longer exists (revoked meanwhile)
     */
    public Minted addToken(String userName, String tokenPlaintext, String label, String actor, long nowMillis,
                           Long lifetimeSeconds, String mintedBy) {
        Objects.requireNonNull(actor, "actor");
        return transactions.tx("add a token for user " + userName, h -> {
            Minted m = insertToken(h, userName, tokenPlaintext, label, nowMillis, lifetimeSeconds, mintedBy);
            TokenInfo t = m.token();
            Allocations.audit(h, nowMillis, actor, "token.create", "user:" + userName, null,
                    "{\"id\":\"" + t.id() + "\",\"label\":" + Rows.toJson(label) + ",\"expiresAt\":\""
                            + dev.allot.server.Instants.ofMillis(t.expiresAtMillis()) + "\""
                            + (mintedBy == null ? "" : ",\"mintedBy\":\"" + mintedBy + "\"") + "}");
            return m;
        });
    }

    /** {@link #addToken(String, String, String, String, long, Long, String)} with the default lifetime, unminted. */
    public String addToken(String userName, String tokenPlaintext, String label, String actor, long nowMillis) {
        return addToken(userName, tokenPlaintext, label, actor, nowMillis, null, null).token().id();
    }

    /**
     * Revokes a token of a user (by its id) and every token minted from it, transitively, and records it in the
     * audit trail (action {@code token.revoke}, naming every id revoked), together: none of them signs anyone in any
     * more.
     *
     * @return the ids revoked, the one asked for first
     * @throws NotFoundException when the user has no token with this id
     */
    public List<String> revokeToken(String userName, String id, String actor, long nowMillis) {
        Objects.requireNonNull(userName, "userName");
        Objects.requireNonNull(id, "id");
        return transactions.tx("revoke a token of " + userName, h -> {
            boolean exists = h.createQuery("SELECT 1 FROM tokens WHERE user_name = :user AND hash = :hash")
                    .bind("user", userName).bind("hash", id).mapTo(Integer.class).findOne().isPresent();
            if (!exists) {
                throw new NotFoundException("user '" + userName + "' has no token '" + id + "'");
            }
            List<String> ids = new ArrayList<>();
            ids.add(id);
            ids.addAll(h.createQuery("WITH RECURSIVE minted (hash) AS (SELECT hash FROM tokens WHERE minted_by = :id"
                            + " UNION SELECT t.hash FROM tokens t JOIN minted m ON t.minted_by = m.hash)"
                            + " SELECT hash FROM minted ORDER BY hash")
                    .bind("id", id).mapTo(String.class).list());
            h.createUpdate("DELETE FROM tokens WHERE hash IN (<ids>)").bindList("ids", ids).execute();
            StringBuilder revoked = new StringBuilder("{\"id\":\"" + id + "\"");
            if (ids.size() > 1) {
                revoked.append(",\"minted\":").append(Rows.toJson(ids.subList(1, ids.size())));
            }
            Allocations.audit(h, nowMillis, actor, "token.revoke", "user:" + userName, revoked + "}", null);
            return ids;
        });
    }

    private static String userJson(User u) {
        return "{\"name\":" + Rows.toJson(u.name()) + ",\"role\":\"" + u.role().label() + "\",\"disabled\":"
                + u.disabled() + "}";
    }

    /** Every user, sorted by name. */
    public List<User> users() {
        return transactions.read("list users", h -> h.createQuery("SELECT name, role, disabled FROM users ORDER BY name")
                .map((rs, ctx) -> new User(rs.getString(1), User.Role.parse(rs.getString(2)), rs.getBoolean(3)))
                .list());
    }

    /** The user of this name, if there is one. */
    public Optional<User> user(String name) {
        Objects.requireNonNull(name, "name");
        return transactions.read("find user " + name, h -> findUser(h, name));
    }

    /**
     * Gives a user an API token with the token policy's default lifetime from {@code nowMillis}, outside the API and
     * the audit trail (the bootstrap administrator's, the demo's, tests'). Only the token's SHA-256 (hex) is stored,
     * never the token itself; it is returned, as the token's id for listing or revoking it.
     *
     * @throws NotFoundException when there is no such user
     * @throws ConflictException when the token is already registered
     */
    public String addToken(String userName, String tokenPlaintext, String label, long nowMillis) {
        return transactions.tx("add a token for user " + userName,
                h -> insertToken(h, userName, tokenPlaintext, label, nowMillis, null, null).token().id());
    }

    private static Minted insertToken(Handle h, String userName, String tokenPlaintext, String label,
                                         long nowMillis, Long lifetimeSeconds, String mintedBy) {
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
        long lifetime = ClusterSettings.tokenPolicy(h).lifetimeSeconds(lifetimeSeconds);
        long expires = nowMillis + lifetime * 1000;
        Long cappedFrom = null;
        if (mintedBy != null) {
            Long minterExpires = h.createQuery("SELECT expires_at_ms FROM tokens WHERE hash = :hash")
                    .bind("hash", mintedBy).mapTo(Long.class).findOne()
                    .orElseThrow(() -> new ConflictException("the token this request was made with was revoked"));
            if (minterExpires < expires) { // never outlives the token that minted it
                cappedFrom = expires;
                expires = minterExpires;
            }
        }
        h.createUpdate("INSERT INTO tokens (hash, user_name, label, created_at_ms, expires_at_ms, minted_by)"
                        + " VALUES (:hash, :user, :label, :now, :expires, :mintedBy)")
                .bind("hash", hash).bind("user", userName).bind("label", label).bind("now", nowMillis)
                .bind("expires", expires).bind("mintedBy", mintedBy)
                .execute();
        return new Minted(new TokenInfo(hash, userName, label, nowMillis, expires, mintedBy), cappedFrom);
    }

    /**
     * The user a token belongs to, if it is registered, whatever its expiry and whether the user is disabled:
     * signing in asks {@link #tokenHolder} and its {@link TokenHolder#refusal}.
     */
    public Optional<User> userForToken(String tokenPlaintext) {
        return tokenHolder(tokenPlaintext).map(TokenHolder::user);
    }

    /** The token registered for this plaintext and its user, if any. */
    public Optional<TokenHolder> tokenHolder(String tokenPlaintext) {
        if (tokenPlaintext == null || tokenPlaintext.isEmpty()) {
            return Optional.empty();
        }
        String hash = sha256Hex(tokenPlaintext);
        return transactions.read("look up a token", h -> h.createQuery("SELECT u.name, u.role, u.disabled, "
                        + TOKEN_COLUMNS + " FROM tokens t JOIN users u ON u.name = t.user_name WHERE t.hash = :hash")
                .bind("hash", hash)
                .map((rs, ctx) -> new TokenHolder(new User(rs.getString(1), User.Role.parse(rs.getString(2)),
                        rs.getBoolean(3)), new TokenInfo(rs.getString(4), rs.getString(5), rs.getString(6),
                        rs.getLong(7), rs.getLong(8), rs.getString(9))))
                .findOne());
    }

    private static TokenInfo tokenInfo(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new TokenInfo(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
                rs.getString(6));
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
        return h.createQuery("SELECT name, role, disabled FROM users WHERE name = :name")
                .bind("name", name)
                .map((rs, ctx) -> new User(rs.getString(1), User.Role.parse(rs.getString(2)), rs.getBoolean(3)))
                .findOne();
    }
}
