package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input to the budget and node endpoints, as a table: each request, made as an administrator (so only the
 * input can be wrong), is refused with 400 naming the field or query parameter (or no field when the body as a
 * whole is wrong). One server for the class: a refused request changes nothing, which the last test checks.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BudgetValidationTest {
    static final String NEW = "/v1/allocations/lab/nlp/new";
    static final String HEALTH = "/v1/nodes/gpu-01/health";
    static final String NODE = "/v1/nodes/gpu-09";

    @TempDir
    static Path dataDir;

    static ApiFixture api;
    static List<Allocation> treeBefore;
    static List<Node> nodesBefore;

    @BeforeAll
    static void start() {
        api = new ApiFixture(dataDir);
        treeBefore = api.store.allocations().allocations();
        nodesBefore = api.store.nodes().nodes();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    static String edit(String share, String managers, String members) {
        StringBuilder sb = new StringBuilder("{");
        if (share != null) {
            sb.append("\"share\": ").append(share);
        }
        if (managers != null) {
            sb.append(sb.length() > 1 ? ", " : "").append("\"managers\": ").append(managers);
        }
        if (members != null) {
            sb.append(sb.length() > 1 ? ", " : "").append("\"members\": ").append(members);
        }
        return sb.append('}').toString();
    }

    static Stream<Arguments> badRequests() {
        String ok = edit("1", "[\"mp\"]", "[\"member\"]");
        return Stream.of(
                //        what is wrong                         method    url                                          body                                             field named
                arguments("allocation: not JSON",               "PUT",    NEW,                                         "share=1",                                       null),
                arguments("allocation: an array",               "PUT",    NEW,                                         "[" + ok + "]",                                  null),
                arguments("allocation: empty body",             "PUT",    NEW,                                         "",                                              null),
                arguments("allocation: trailing content",       "PUT",    NEW,                                         ok + " {}",                                      null),
                arguments("allocation: unknown field",          "PUT",    NEW,                                         ok.replace("{", "{\"parent\": \"lab\", "),       "parent"),
                arguments("allocation: field in wrong case",    "PUT",    NEW,                                         ok.replace("share", "Share"),                    "Share"),
                arguments("allocation: share given twice",      "PUT",    NEW,                                         ok.replace("{", "{\"share\": 2, "),              "share"),
                arguments("allocation: share missing",          "PUT",    NEW,                                         edit(null, "[]", "[]"),                          "share"),
                arguments("allocation: share just below zero",  "PUT",    NEW,                                         edit("-0.001", "[]", "[]"),                      "share"),
                arguments("allocation: share negative",         "PUT",    NEW,                                         edit("-1.5", "[]", "[]"),                        "share"),
                arguments("allocation: share overflows",        "PUT",    NEW,                                         edit("1e400", "[]", "[]"),                       "share"),
                arguments("allocation: share a string",         "PUT",    NEW,                                         edit("\"1\"", "[]", "[]"),                       "share"),
                arguments("allocation: share null",             "PUT",    NEW,                                         edit("null", "[]", "[]"),                        "share"),
                arguments("allocation: share NaN",              "PUT",    NEW,                                         edit("NaN", "[]", "[]"),                         null),
                arguments("allocation: managers missing",       "PUT",    NEW,                                         edit("1", null, "[]"),                           "managers"),
                arguments("allocation: managers a string",      "PUT",    NEW,                                         edit("1", "\"mp\"", "[]"),                       "managers"),
                arguments("allocation: managers of numbers",    "PUT",    NEW,                                         edit("1", "[1]", "[]"),                          "managers"),
                arguments("allocation: manager unknown",        "PUT",    NEW,                                         edit("1", "[\"nobody\"]", "[]"),                 "managers"),
                arguments("allocation: manager twice",          "PUT",    NEW,                                         edit("1", "[\"mp\", \"mp\"]", "[]"),             "managers"),
                arguments("allocation: manager blank",          "PUT",    NEW,                                         edit("1", "[\" \"]", "[]"),                      "managers"),
                arguments("allocation: members missing",        "PUT",    NEW,                                         edit("1", "[]", null),                           "members"),
                arguments("allocation: members null",           "PUT",    NEW,                                         edit("1", "[]", "null"),                         "members"),
                arguments("allocation: member unknown",         "PUT",    NEW,                                         edit("1", "[]", "[\"member\", \"ghost\"]"),      "members"),
                arguments("allocation: members an object",      "PUT",    NEW,                                         edit("1", "[]", "{}"),                           "members"),
                arguments("allocation: path with a blank name", "PUT",    "/v1/allocations/lab/nlp/%20x",              ok,                                              "path"),
                arguments("allocation: name '..'",              "PUT",    "/v1/allocations/lab/%2E%2E",                ok,                                              "path"),
                arguments("allocation: name '..' in the middle", "PUT",   "/v1/allocations/lab/%2e%2e/nlp/x",          ok,                                              "path"),
                arguments("allocation: name '.'",               "PUT",    "/v1/allocations/lab/%2E/x",                 ok,                                              "path"),
                arguments("allocation: an empty name",          "PUT",    "/v1/allocations/lab//x",                    ok,                                              "path"),
                arguments("allocation: a control character",    "PUT",    "/v1/allocations/lab/a%01b",                 ok,                                              "path"),
                arguments("allocation: path too long",          "PUT",    "/v1/allocations/lab/" + "n".repeat(300),    ok,                                              "path"),
                arguments("health: not JSON",                   "POST",   HEALTH,                                      "healthy",                                       null),
                arguments("health: no body",                    "POST",   HEALTH,                                      null,                                            null),
                arguments("health: healthy missing",            "POST",   HEALTH,                                      "{\"reason\": \"x\"}",                           "healthy"),
                arguments("health: healthy a string",           "POST",   HEALTH,                                      "{\"healthy\": \"false\"}",                      "healthy"),
                arguments("health: healthy null",               "POST",   HEALTH,                                      "{\"healthy\": null}",                           "healthy"),
                arguments("health: reason a number",            "POST",   HEALTH,                                      "{\"healthy\": false, \"reason\": 42}",          "reason"),
                arguments("health: reason too long",            "POST",   HEALTH,                                      "{\"healthy\": false, \"reason\": \"" + "r".repeat(300) + "\"}", "reason"),
                arguments("health: unknown field",              "POST",   HEALTH,                                      "{\"healthy\": false, \"status\": \"down\"}",   "status"),
                arguments("node: gpus missing",                 "PUT",    NODE,                                        "{}",                                            "gpus"),
                arguments("node: gpus zero",                    "PUT",    NODE,                                        "{\"gpus\": 0}",                                 "gpus"),
                arguments("node: gpus a string",                "PUT",    NODE,                                        "{\"gpus\": \"8\"}",                             "gpus"),
                arguments("node: gpus a fraction",              "PUT",    NODE,                                        "{\"gpus\": 1.5}",                               "gpus"),
                arguments("node: gpus beyond an int",           "PUT",    NODE,                                        "{\"gpus\": 99999999999}",                       "gpus"),
                arguments("node: unknown field",                "PUT",    NODE,                                        "{\"gpus\": 8, \"healthy\": true}",              "healthy"),
                arguments("node: name blank",                   "PUT",    "/v1/nodes/%20",                             "{\"gpus\": 8}",                                 "name"),
                arguments("node: name '..'",                    "PUT",    "/v1/nodes/%2E%2E",                          "{\"gpus\": 8}",                                 "path"),
                arguments("node: name '.'",                     "PUT",    "/v1/nodes/%2e",                             "{\"gpus\": 8}",                                 "path"),
                arguments("node: name with '/'",                "PUT",    "/v1/nodes/a%2Fb",                           "{\"gpus\": 8}",                                 "path"),
                arguments("node: name with a control character", "PUT",   "/v1/nodes/a%09b",                           "{\"gpus\": 8}",                                 "path"),
                arguments("usage: since in words",              "GET",    "/v1/allocations/usage?since=yesterday",     null,                                            "since"),
                arguments("usage: since negative",              "GET",    "/v1/allocations/usage?since=-1d",           null,                                            "since"),
                arguments("usage: since in the future",         "GET",    "/v1/allocations/usage?since=2027-01-01T00:00:00Z", null,                                     "since"),
                arguments("usage: since not an instant",        "GET",    "/v1/allocations/usage?since=2026-13-01T00:00:00Z", null,                                     "since"),
                arguments("usage: empty window",                "GET",    "/v1/allocations/usage?since=0",             null,                                            "since"),
                arguments("usage: since before 1970",           "GET",    "/v1/allocations/usage?since=30000d",        null,                                            "since"),
                arguments("usage: since given twice",           "GET",    "/v1/allocations/usage?since=1d&since=2d",   null,                                            "since"),
                arguments("usage: unknown parameter",           "GET",    "/v1/allocations/usage?from=1d",             null,                                            "from"),
                arguments("audit: limit zero",                  "GET",    "/v1/audit?limit=0",                         null,                                            "limit"),
                arguments("audit: limit in words",              "GET",    "/v1/audit?limit=ten",                       null,                                            "limit"),
                arguments("audit: limit too large",             "GET",    "/v1/audit?limit=10001",                     null,                                            "limit"),
                arguments("audit: unknown parameter",           "GET",    "/v1/audit?offset=5",                        null,                                            "offset"));
    }

    @Order(1)
    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    void refusedWith400NamingTheField(String what, String method, String url, String body, String field) {
        Response r = api.send(method, url, "tok-root", body == null ? null : body.getBytes(StandardCharsets.UTF_8));

        assertThat(r.status()).as("%s: %s", what, r.json()).isEqualTo(400);
        assertThat(r.field()).as("%s: %s", what, r.json()).isEqualTo(field);
        assertThat(r.error()).isNotBlank();
        assertThat(r.json().has("hint")).isTrue();
    }

    @Order(2)
    @Test
    void refusedRequestsChangedNothing() {
        assertThat(api.store.allocations().allocations()).isEqualTo(treeBefore);
        assertThat(api.store.nodes().nodes()).isEqualTo(nodesBefore);
    }
}
