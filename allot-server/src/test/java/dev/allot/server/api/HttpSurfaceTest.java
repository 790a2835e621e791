package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP surface under requests no client library sends: what Jetty answers itself is the API's JSON error, no
 * request is a 5xx, and a path that is not normal never reaches a permission check.
 */
class HttpSurfaceTest {
    static final String EDIT = "{\"share\": 5, \"managers\": [], \"members\": []}";

    @TempDir
    Path dataDir;

    ApiFixture api;
    int port;

    @BeforeEach
    void start() {
        api = new ApiFixture(dataDir);
        port = api.server.port();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void aBrowserAskingForAPageThatDoesNotExistGetsAPageSayingSo_anApiClientTheJsonError() {
        // a browser showed the API's JSON error as raw text
        RawHttp.Answer browser = RawHttp.exchange(port, "GET /nosuchpage%3Cb%3E HTTP/1.1\r\nAccept: text/html,"
                + "application/xhtml+xml,*/*;q=0.8", null);
        assertThat(browser.status()).isEqualTo(404);
        assertThat(browser.contentType()).startsWith("text/html");
        assertThat(browser.body()).contains("<h1>No such page</h1>").contains("<code>/nosuchpage")
                .doesNotContain("<b>");
        // it leads to every page of the dashboard's navigation bar, in its order (the timeline was missing)
        assertThat(java.util.regex.Pattern.compile("<a href=\"([^\"]+)\">([^<]+)</a>").matcher(browser.body()).results()
                .map(m -> m.group(2) + " " + m.group(1)).toList()).containsExactly("Queue /queue",
                "Campaigns /campaigns", "Allocations /allocations", "Timeline /timeline", "Nodes /nodes");
        RawHttp.Answer client = RawHttp.exchange(port, "GET /nosuchpage HTTP/1.1", null);
        assertThat(client.status()).isEqualTo(404);
        assertJsonError(client, "GET /nosuchpage");
        RawHttp.Answer api = RawHttp.exchange(port, "GET /v1/nosuch HTTP/1.1\r\nAccept: text/html", null);
        assertJsonError(api, "GET /v1/nosuch");
    }

    @Test
    void givenALowercaseOrUnknownMethodThenItIsA405InJson() {
        for (String line : List.of("get /v1/health", "post /v1/workloads", "Get /v1/me", "FOO /v1/health",
                "TRACE /v1/health", "PROPFIND /v1/health")) {
            RawHttp.Answer a = RawHttp.exchange(port, line + " HTTP/1.1\r\nAuthorization: Bearer tok-root", null);
            assertThat(a.status()).as(line).isEqualTo(405);
            assertJsonError(a, line);
            assertThat(a.error()).as(line).startsWith("method not allowed");
        }
        assertThat(RawHttp.exchange(port, "get /v1/health HTTP/1.1", null).error()).contains("use GET");
    }

    @Test
    void givenTheAuthorizationHeaderTwice_thenTheRequestIsRefusedNotAnsweredForTheFirstToken() {
        for (String second : List.of("tok-member", "tok-root", "nonsense")) {
            RawHttp.Answer a = RawHttp.exchange(port, "GET /v1/me HTTP/1.1\r\nAuthorization: Bearer tok-root"
                    + "\r\nAuthorization: Bearer " + second, null);
            assertThat(a.status()).as(second).isEqualTo(400);
            assertJsonError(a, second);
            assertThat(a.error()).as(second).isEqualTo("the Authorization header is given 2 times");
        }
        assertThat(RawHttp.exchange(port, "GET /v1/me HTTP/1.1\r\nAuthorization: Bearer tok-root", null).status())
                .isEqualTo(200);
    }

    @Test
    void givenWhatJettyRefusesItselfThenTheAnswerIsTheApisJsonErrorAndNever5xx() {
        String longPath = "/v1/workloads/" + "w".repeat(20_000);
        RawHttp.Answer uri = RawHttp.exchange(port, "GET " + longPath + " HTTP/1.1", null);
        assertThat(uri.status()).isEqualTo(414);
        assertJsonError(uri, "414");

        RawHttp.Answer headers = RawHttp.exchange(port, "GET /v1/health HTTP/1.1\r\nX-Big: " + "h".repeat(20_000), null);
        assertThat(headers.status()).isEqualTo(431);
        assertJsonError(headers, "431");

        RawHttp.Answer declared = RawHttp.exchange(port, "POST /v1/workloads HTTP/1.1\r\nAuthorization: Bearer"
                + " tok-member\r\nContent-Type: application/json\r\nContent-Length: 5000000", "{}".getBytes());
        assertThat(declared.status()).isEqualTo(413);
        assertJsonError(declared, "413 declared");

        StringBuilder chunked = new StringBuilder();
        String piece = "x".repeat(60_000);
        for (int i = 0; i < 20; i++) { // 1.2 MB in chunks, no length declared
            chunked.append(Integer.toHexString(piece.length())).append("\r\n").append(piece).append("\r\n");
        }
        chunked.append("0\r\n\r\n");
        RawHttp.Answer streamed = RawHttp.exchange(port, "POST /v1/workloads HTTP/1.1\r\nAuthorization: Bearer"
                + " tok-member\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked",
                chunked.toString().getBytes(StandardCharsets.US_ASCII));
        assertThat(streamed.status()).isEqualTo(413);
        assertJsonError(streamed, "413 chunked");

        for (String head : List.of("GARBAGE", "GET /v1/health HTTP/9.9", "GET * HTTP/1.1", "GET /v1/%ZZ HTTP/1.1",
                "GET http://elsewhere/v1/health HTTP/1.1", "POST /v1/workloads HTTP/1.1\r\nTransfer-Encoding: gzip",
                "GET /v1/health HTTP/1.1\r\nContent-Length: -5", "GET /v1/health HTTP/1.1\r\nContent-Length: 99999999999999999999")) {
            RawHttp.Answer a = RawHttp.exchange(port, head, null);
            assertThat(a.status()).as(head).isBetween(400, 499);
            assertJsonError(a, head);
        }
        RawHttp.Answer missing = RawHttp.request(port, "GET", "/v1/nothing-here", null, null);
        assertThat(missing.status()).isEqualTo(404);
        assertJsonError(missing, "404");
        RawHttp.Answer wrongMethod = RawHttp.request(port, "DELETE", "/v1/health", "tok-root", null);
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertJsonError(wrongMethod, "DELETE /v1/health");
    }

    @Test
    void givenAKnownPathAskedWithAMethodItDoesNotAnswer_thenItIsA405WithAllowAndTheMethodsNamed() {
        // DELETE and PATCH /v1/me answered 404 "no such endpoint", as if the path did not exist
        record Case(String method, String path, String allowed) {
        }
        for (Case c : List.of(new Case("DELETE", "/v1/me", "GET, HEAD"), new Case("PATCH", "/v1/me", "GET, HEAD"),
                new Case("GET", "/v1/whatif", "POST"), new Case("PUT", "/v1/workloads/w-1", "GET, HEAD"),
                new Case("DELETE", "/v1/workloads", "GET, HEAD, POST"), new Case("POST", "/queue", "GET, HEAD"),
                new Case("PATCH", "/v1/allocations/lab/nlp", "PUT, DELETE"))) {
            String line = c.method() + " " + c.path();
            RawHttp.Answer a = RawHttp.request(port, c.method(), c.path(), "tok-root", null);
            assertThat(a.status()).as(line + ": " + a.body()).isEqualTo(405);
            assertJsonError(a, line);
            assertThat(a.header("Allow")).as(line).isEqualTo(c.allowed());
            assertThat(a.error()).as(line).isEqualTo("method not allowed: " + c.path() + " answers " + c.allowed()
                    + ", not " + c.method());
        }
        RawHttp.Answer head = RawHttp.exchange(port, "HEAD /v1/health HTTP/1.1", null);
        assertThat(head.status()).as("HEAD is answered where GET is, as Allow says").isEqualTo(200);
        RawHttp.Answer missing = RawHttp.request(port, "DELETE", "/v1/nothing-here", "tok-root", null);
        assertThat(missing.status()).as("a path the API does not have is still a 404").isEqualTo(404);
        assertThat(missing.error()).isEqualTo("no such endpoint: DELETE /v1/nothing-here");
        assertThat(missing.header("Allow")).isNull();
    }

    @Test
    void givenADashboardPageAskedWithHead_thenItAnswersAsGetDoesWithoutTheBody() {
        // HEAD /queue answered Content-Type: application/json with length 0, unlike its GET
        for (String path : List.of("/queue", "/allocations", "/nodes", "/campaigns", "/campaigns/c-1", "/timeline",
                "/workloads/w-1", "/signin", "/dashboard/dashboard.css", "/timeline.js")) {
            RawHttp.Answer get = RawHttp.request(port, "GET", path, null, null);
            RawHttp.Answer head = RawHttp.request(port, "HEAD", path, null, null);
            assertThat(get.status()).as(path).isEqualTo(200);
            assertThat(head.status()).as(path).isEqualTo(200);
            assertThat(head.contentType()).as(path).isEqualTo(get.contentType()).doesNotContain("json");
            // the length GET declares (a large file, streamed in chunks, declares none)
            assertThat(head.header("Content-Length")).as(path).isEqualTo(get.header("Content-Length"));
            assertThat(head.header("Content-Security-Policy")).as(path).isEqualTo(get.header("Content-Security-Policy"))
                    .isNotNull();
            assertThat(head.body()).as(path).isEmpty();
        }
        assertThat(Integer.parseInt(RawHttp.request(port, "HEAD", "/queue", null, null).header("Content-Length")))
                .isPositive();
        RawHttp.Answer root = RawHttp.request(port, "HEAD", "/", null, null);
        assertThat(root.status()).isEqualTo(302);
        assertThat(root.header("Location")).isEqualTo("/queue");
        assertThat(root.body()).isEmpty();
    }

    @Test
    void givenAJsonEndpointAskedWithHead_thenItAnswersAsGetDoesWithTheSameLengthWithoutTheBody() {
        // HEAD /v1/queue answered 200 without Content-Length (Javalin answers HEAD on a GET route without running it)
        record Case(String path, String token) {
        }
        for (Case c : List.of(new Case("/v1/health", null), new Case("/v1/openapi.json", null),
                new Case("/v1/me", "tok-root"), new Case("/v1/queue", "tok-member"), new Case("/v1/allocations", "tok-ms"),
                new Case("/v1/workloads", "tok-root"), new Case("/v1/nodes", "tok-root"), new Case("/v1/me", null),
                new Case("/v1/workloads/w-404", "tok-root"), new Case("/v1/queue?limit=x", "tok-root"))) {
            String line = c.path() + (c.token() == null ? " without a token" : " as " + c.token());
            RawHttp.Answer get = RawHttp.request(port, "GET", c.path(), c.token(), null);
            RawHttp.Answer head = RawHttp.request(port, "HEAD", c.path(), c.token(), null);
            assertThat(head.status()).as(line).isEqualTo(get.status());
            assertThat(head.contentType()).as(line).isEqualTo(get.contentType());
            assertThat(get.header("Content-Length")).as(line).isNotNull();
            assertThat(head.header("Content-Length")).as(line).isEqualTo(get.header("Content-Length"));
            assertThat(head.body()).as(line).isEmpty();
        }
    }

    @Test
    void givenTheOpenApiDocument_whenFetchedPlainOrCompressed_thenItDeclaresItsLengthAndSendsThatManyBytes()
            throws Exception {
        // about 100 KB, more than the server's output buffer: it went out in chunks, without Content-Length
        byte[] plain = null;
        for (String encoding : List.of("identity", "gzip")) {
            java.net.http.HttpResponse<byte[]> r = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                            + "/v1/openapi.json")).header("Accept-Encoding", encoding).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).as(encoding).isEqualTo(200);
            assertThat(r.headers().firstValue("Transfer-Encoding")).as(encoding).isEmpty();
            assertThat(r.headers().firstValue("Content-Length")).as(encoding)
                    .contains(Integer.toString(r.body().length));
            byte[] body = r.body();
            if (encoding.equals("gzip")) {
                assertThat(r.headers().firstValue("Content-Encoding")).contains("gzip");
                try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(
                        new java.io.ByteArrayInputStream(body))) {
                    body = in.readAllBytes();
                }
                assertThat(body).as("the same document, compressed").isEqualTo(plain);
                assertThat(r.body().length).isLessThan(plain.length);
            } else {
                assertThat(r.headers().firstValue("Content-Encoding")).isEmpty();
                plain = body;
            }
            assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(body).path("openapi").isTextual())
                    .as(encoding).isTrue();
        }
    }

    @Test
    void givenTheRoot_whenAsked_thenItRedirectsToTheQueueWithoutClaimingJson() {
        // it answered 302 with Content-Type: application/json and the body "Redirected"
        RawHttp.Answer root = RawHttp.request(port, "GET", "/", null, null);
        assertThat(root.status()).isEqualTo(302);
        assertThat(root.header("Location")).isEqualTo("/queue");
        assertThat(root.contentType()).startsWith("text/plain");
        assertThat(root.body()).isEqualTo("see /queue\n");
    }

    @Test
    void givenAStepOfLongMaxValueThenUsageIsA400NamingStep() {
        for (String step : List.of("9223372036854775807", "9223372036854775807s", "99999999999999999999999d", "-1h", "0")) {
            RawHttp.Answer a = RawHttp.request(port, "GET", "/v1/allocations/usage?step=" + step, "tok-root", null);
            assertThat(a.status()).as(step).isEqualTo(400);
            assertThat(a.json().path("field").asText()).isEqualTo("step");
        }
        assertThat(RawHttp.request(port, "GET", "/v1/allocations/usage?step=1d", "tok-root", null).status())
                .isEqualTo(200);
    }

    @Test
    void aQueryParameterAnEndpointDoesNotTakeIsA400NamingItNeverIgnored() {
        // /v1/nodes?state=bad answered as if asked nothing, while /v1/queue?state=bad was refused
        for (String path : List.of("/v1/nodes?state=bad", "/v1/policy?format=yaml", "/v1/brakes?x=1",
                "/v1/workloads/w-1?verbose=1", "/v1/workloads/w-1/explain?why=1", "/v1/queue?status=pending")) {
            RawHttp.Answer a = RawHttp.request(port, "GET", path, "tok-root", null);
            assertThat(a.status()).as(path + ": " + a.body()).isEqualTo(400);
            assertThat(a.json().path("error").asText()).as(path).endsWith("unknown query parameter");
            assertThat(a.json().path("field").asText()).as(path).isEqualTo(path.substring(path.indexOf('?') + 1,
                    path.indexOf('=')));
        }
        assertThat(RawHttp.request(port, "GET", "/v1/nodes", "tok-root", null).status()).isEqualTo(200);
    }

    @Test
    void theUserTokenAllocationAndHealthReadsRefuseAQueryParameterTheyDoNotTakeAsTheOtherReadsDo() {
        // these answered 200 as if asked nothing: /v1/users?name=mp listed everyone, /v1/allocations?path=lab/nlp all
        for (String path : List.of("/v1/allocations?path=lab/nlp", "/v1/users?name=mp", "/v1/me?user=mp",
                "/v1/users/mp/tokens?expired=true", "/v1/token-policy?user=mp", "/v1/health?verbose=1",
                "/v1/openapi.json?format=yaml")) {
            RawHttp.Answer a = RawHttp.request(port, "GET", path, "tok-root", null);
            assertThat(a.status()).as(path + ": " + a.body()).isEqualTo(400);
            assertThat(a.json().path("error").asText()).as(path).endsWith("unknown query parameter");
            assertThat(a.json().path("field").asText()).as(path).isEqualTo(path.substring(path.indexOf('?') + 1,
                    path.indexOf('=')));
            assertThat(a.json().path("hint").asText()).as(path).endsWith("takes none");
            String bare = path.substring(0, path.indexOf('?'));
            assertThat(RawHttp.request(port, "GET", bare, "tok-root", null).status()).as(bare).isEqualTo(200);
        }
    }

    @Test
    void aQueryParameterWithoutANameIsA400SayingSoNotAFieldNamedNothing() {
        // '/v1/queue?state=pending&&user=x' said "field '': unknown query parameter"
        for (String path : List.of("/v1/me?=x", "/v1/queue?state=pending&&user=root", "/v1/nodes?&")) {
            RawHttp.Answer a = RawHttp.request(port, "GET", path, "tok-root", null);
            assertThat(a.status()).as(path + ": " + a.body()).isEqualTo(400);
            assertThat(a.error()).as(path).isEqualTo("a query parameter without a name ('=' or '&' with nothing"
                    + " before it)");
            assertThat(a.json().path("field").isNull()).as(path).isTrue();
        }
        assertThat(RawHttp.request(port, "GET", "/v1/me?", "tok-root", null).status()).isEqualTo(200);
    }

    @Test
    void givenABodyThatIsNotUtf8_thenEveryEndpointRefusesItNamingTheByteOffsetNotStoringReplacementCharacters() {
        // POST /v1/workloads with the command ["sleep", "\xff\xfe"] (raw bytes) was a 201 that stored "\uFFFD\uFFFD"
        byte[] head = "{\"allocation\": \"lab/nlp/pretrain\", \"gpus\": 1, \"command\": [\"sleep\", \""
                .getBytes(StandardCharsets.UTF_8);
        byte[] body = java.util.Arrays.copyOf(head, head.length + 4);
        body[head.length] = (byte) 0xff;
        body[head.length + 1] = (byte) 0xfe;
        body[head.length + 2] = '"';
        body[head.length + 3] = ']';
        body = (new String(body, StandardCharsets.ISO_8859_1) + "}").getBytes(StandardCharsets.ISO_8859_1);
        String expected = "the body is not valid UTF-8: at byte offset " + head.length + " (counted from 0), expected"
                + " a UTF-8 encoded character, got the byte 0xFF";
        for (String[] call : List.of(new String[] {"POST", "/v1/workloads", "tok-member"},
                new String[] {"PUT", "/v1/allocations/lab/nlp/eval", "tok-root"},
                new String[] {"PUT", "/v1/policy", "tok-root"},
                new String[] {"POST", "/v1/campaigns", "tok-member"},
                new String[] {"POST", "/v1/users/member/tokens", "tok-member"})) {
            ApiFixture.Response r = api.send(call[0], call[1], call[2], body);
            assertThat(r.status()).as(call[1] + ": " + r.json()).isEqualTo(400);
            assertThat(r.error()).as(call[1]).isEqualTo(expected);
        }
        assertThat(api.get("/v1/workloads", "tok-root").json().toString()).doesNotContain("sleep");
    }

    @Test
    void givenAQueryThatIsNotValidPercentEncoding_thenItIsA400SayingSoNotThatAValueIsMissing() {
        // '/v1/queue?allocation=%ZZ' said "expected one non-blank value"
        for (String path : List.of("/v1/queue?allocation=%ZZ", "/v1/queue?allocation=lab%2", "/v1/workloads?user=%G1",
                "/v1/queue?allocation=%FF")) {
            RawHttp.Answer a = RawHttp.request(port, "GET", path, "tok-root", null);
            assertThat(a.status()).as(path + ": " + a.body()).isEqualTo(400);
            assertThat(a.error()).as(path).startsWith("the query is not valid percent-encoding: ")
                    .doesNotContain("non-blank");
            assertThat(a.json().path("field").asText()).as(path).isIn("allocation", "user");
        }
        assertThat(RawHttp.request(port, "GET", "/v1/queue?allocation=lab%2Fnlp", "tok-root", null).status())
                .isEqualTo(200);
    }

    @Test
    void givenABodyThatEndsBeforeItsDeclaredLengthOrChunks_thenTheErrorSaysSoNotEarlyEof() {
        // a bad chunked body said "bad request: Early EOF"
        String head = "POST /v1/workloads HTTP/1.1\r\nAuthorization: Bearer tok-member\r\nContent-Type:"
                + " application/json\r\n";
        for (String[] c : List.of(new String[] {"Transfer-Encoding: chunked", "10\r\n{\"gpus\""},
                new String[] {"Content-Length: 100", "{\"gpus\": 1"})) {
            RawHttp.Answer a = RawHttp.exchange(port, head + c[0], c[1].getBytes(StandardCharsets.US_ASCII), true);
            assertThat(a.status()).as(c[0] + ": " + a.body()).isEqualTo(400);
            assertThat(a.error()).as(c[0]).doesNotContain("Early EOF").isEqualTo("bad request: the body ended before"
                    + " its declared length (Content-Length) or its last chunk (Transfer-Encoding: chunked)");
        }
    }

    @Test
    void aMalformedOrNulPercentEscapeIsA400ThatSaysWhatIsWrongWithThePath() {
        for (String path : List.of("/v1/workloads/%00", "/v1/workloads/%ZZ", "/v1/workloads/w%2")) {
            RawHttp.Answer a = RawHttp.request(port, "GET", path, "tok-root", null);
            assertThat(a.status()).as(path + ": " + a.body()).isEqualTo(400);
            assertThat(a.json().path("field").asText()).as(path + ": " + a.body()).isEqualTo("path");
            assertThat(a.json().path("error").asText()).as(path).startsWith("bad request: the URI is not valid (")
                    .endsWith("): a percent-escape is % and two hex digits (write % as %25) and may not encode a"
                            + " control character such as NUL (%00)");
        }
    }

    @Test
    void givenAManagerOfLabNlpWhenAPathWouldNormaliseIntoLabVisionThenItIs400AndNothingChanges() {
        String before = api.get("/v1/allocations", "tok-root").json().toString();
        int auditBefore = api.get("/v1/audit?limit=1000", "tok-root").json().path("entries").size();
        List<String> sneaky = List.of(
                "/v1/allocations/lab/nlp/../vision/detect",
                "/v1/allocations/lab/nlp/%2e%2e/vision/detect",
                "/v1/allocations/lab/nlp/%2E%2E/vision/detect",
                "/v1/allocations/lab/nlp/.%2e/vision/detect",
                "/v1/allocations/lab/nlp/pretrain/../../vision/detect",
                "/v1/allocations/lab/./vision/detect",
                "/v1/allocations/lab//vision/detect",
                "/v1/allocations//lab/vision/detect",
                "/v1/allocations/lab%2Fvision%2Fdetect",
                "/v1/allocations/lab/nlp/..%2Fvision/detect",
                "/v1/allocations/lab/nlp/..%5Cvision/detect",
                "/v1/allocations/lab/nlp/..\\vision/detect",
                "/v1/allocations/lab/nlp;/../vision/detect",
                "/v1/allocations/lab/vision/detect;x",
                "/v1/allocations/lab/nlp/%2e%2e/vision");
        for (String path : sneaky) {
            for (String method : List.of("PUT", "DELETE")) {
                RawHttp.Answer a = RawHttp.request(port, method, path, "tok-mp", method.equals("PUT") ? EDIT : null);
                assertThat(a.status()).as(method + " " + path + ": " + a.body()).isEqualTo(400);
                assertJsonError(a, path);
            }
        }
        RawHttp.Answer cancel = RawHttp.request(port, "POST", "/v1/workloads/x/..%2Fw-1/cancel", "tok-mp", null);
        assertThat(cancel.status()).isEqualTo(400);

        assertThat(api.get("/v1/allocations", "tok-root").json().toString()).isEqualTo(before);
        assertThat(api.get("/v1/audit?limit=1000", "tok-root").json().path("entries").size()).isEqualTo(auditBefore);
        // The same token, on paths that are normal: its own subtree yes, the sibling no.
        assertThat(RawHttp.request(port, "PUT", "/v1/allocations/lab/vision/detect", "tok-mp", EDIT).status())
                .isEqualTo(403);
        assertThat(RawHttp.request(port, "PUT", "/v1/allocations/lab/nlp/eval", "tok-mp", EDIT).status())
                .isEqualTo(201);
        assertThat(RawHttp.request(port, "GET", "/v1/allocations/", "tok-mp", null).status()).isEqualTo(200);
    }

    static void assertJsonError(RawHttp.Answer a, String what) {
        assertThat(a.contentType()).as(what + ": " + a.body()).startsWith("application/json");
        assertThat(a.json()).as(what + ": " + a.body()).isNotNull();
        assertThat(a.json().path("error").isTextual()).as(what + ": " + a.body()).isTrue();
        assertThat(a.json().has("field") && a.json().has("hint")).as(what + ": " + a.body()).isTrue();
        assertThat(a.status()).as(what).isLessThan(500);
    }
}
