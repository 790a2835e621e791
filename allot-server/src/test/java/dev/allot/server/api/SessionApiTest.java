package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's sessions over plain HTTP: signing in sets an HttpOnly, SameSite=Strict cookie and gives a CSRF
 * token; the cookie authenticates reads; a change needs the CSRF header; bearer tokens work as before; a revoked token
 * or a signed-out session stops working; the pages are served with their defences.
 */
class SessionApiTest {
    @TempDir
    Path dataDir;
    ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture(dataDir);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    /** A session: its cookie (name=value) and CSRF token. */
    record Session(String cookie, String csrf, String setCookie) {
    }

    private Session signIn(String token) {
        HttpRequest r = HttpRequest.newBuilder(api.uri("/v1/session")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"token\": \"" + token + "\"}")).build();
        try {
            var answer = java.net.http.HttpClient.newHttpClient().send(r,
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            String setCookie = answer.headers().firstValue("Set-Cookie").orElseThrow();
            String csrf = ApiFixture.JSON.readTree(answer.body()).path("csrfToken").asText();
            return new Session(setCookie.substring(0, setCookie.indexOf(';')), csrf, setCookie);
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private ApiFixture.Response send(String method, String path, Session s, String csrf, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(api.uri(path)).header("Cookie", s.cookie())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (csrf != null) {
            b.header("X-CSRF-Token", csrf);
        }
        return api.sendRaw(b.build());
    }

    private static final String EDIT = "{\"share\": 2, \"managers\": [], \"members\": [\"member\", \"owner\"]}";

    @Test
    void theSessionReadRefusesAQueryParameterItDoesNotTakeAsTheOtherReadsDo() {
        Session s = signIn("tok-mp");
        ApiFixture.Response asked = send("GET", "/v1/session?user=root", s, null, null);
        assertThat(asked.status()).as(asked.json().toString()).isEqualTo(400);
        assertThat(asked.json().path("field").asText()).isEqualTo("user");
        assertThat(asked.json().path("error").asText()).endsWith("unknown query parameter");
        assertThat(send("GET", "/v1/session", s, null, null).status()).isEqualTo(200);
    }

    @Test
    void signingInSetsAStrictHttpOnlyCookieThatAuthenticatesReads() {
        Session s = signIn("tok-mp");
        assertThat(s.setCookie()).startsWith(Sessions.COOKIE + "=").contains("; HttpOnly").contains("; SameSite=Strict")
                .contains("; Path=/").doesNotContain("tok-mp");
        assertThat(s.csrf()).hasSizeGreaterThan(40);
        ApiFixture.Response me = send("GET", "/v1/me", s, null, null);
        assertThat(me.status()).isEqualTo(200);
        assertThat(me.json().path("name").asText()).isEqualTo("mp");
        assertThat(send("GET", "/v1/queue", s, null, null).status()).isEqualTo(200);
        ApiFixture.Response session = send("GET", "/v1/session", s, null, null);
        assertThat(session.json().path("user").asText()).isEqualTo("mp");
        assertThat(session.json().path("role").asText()).isEqualTo("user");
        assertThat(session.json().path("csrfToken").asText()).isEqualTo(s.csrf());
    }

    @Test
    void aCookieAuthenticatedChangeNeedsTheSessionsCsrfToken() {
        Session s = signIn("tok-mp");
        for (String csrf : new String[] {null, "", "forged", signIn("tok-mp").csrf()}) {
            ApiFixture.Response r = send("PUT", "/v1/allocations/" + X, s, csrf, EDIT);
            assertThat(r.status()).as("CSRF header %s", csrf).isEqualTo(403);
            assertThat(r.error()).contains("X-CSRF-Token");
        }
        assertThat(send("POST", "/v1/workloads", s, null, ApiFixture.body()).status()).isEqualTo(403);
        assertThat(send("DELETE", "/v1/session", s, null, null).status()).isEqualTo(403);
        assertThat(send("PUT", "/v1/allocations/" + X, s, s.csrf(), EDIT).status()).isEqualTo(200);
        assertThat(api.get("/v1/audit?limit=1", "tok-mp").json().path("entries").get(0).path("actor").asText())
                .isEqualTo("mp");
    }

    @Test
    void bearerTokensWorkAsBeforeWithoutACsrfHeader() {
        assertThat(api.put("/v1/allocations/" + X, "tok-mp", EDIT).status()).isEqualTo(200);
        assertThat(api.get("/v1/me", null).status()).isEqualTo(401);
        assertThat(api.get("/v1/me", null).error()).isEqualTo("authentication required: no Authorization header");
    }

    @Test
    void signInRefusesABadTokenAndANonJsonBody() {
        ApiFixture.Response bad = api.sendRaw(HttpRequest.newBuilder(api.uri("/v1/session"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"token\": \"nope\"}")).build());
        assertThat(bad.status()).isEqualTo(401);
        assertThat(bad.json().path("error").asText()).isEqualTo("unknown or revoked token");
        assertThat(bad.json().path("hint").asText()).as("no bearer header to send from a sign-in page")
                .startsWith("check the token").doesNotContain("Authorization");
        ApiFixture.Response form = api.sendRaw(HttpRequest.newBuilder(api.uri("/v1/session"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=tok-root")).build());
        assertThat(form.status()).as("a cross-site form cannot sign anyone in").isEqualTo(415);
        ApiFixture.Response fields = api.sendRaw(HttpRequest.newBuilder(api.uri("/v1/session"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"token\": \"tok-root\", \"x\": 1}")).build());
        assertThat(fields.status()).isEqualTo(400);
        assertThat(fields.field()).isEqualTo("token");
        assertThat(api.sendRaw(HttpRequest.newBuilder(api.uri("/v1/session")).header("Cookie", Sessions.COOKIE + "=nope")
                .GET().build()).status()).isEqualTo(401);
        ApiFixture.Response ended = api.sendRaw(HttpRequest.newBuilder(api.uri("/v1/me"))
                .header("Cookie", Sessions.COOKIE + "=nope").GET().build());
        assertThat(ended.status()).isEqualTo(401);
        assertThat(ended.json().path("hint").asText()).startsWith("sign in again on the dashboard's page /signin");
    }

    @Test
    void signingOutOrRevokingTheTokenEndsTheSession() {
        Session out = signIn("tok-member");
        ApiFixture.Response signedOut = send("DELETE", "/v1/session", out, out.csrf(), null);
        assertThat(signedOut.status()).isEqualTo(204);
        assertThat(send("GET", "/v1/me", out, null, null).status()).isEqualTo(401);

        ApiFixture.Response minted = api.post("/v1/users/member/tokens", "tok-member", "{\"label\": \"browser\"}");
        assertThat(minted.status()).isEqualTo(201);
        Session s = signIn(minted.json().path("token").asText());
        assertThat(send("GET", "/v1/me", s, null, null).status()).isEqualTo(200);
        assertThat(api.delete("/v1/users/member/tokens/" + minted.json().path("id").asText(), "tok-member").status())
                .isEqualTo(204);
        assertThat(send("GET", "/v1/me", s, null, null).status()).isEqualTo(401);
    }

    private java.net.http.HttpResponse<String> raw(String path) {
        try {
            return java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(api.uri(path)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void thePagesAreServedWithTheirDefencesAndTheRootLeadsToTheQueue() {
        for (String page : List.of("/signin", "/queue", "/allocations", "/nodes", "/workloads/w-1",
                "/campaigns", "/campaigns/eval-2026")) {
            var r = raw(page);
            assertThat(r.statusCode()).as(page).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
            assertThat(r.headers().firstValue("Content-Security-Policy").orElseThrow())
                    .contains("script-src 'self'").contains("frame-ancestors 'none'");
            assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        }
        assertThat(raw("/queue").body()).contains("/dashboard/queue.js");
        var root = raw("/");
        assertThat(root.statusCode()).isEqualTo(302);
        assertThat(root.headers().firstValue("Location")).hasValue("/queue");
        var uplot = raw("/dashboard/uplot.js");
        assertThat(uplot.statusCode()).isEqualTo(200);
        assertThat(uplot.body()).contains("uPlot");
        assertThat(raw("/dashboard/nothing.js").statusCode()).isEqualTo(404);
        assertThat(raw("/dashboard/dashboard.js").headers().firstValue("Content-Type").orElseThrow())
                .startsWith("text/javascript");
    }
}
