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
 */
final class Authentication {
    static final String TOKEN_ATTRIBUTE = "allot.token";
    static final int MAX_CACHED = 10_000;

    private final Store store;
    private final Clock clock;
    private final Cached<ConcurrentHashMap<String, Access.TokenHolder>> tokens;

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
        String header = ctx.header("Authorization");
        if (header == null || header.isBlank()) {
            throw ApiException.unauthorized("authentication required: no Authorization header");
        }
        String prefix = "Bearer ";
        if (header.length() <= prefix.length() || !header.regionMatches(true, 0, prefix, 0, prefix.length())) {
            throw ApiException.unauthorized("authentication required: the Authorization header must be 'Bearer <token>'");
        }
        String token = header.substring(prefix.length()).trim();
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
            throw ApiException.unauthorized(refusal.get());
        }
        ctx.attribute(TOKEN_ATTRIBUTE, found.token());
        return found;
    }

    /** Forgets every cached lookup: called after every change of users or tokens. */
    void invalidate() {
        tokens.invalidate();
    }
}
