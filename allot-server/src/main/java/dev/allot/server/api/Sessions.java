package dev.allot.server.api;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dashboard's sign-in sessions: a browser signs in once with an API token ({@code POST /v1/session}) and is then
 * known by an opaque session cookie, so the token never sits in a URL, in the page's JavaScript or in browser storage.
 *
 * <p>Why server-side sessions rather than a signed cookie value: the session holds the API token it was opened with,
 * and every request made with it is authenticated again through that token ({@link Authentication}), so revoking the
 * token, disabling the user or the token expiring ends the session at once, and signing out really forgets it (a
 * signed value would stay valid until it expires). The price is that sessions live in memory: a restart of the
 * service signs everyone out, which for a dashboard is harmless.
 *
 * <p>A session is a random 256-bit id (the cookie {@value #COOKIE}: {@code HttpOnly}, {@code SameSite=Strict},
 * {@code Path=/}, {@code Secure} when the API is served over HTTPS) and a second random value, its CSRF token, which
 * the page learns from {@code POST} or {@code GET /v1/session} and sends back in the {@value #CSRF_HEADER} header of
 * every state-changing request; {@link Authentication} refuses a cookie-authenticated {@code POST}, {@code PUT},
 * {@code PATCH} or {@code DELETE} without it (403). {@code SameSite=Strict} already keeps other sites' requests from
 * carrying the cookie; the header is the second, independent defence. A session lasts at most {@link #LIFETIME_MILLIS}
 * (and never beyond its token's expiry); at most {@link #MAX_SESSIONS} are held, the expired ones dropped first and
 * then the oldest.
 */
final class Sessions {
    static final String COOKIE = "allot_session";
    static final String CSRF_HEADER = "X-CSRF-Token";
    /** Eight hours: a working day. */
    static final long LIFETIME_MILLIS = 8 * 3600_000L;
    static final int MAX_SESSIONS = 10_000;

    /** One signed-in browser: the token it signed in with, its CSRF token, and when it ends. */
    record Session(String id, String apiToken, String csrfToken, long createdAtMillis, long expiresAtMillis) {
        boolean csrfMatches(String header) {
            return header != null && MessageDigest.isEqual(header.getBytes(StandardCharsets.UTF_8),
                    csrfToken.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final SecureRandom random = new SecureRandom();
    private final Map<String, Session> byId = new ConcurrentHashMap<>();

    /** Opens a session for a token already checked, ending at {@code min(now + lifetime, tokenExpiresAt)}. */
    Session open(String apiToken, long nowMillis, long tokenExpiresAtMillis) {
        if (byId.size() >= MAX_SESSIONS) {
            evict(nowMillis);
        }
        Session s = new Session(randomValue(), apiToken, randomValue(), nowMillis,
                Math.min(nowMillis + LIFETIME_MILLIS, tokenExpiresAtMillis));
        byId.put(s.id(), s);
        return s;
    }

    /** The live session with this id, if any (an expired one is forgotten). */
    Optional<Session> find(String id, long nowMillis) {
        if (id == null || id.isEmpty()) {
            return Optional.empty();
        }
        Session s = byId.get(id);
        if (s == null) {
            return Optional.empty();
        }
        if (nowMillis >= s.expiresAtMillis()) {
            byId.remove(id, s);
            return Optional.empty();
        }
        return Optional.of(s);
    }

    void close(String id) {
        if (id != null) {
            byId.remove(id);
        }
    }

    int size() {
        return byId.size();
    }

    private void evict(long nowMillis) {
        byId.values().removeIf(s -> nowMillis >= s.expiresAtMillis());
        Iterator<Session> oldest = byId.values().stream()
                .sorted(java.util.Comparator.comparingLong(Session::createdAtMillis))
                .limit(Math.max(0, byId.size() - MAX_SESSIONS + 1)).toList().iterator();
        while (oldest.hasNext()) {
            byId.remove(oldest.next().id());
        }
    }

    private String randomValue() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
