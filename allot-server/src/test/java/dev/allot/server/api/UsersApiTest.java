package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.User;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Users and their tokens: administrators create users and give them roles; every user manages its own tokens
 * (administrators everyone's); a token is shown once, stored hashed, and revoking it signs no one in any more. Each
 * test on a fresh store.
 */
class UsersApiTest {
    @TempDir
    Path dir;

    ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture(dir);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void anAdminAddsAUserWhoGetsATokenSignsInWithItAndRevokesIt() {
        Response created = api.put("/v1/users/carol", "tok-root", "{\"role\": \"user\"}");
        assertThat(created.status()).as("%s", created.json()).isEqualTo(201);
        assertThat(api.put("/v1/users/carol", "tok-root", "{\"role\": \"user\"}").status()).isEqualTo(200);

        Response token = api.post("/v1/users/carol/tokens", "tok-root", "{\"label\": \"laptop\"}");
        assertThat(token.status()).isEqualTo(201);
        String secret = token.json().path("token").asText();
        String id = token.json().path("id").asText();
        assertThat(secret).startsWith("allot_").hasSizeGreaterThan(40);
        assertThat(id).hasSize(64).isNotEqualTo(secret);

        Response me = api.get("/v1/me", secret);
        assertThat(me.status()).isEqualTo(200);
        assertThat(me.json().path("name").asText()).isEqualTo("carol");
        assertThat(me.json().path("role").asText()).isEqualTo("user");

        Response listed = api.get("/v1/users/carol/tokens", secret);
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.json().path("tokens")).hasSize(1);
        assertThat(listed.json().path("tokens").get(0).path("label").asText()).isEqualTo("laptop");
        assertThat(listed.json().toString()).as("never the token itself").doesNotContain(secret);

        Response own = api.post("/v1/users/carol/tokens", secret, "");
        assertThat(own.status()).as("a user makes its own tokens").isEqualTo(201);
        assertThat(api.delete("/v1/users/carol/tokens/" + id, secret).status()).isEqualTo(204);
        assertThat(api.get("/v1/me", secret).status()).as("revoked").isEqualTo(401);
        assertThat(api.get("/v1/me", own.json().path("token").asText()).status()).as("the other still works")
                .isEqualTo(200);
        assertThat(api.delete("/v1/users/carol/tokens/" + id, "tok-root").status()).isEqualTo(404);

        List<String> actions = new ArrayList<>();
        api.get("/v1/audit", "tok-root").json().path("entries").forEach(e -> actions.add(e.path("action").asText()));
        assertThat(actions).startsWith("token.revoke", "token.create", "token.create", "user.put", "user.put");
        assertThat(api.get("/v1/audit", "tok-root").json().toString()).doesNotContain(secret);
        assertThat(api.get("/v1/audit", "tok-mp").json().path("entries").toString())
                .as("a manager sees no user or token entries").doesNotContain("token.", "user.put");
    }

    static Stream<Arguments> matrix() {
        return Stream.of(
                //        who           token          add a user  list users  own tokens  another's tokens
                arguments("admin",      "tok-root",    201,        7,          201,        201),
                arguments("manager",    "tok-mp",      403,        1,          201,        403),
                arguments("member",     "tok-member",  403,        1,          201,        403),
                arguments("no token",   null,          401,        -1,         401,        401));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("matrix")
    void whoMayDoWhatWithUsersAndTokens(String who, String token, int addUser, int usersSeen, int ownTokens,
                                        int othersTokens) {
        String self = token == null ? "member" : token.substring("tok-".length());
        assertThat(api.put("/v1/users/dave", token, "{\"role\": \"admin\"}").status()).isEqualTo(addUser);
        Response users = api.get("/v1/users", token);
        if (usersSeen < 0) {
            assertThat(users.status()).isEqualTo(401);
        } else {
            assertThat(users.json().path("users").size()).isEqualTo(usersSeen + (addUser == 201 ? 1 : 0));
        }
        assertThat(api.post("/v1/users/" + self + "/tokens", token, "{}").status()).isEqualTo(ownTokens);
        assertThat(api.post("/v1/users/outsider/tokens", token, "{}").status()).isEqualTo(othersTokens);
        assertThat(api.store.access().users()).extracting(User::name).contains("outsider");
    }

    @Test
    void badInputIsAClear400AndUnknownUsersAre404() {
        assertThat(api.put("/v1/users/erin", "tok-root", "{\"role\": \"boss\"}").field()).isEqualTo("role");
        assertThat(api.put("/v1/users/erin", "tok-root", "{}").field()).isEqualTo("role");
        assertThat(api.put("/v1/users/erin", "tok-root", "{\"role\": \"user\", \"x\": 1}").field()).isEqualTo("x");
        assertThat(api.put("/v1/users/erin", "tok-root", "[]").status()).isEqualTo(400);
        assertThat(api.put("/v1/users/%20erin", "tok-root", "{\"role\": \"user\"}").field()).isEqualTo("name");
        assertThat(api.post("/v1/users/root/tokens", "tok-root", "{\"label\": 3}").field()).isEqualTo("label");
        assertThat(api.post("/v1/users/nobody/tokens", "tok-root", "{}").status()).isEqualTo(404);
        assertThat(api.delete("/v1/users/root/tokens/not-an-id", "tok-root").field()).isEqualTo("id");
        assertThat(api.store.access().users()).extracting(User::name).doesNotContain("erin");
    }
}
