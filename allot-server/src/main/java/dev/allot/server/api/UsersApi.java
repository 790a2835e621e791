package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.allot.core.model.Durations;
import dev.allot.server.store.Access;
import dev.allot.server.store.Store;
import dev.allot.server.store.TokenPolicy;
import dev.allot.server.store.User;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The users, tokens and token-policy endpoints of the API ({@link ApiServer} routes them here):
 * <ul>
 *   <li>{@code GET /v1/users}, {@code PUT /v1/users/{name}}: administrators create users, change their role and
 *   disable or enable them ({@code "disabled": true} stops every token of the user at once). No change may leave the
 *   service without an enabled administrator: the last one may not demote or disable itself (409).</li>
 *   <li>{@code GET|POST /v1/users/{name}/tokens}, {@code DELETE /v1/users/{name}/tokens/{id}}: a user manages its
 *   own tokens, administrators everyone's. A token lives the policy's default lifetime or the one it asks for, up to
 *   the maximum, and never longer than the token the request was made with (which minted it); revoking a token
 *   revokes every token minted from it, transitively.</li>
 *   <li>{@code GET|PUT /v1/token-policy}: the default and maximum lifetime of tokens; anyone signed in reads it,
 *   administrators set it (audited). It applies to tokens made afterwards.</li>
 * </ul>
 * Every change is audited by the store, and followed by {@link Authentication#invalidate()}.
 */
final class UsersApi {
    /** How the server reads a request body and writes an answer (its strict JSON). */
    interface Io {
        JsonNode body(Context ctx);

        void json(Context ctx, int status, Object body);
    }

    private final Store store;
    private final Clock clock;
    private final Authentication authentication;
    private final Io io;
    private final IdentityGate identity;

    UsersApi(Store store, Clock clock, Authentication authentication, Io io, IdentityGate identity) {
        this.identity = Objects.requireNonNull(identity, "identity");
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.authentication = Objects.requireNonNull(authentication, "authentication");
        this.io = Objects.requireNonNull(io, "io");
    }

    void me(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/me");
        io.json(ctx, 200, Views.user(user));
    }

    void users(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/users");
        List<User> all = user.role() == User.Role.ADMIN ? store.access().users() : List.of(user);
        io.json(ctx, 200, new Views.UserList(all.stream().map(Views::user).toList()));
    }

    void putUser(Context ctx, User user) {
        ApiServer.requireAdmin(user, "create users, change their roles or disable them");
        String name = Edits.userName(ctx.pathParam("name"));
        Edits.UserEdit edit = Edits.UserEdit.parse(io.body(ctx));
        Optional<User> before = store.access().user(name);
        if (before.isEmpty()) {
            Edits.newUserName(name);
        }
        if (before.isEmpty() && edit.role() == null) {
            if (edit.disabled() != null) { // disable or enable: of a user that must exist, not a new one
                throw ApiException.notFound("no user '" + name + "' to " + (edit.disabled() ? "disable" : "enable"),
                        "GET /v1/users lists them; a new user needs a role");
            }
            throw ApiException.badField("role", "missing: a new user needs a role", "\"admin\" or \"user\"");
        }
        User after = new User(name, edit.role() != null ? edit.role() : before.get().role(),
                edit.disabled() != null ? edit.disabled() : before.map(User::disabled).orElse(false));
        identity.requireMayPut(store.access().users(), after);
        store.access().putUser(after, user.name(), clock.millis());
        authentication.invalidate(); // a disabled or demoted user's cached tokens must not serve another request
        io.json(ctx, before.isPresent() ? 200 : 201, Views.user(after));
    }

    /** The user named in the path, who must exist, and whom the caller may manage tokens for (itself, or any: admin). */
    private String tokenOwner(Context ctx, User user) {
        String name = Edits.userName(ctx.pathParam("name"));
        if (user.role() != User.Role.ADMIN && !user.name().equals(name)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not manage the tokens of '" + name + "'",
                    "users manage their own tokens; administrators everyone's");
        }
        if (store.access().user(name).isEmpty()) {
            throw ApiException.notFound("no user '" + name + "'", "GET /v1/users lists them");
        }
        return name;
    }

    void tokens(Context ctx, User user) {
        String name = tokenOwner(ctx, user);
        QueryParams.none(ctx, "GET /v1/users/NAME/tokens");
        long now = clock.millis();
        io.json(ctx, 200, new Views.TokenList(store.access().tokens(name).stream()
                .map(t -> Views.token(t, now)).toList()));
    }

    void createToken(Context ctx, User user) {
        String name = tokenOwner(ctx, user);
        Edits.TokenRequest req = Edits.TokenRequest.parse(JsonIo.text(ctx).isBlank() ? JsonNodeFactory.instance.objectNode()
                : io.body(ctx));
        TokenPolicy policy = store.settings().tokenPolicy();
        if (req.lifetimeSeconds() != null && req.lifetimeSeconds() > policy.maxLifetimeSeconds()) {
            throw ApiException.badField("lifetime", "expected at most the token policy's maximum, "
                    + Durations.formatSeconds(policy.maxLifetimeSeconds()) + ", got "
                    + Durations.formatSeconds(req.lifetimeSeconds()), "GET /v1/token-policy tells the maximum");
        }
        Access.TokenInfo minter = ctx.attribute(Authentication.TOKEN_ATTRIBUTE);
        String token = Access.newToken();
        long now = clock.millis();
        Access.Minted made;
        try {
            made = store.access().addToken(name, token, req.label(), user.name(), now, req.lifetimeSeconds(),
                    minter == null ? null : minter.id());
        } catch (IllegalArgumentException e) { // the policy changed since it was read above
            throw ApiException.badField("lifetime", e.getMessage(), "GET /v1/token-policy tells the maximum");
        }
        io.json(ctx, 201, new Views.NewToken(made.token().id(), name, req.label(), Views.instant(now),
                Views.instant(made.token().expiresAtMillis()),
                made.cappedFromMillis() == null ? null : Views.instant(made.cappedFromMillis()), token));
    }

    void revokeToken(Context ctx, User user) {
        String name = tokenOwner(ctx, user);
        String id = ctx.pathParam("id");
        if (!id.matches("[0-9a-f]{64}")) {
            throw ApiException.badField("id", "expected a token id (64 hex digits), got '" + id + "'",
                    "GET /v1/users/" + name + "/tokens lists them");
        }
        store.access().revokeToken(name, id, user.name(), clock.millis());
        authentication.invalidate();
        ctx.status(204);
    }

    void tokenPolicy(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/token-policy");
        io.json(ctx, 200, Views.tokenPolicy(store.settings().tokenPolicy()));
    }

    void putTokenPolicy(Context ctx, User user) {
        ApiServer.requireAdmin(user, "change the token policy");
        Edits.TokenPolicyEdit edit = Edits.TokenPolicyEdit.parse(io.body(ctx));
        TokenPolicy policy = new TokenPolicy(edit.defaultLifetimeSeconds(), edit.maxLifetimeSeconds());
        store.settings().putTokenPolicy(policy, user.name(), clock.millis());
        io.json(ctx, 200, Views.tokenPolicy(policy));
    }
}
