package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.store.Access;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.Objects;

/**
 * The dashboard's sign-in endpoints ({@link Sessions} says why sessions and how they are defended):
 * <ul>
 *   <li>{@code POST /v1/session} with {@code {"token": "..."}} (as JSON: a form or a plain-text body from another
 *   site is refused, 415) checks the token as any API request would and answers who signed in and the session's
 *   CSRF token, setting the session cookie. The token travels in the body, never in a URL.</li>
 *   <li>{@code GET /v1/session}: the same answer for the session the cookie names (401 without one), so a page that
 *   was reloaded learns its CSRF token again.</li>
 *   <li>{@code DELETE /v1/session} (with the CSRF header): signs out: the session is forgotten and the cookie
 *   cleared.</li>
 * </ul>
 * Once signed in, the browser's pages call the ordinary {@code /v1} API with {@code fetch(url, {credentials:
 * 'same-origin'})}: the cookie authenticates reads, and writes add the {@value Sessions#CSRF_HEADER} header.
 */
final class SessionApi {
    private final Authentication authentication;
    private final Clock clock;
    private final UsersApi.Io io;
    private final boolean secure;

    /** The answer of sign-in and of {@code GET /v1/session}. */
    record SessionView(String user, String role, String csrfToken, String expiresAt) {
    }

    SessionApi(Authentication authentication, Clock clock, UsersApi.Io io, boolean secure) {
        this.authentication = Objects.requireNonNull(authentication, "authentication");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.io = Objects.requireNonNull(io, "io");
        this.secure = secure;
    }

    void signIn(Context ctx) {
        String type = ctx.contentType();
        if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            throw new ApiException(415, "sign in with a JSON body {\"token\": \"...\"} (Content-Type: application/json)",
                    null, "the dashboard's sign-in page does this");
        }
        JsonNode body = io.body(ctx);
        if (body == null || !body.isObject() || body.size() != 1 || !body.path("token").isTextual()
                || body.path("token").asText().isBlank()) {
            throw ApiException.badField("token", "expected {\"token\": \"<API token>\"}",
                    "the same token the API takes as 'Authorization: Bearer <token>'; allot token create makes one");
        }
        Access.TokenHolder holder;
        try {
            holder = authentication.holder(body.path("token").asText().trim());
        } catch (ApiException e) {
            throw e.status() == 401 ? ApiException.unauthorized(e.getMessage(), "check the token (allot token list"
                    + " shows yours; allot token create makes one, an administrator can make one for you)") : e;
        }
        long now = clock.millis();
        Sessions.Session s = authentication.sessions().open(body.path("token").asText().trim(), now,
                holder.token().expiresAtMillis());
        ctx.header("Set-Cookie", cookie(s.id(), (s.expiresAtMillis() - now) / 1000));
        ctx.header("Cache-Control", "no-store");
        io.json(ctx, 200, view(holder, s));
    }

    void current(Context ctx) {
        Sessions.Session s = session(ctx);
        QueryParams.none(ctx, "GET /v1/session");
        Access.TokenHolder holder = authentication.holder(s.apiToken());
        ctx.header("Cache-Control", "no-store");
        io.json(ctx, 200, view(holder, s));
    }

    void signOut(Context ctx) {
        Sessions.Session s = session(ctx);
        if (!s.csrfMatches(ctx.header(Sessions.CSRF_HEADER))) {
            throw ApiException.forbidden("signing out needs the session's CSRF token in the " + Sessions.CSRF_HEADER
                    + " header", "GET /v1/session gives it");
        }
        authentication.sessions().close(s.id());
        ctx.header("Set-Cookie", cookie("", 0));
        ctx.status(204);
    }

    private Sessions.Session session(Context ctx) {
        return authentication.sessions().find(ctx.cookie(Sessions.COOKIE), clock.millis())
                .orElseThrow(() -> ApiException.unauthorized("not signed in: no live dashboard session",
                        ApiException.SIGN_IN_HINT));
    }

    private SessionView view(Access.TokenHolder holder, Sessions.Session s) {
        return new SessionView(holder.user().name(), holder.user().role().label(), s.csrfToken(),
                Views.instant(s.expiresAtMillis()));
    }

    private String cookie(String value, long maxAgeSeconds) {
        return Sessions.COOKIE + "=" + value + "; Path=/; Max-Age=" + Math.max(0, maxAgeSeconds)
                + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }
}
