package dev.allot.server.api;

import dev.allot.server.store.Access;
import dev.allot.server.store.Store;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Signing in: the bearer token of a request, looked up in the store, and whether it may sign in now. Lookups are
 * cached for the hot path ({@link Cached}, {@link ApiServer#CACHE_TTL_NANOS}), but what the cache holds can never let
 * a refused token through:
 * <ul>
 *   <li>expiry is checked against the clock on every request, cached or not;</li>
 *   <li>every change of users or tokens the API makes (disabling or demoting a user, revoking tokens) calls
 *   {@link #invalidate()} after the store committed it, so the next request reads the store again; a lookup that
 *   raced with the change was put in the map that was dropped;</li>
 *   <li>unknown tokens are not cached (a guessing client cannot fill the map), so a revoked token is never "found"
 *   from the cache once invalidated.</li>
 * </ul>
 * The request's token (its id, for minting) is kept on the request as {@link #TOKEN_ATTRIBUTE}.
 *
 * <p>A request without an {@code Authorization} header may instead carry the dashboard's session cookie
 * ({@link Sessions}): it is authenticated through the token the session was opened with, exactly as that token would
 * be (so a revoked token or a disabled user ends the session), and when its method changes state ({@code POST},
 * {@code PUT}, {@code PATCH}, {@code DELETE}) it must also carry the session's CSRF token in
 * {@value Sessions#CSRF_HEADER}, else 403. A bearer token wins over a cookie: a browser never adds the
 * {@code Authorization} header by itself, so bearer requests need no CSRF token and work exactly as before.
 */
final class Authentication {
    static final String TOKEN_ATTRIBUTE = "allot.token";
    static final int MAX_CACHED = 10_000;

    private final Store store;
    private final Clock clock;
    private final Cached<ConcurrentHashMap<String, Access.TokenHolder>> tokens;
    private final Sessions sessions = new Sessions();

    Authentication(Store store, Clock clock, long cacheTtlNanos) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.tokens = new Cached<>(ConcurrentHashMap::new, cacheTtlNanos);
    }

    /**
     * The token holder of this request, who may sign in now.
     *
     * @throws ApiException 401 without a header, with an unknown or revoked token, an expired one (saying when), or
     *                      one of a disabled user
     */
    Access.TokenHolder authenticate(Context ctx) {
        int given = java.util.Collections.list(ctx.req().getHeaders("Authorization")).size();
        if (given > 1) {
            // A singleton field (RFC 9110): which one a proxy checked and which one the service would use are two
            // guesses; the first one was used.
            throw ApiException.badRequest("the Authorization header is given " + given + " times",
                    "send it once: 'Authorization: Bearer <token>'");
        }
        String header = ctx.header("Authorization");
        if (header == null || header.isBlank()) {
            String cookie = ctx.cookie(Sessions.COOKIE);
            if (cookie != null && !cookie.isEmpty()) {
                return bySession(ctx, cookie);
            }
            throw ApiException.unauthorized("authentication required: no Authorization header");
        }
        String prefix = "Bearer ";
        if (header.length() <= prefix.length() || !header.regionMatches(true, 0, prefix, 0, prefix.length())) {
            throw ApiException.unauthorized("authentication required: the Authorization header must be 'Bearer <token>'");
        }
        Access.TokenHolder found = holder(header.substring(prefix.length()).trim());
        ctx.attribute(TOKEN_ATTRIBUTE, found.token());
        return found;
    }

    /** The dashboard's sessions (sign in, sign out). */
    Sessions sessions() {
        return sessions;
    }

    /** The holder of a session cookie's token; a state-changing request must carry the session's CSRF token. */
    private Access.TokenHolder bySession(Context ctx, String cookie) {
        Sessions.Session s = sessions.find(cookie, clock.millis()).orElseThrow(() -> ApiException.unauthorized(
                "the dashboard session has ended (signed out, expired or the service restarted); sign in again",
                ApiException.SIGN_IN_HINT));
        Access.TokenHolder found;
        try {
            found = holder(s.apiToken());
        } catch (ApiException e) {
            sessions.close(s.id());
            throw e.status() == 401 && !e.refusesDisabledUser()
                    ? ApiException.unauthorized(e.getMessage(), ApiException.SIGN_IN_HINT) : e;
        }
        if (changesState(ctx.method().name()) && !s.csrfMatches(ctx.header(Sessions.CSRF_HEADER))) {
            throw ApiException.forbidden("a request authenticated by the session cookie that changes something must"
                    + " carry the session's CSRF token in the " + Sessions.CSRF_HEADER + " header",
                    "GET /v1/session gives it; the dashboard's pages send it on every change");
        }
        ctx.attribute(TOKEN_ATTRIBUTE, found.token());
        return found;
    }

    static boolean changesState(String method) {
        return !(method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS"));
    }

    /**
     * The holder of a token, who may sign in now.
     *
     * @throws ApiException 401 for an unknown or revoked token, an expired one (saying when), or one of a disabled user
     */
    Access.TokenHolder holder(String token) {
        ConcurrentHashMap<String, Access.TokenHolder> known = tokens.get();
        Access.TokenHolder found = known.get(token);
        if (found == null) {
            Optional<Access.TokenHolder> read = store.access().tokenHolder(token);
            if (read.isEmpty()) {
                throw ApiException.unauthorized("unknown or revoked token");
            }
            found = read.get();
            if (known.size() < MAX_CACHED) {
                known.put(token, found);
            }
        }
        Optional<String> refusal = found.refusal(clock.millis());
        if (refusal.isPresent()) {
            // a disabled user's token is good: giving it again, or another of its tokens, does not help; else it
            // expired, and the hint says how to get a new one
            throw ApiException.unauthorized(refusal.get(), found.user().disabled()
                    ? ApiException.enableHint(found.user().name()) : ApiException.EXPIRED_TOKEN_HINT);
        }
        return found;
    }

    /** Forgets every cached lookup: called after every change of users or tokens. */
    void invalidate() {
        tokens.invalidate();
    }
}
