package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.allot.core.rules.UserNames;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.User;
import dev.allot.server.testing.MutableClock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Users and their tokens: administrators create users and give them roles; every user manages its own tokens
 * (administrators everyone's); a token is shown once, stored hashed, and revoking it signs no one in any more. Each
 * test on a fresh store.
 */
class UsersApiTest {
    @RegisterExtension
    final ApiExtension fx = new ApiExtension();

    @Test
    void anAdminAddsAUserWhoGetsATokenSignsInWithItAndRevokesIt() {
        Response created = fx.api.put("/v1/users/carol", "tok-root", "{\"role\": \"user\"}");
        assertThat(created.status()).as("%s", created.json()).isEqualTo(201);
        assertThat(fx.api.put("/v1/users/carol", "tok-root", "{\"role\": \"user\"}").status()).isEqualTo(200);

        Response token = fx.api.post("/v1/users/carol/tokens", "tok-root", "{\"label\": \"laptop\"}");
        assertThat(token.status()).isEqualTo(201);
        String secret = token.json().path("token").asText();
        String id = token.json().path("id").asText();
        assertThat(secret).startsWith("allot_").hasSizeGreaterThan(40);
        assertThat(id).hasSize(64).isNotEqualTo(secret);

        Response me = fx.api.get("/v1/me", secret);
        assertThat(me.status()).isEqualTo(200);
        assertThat(me.json().path("name").asText()).isEqualTo("carol");
        assertThat(me.json().path("role").asText()).isEqualTo("user");

        Response listed = fx.api.get("/v1/users/carol/tokens", secret);
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.json().path("tokens")).hasSize(1);
        assertThat(listed.json().path("tokens").get(0).path("label").asText()).isEqualTo("laptop");
        assertThat(listed.json().toString()).as("never the token itself").doesNotContain(secret);

        Response own = fx.api.post("/v1/users/carol/tokens", secret, "");
        assertThat(own.status()).as("a user makes its own tokens").isEqualTo(201);
        Response other = fx.api.post("/v1/users/carol/tokens", "tok-root", "{}");
        assertThat(fx.api.delete("/v1/users/carol/tokens/" + id, secret).status()).isEqualTo(204);
        assertThat(fx.api.get("/v1/me", secret).status()).as("revoked").isEqualTo(401);
        assertThat(fx.api.get("/v1/me", own.json().path("token").asText()).status()).as("minted with it: revoked with it")
                .isEqualTo(401);
        assertThat(fx.api.get("/v1/me", other.json().path("token").asText()).status()).as("the other still works")
                .isEqualTo(200);
        assertThat(fx.api.delete("/v1/users/carol/tokens/" + id, "tok-root").status()).isEqualTo(404);

        List<String> actions = new ArrayList<>();
        fx.api.get("/v1/audit", "tok-root").json().path("entries").forEach(e -> actions.add(e.path("action").asText()));
        assertThat(actions).startsWith("token.revoke", "token.create", "token.create", "token.create", "user.put",
                "user.put");
        assertThat(fx.api.get("/v1/audit", "tok-root").json().toString()).doesNotContain(secret);
        assertThat(fx.api.get("/v1/audit", "tok-mp").json().path("entries").toString())
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
        assertThat(fx.api.put("/v1/users/dave", token, "{\"role\": \"admin\"}").status()).isEqualTo(addUser);
        Response users = fx.api.get("/v1/users", token);
        if (usersSeen < 0) {
            assertThat(users.status()).isEqualTo(401);
        } else {
            assertThat(users.json().path("users").size()).isEqualTo(usersSeen + (addUser == 201 ? 1 : 0));
        }
        assertThat(fx.api.post("/v1/users/" + self + "/tokens", token, "{}").status()).isEqualTo(ownTokens);
        assertThat(fx.api.post("/v1/users/outsider/tokens", token, "{}").status()).isEqualTo(othersTokens);
        assertThat(fx.api.store.access().users()).extracting(User::name).contains("outsider");
    }

    @Test
    void givenANewUserNameWithABlankOrAControlCharacter_whenAnAdminMakesIt_thenItIsA400NamingTheFieldTheValueAndWhatIsExpected() {
        Response blank = fx.api.put("/v1/users/alice%20smith", "tok-root", "{\"role\": \"user\"}");
        assertThat(blank.status()).isEqualTo(400);
        assertThat(blank.field()).isEqualTo("name");
        assertThat(blank.error()).isEqualTo("field 'name': expected a user name of ASCII letters, digits, '.', '_', '-'"
                + " and '@', starting with a letter, a digit or '_' (no blanks, ',' or '/'), of at most 100 characters,"
                + " got 'alice smith'");
        assertThat(fx.api.put("/v1/users/bob%09jones", "tok-root", "{\"role\": \"user\"}").status()).isEqualTo(400);
        assertThat(fx.api.store.access().users()).extracting(User::name).doesNotContain("alice smith", "bob\tjones");
        assertThat(fx.api.put("/v1/users/ana@lab.org", "tok-root", "{\"role\": \"user\"}").status())
                .as("a mapped person's name").isEqualTo(201);
    }

    @Test
    void givenANewUserNameWithAComma_whenAnAdminMakesIt_thenItIsA400NamingTheName_whileAUserMadeBeforeTheRuleKeepsWorking() {
        Response comma = fx.api.put("/v1/users/smith,%20j", "tok-root", "{\"role\": \"user\"}");
        assertThat(comma.status()).isEqualTo(400);
        assertThat(comma.field()).isEqualTo("name");
        assertThat(comma.error()).isEqualTo("field 'name': expected " + UserNames.EXPECTED + ", got 'smith, j'");
        assertThat(fx.api.store.access().users()).extracting(User::name).doesNotContain("smith, j");
        assertThat(fx.api.put("/v1/users/smith.j", "tok-root", "{\"role\": \"user\"}").status()).isEqualTo(201);

        fx.api.store.access().putUser(new User("old,name", User.Role.USER)); // made before the rule
        assertThat(fx.api.put("/v1/users/old,name", "tok-root", "{\"role\": \"admin\"}").status()).isEqualTo(200);
        assertThat(fx.api.post("/v1/users/old,name/tokens", "tok-root", "{}").status()).isEqualTo(201);
    }

    @Test
    void aTokenLabelWithAControlCharacterIsA400() {
        // 'allot token list' printed a label's escape sequences and line breaks as they were
        Response r = fx.api.post("/v1/users/mp/tokens", "tok-root", "{\"label\": \"ci\\u001b[2J\\nx\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.error()).isEqualTo("field 'label': expected text without control characters (line breaks, tabs,"
                + " escapes), got 'ci\\u001b[2J\\nx'");
        assertThat(fx.api.post("/v1/users/mp/tokens", "tok-root", "{\"label\": \"ci runner\"}").status())
                .isEqualTo(201);
    }

    @Test
    void badInputIsAClear400AndUnknownUsersAre404() {
        assertThat(fx.api.put("/v1/users/erin", "tok-root", "{\"role\": \"boss\"}").field()).isEqualTo("role");
        assertThat(fx.api.put("/v1/users/erin", "tok-root", "{}").field()).isEqualTo("role");
        // disabling a user no one made is about that user, not a role it lacks (it said "a new user needs a role")
        Response disable = fx.api.put("/v1/users/erin", "tok-root", "{\"disabled\": true}");
        assertThat(disable.status()).isEqualTo(404);
        assertThat(disable.error()).isEqualTo("no user 'erin' to disable");
        assertThat(fx.api.put("/v1/users/erin", "tok-root", "{\"disabled\": false}").error())
                .isEqualTo("no user 'erin' to enable");
        assertThat(fx.api.put("/v1/users/erin", "tok-root", "{\"role\": \"user\", \"x\": 1}").field()).isEqualTo("x");
        assertThat(fx.api.put("/v1/users/erin", "tok-root", "[]").status()).isEqualTo(400);
        assertThat(fx.api.put("/v1/users/%20erin", "tok-root", "{\"role\": \"user\"}").field()).isEqualTo("name");
        assertThat(fx.api.post("/v1/users/root/tokens", "tok-root", "{\"label\": 3}").field()).isEqualTo("label");
        assertThat(fx.api.post("/v1/users/nobody/tokens", "tok-root", "{}").status()).isEqualTo(404);
        assertThat(fx.api.delete("/v1/users/root/tokens/not-an-id", "tok-root").field()).isEqualTo("id");
        assertThat(fx.api.store.access().users()).extracting(User::name).doesNotContain("erin");
    }
    // ------------------------------------------------------------------------------ issue 13: access control

    private List<String> auditActions(String token) {
        List<String> actions = new ArrayList<>();
        fx.api.get("/v1/audit", token).json().path("entries").forEach(e -> actions.add(e.path("action").asText() + " by "
                + e.path("actor").asText()));
        return actions;
    }

    @Test
    void givenATokenPolicySetByAnAdmin_whenTokensAreMade_thenTheyLiveByItAndAnExpiredOneIsRefusedSayingWhen() {
        MutableClock clock = fx.clocked();
        assertThat(fx.api.get("/v1/token-policy", "tok-member").json().path("defaultLifetime").asText()).isEqualTo("90d");
        assertThat(fx.api.put("/v1/token-policy", "tok-member", "{\"defaultLifetime\": \"1d\", \"maxLifetime\": \"30d\"}")
                .status()).as("only admins set it").isEqualTo(403);
        Response set = fx.api.put("/v1/token-policy", "tok-root", "{\"defaultLifetime\": \"1d\", \"maxLifetime\": \"30d\"}");
        assertThat(set.status()).as("%s", set.json()).isEqualTo(200);
        assertThat(set.json().path("maxLifetimeSeconds").asLong()).isEqualTo(30 * 86_400);
        assertThat(fx.api.put("/v1/token-policy", "tok-root", "{\"defaultLifetime\": \"40d\", \"maxLifetime\": \"30d\"}")
                .field()).isEqualTo("defaultLifetime");
        assertThat(fx.api.put("/v1/token-policy", "tok-root", "{\"defaultLifetime\": \"1d\", \"maxLifetime\": 30}")
                .field()).isEqualTo("maxLifetime");
        assertThat(auditActions("tok-root")).first().isEqualTo("token-policy.put by root");

        Response tooLong = fx.api.post("/v1/users/member/tokens", "tok-member", "{\"lifetime\": \"31d\"}");
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.field()).isEqualTo("lifetime");
        assertThat(tooLong.error()).contains("30d");
        Response byDefault = fx.api.post("/v1/users/member/tokens", "tok-member", "{\"label\": \"laptop\"}");
        assertThat(byDefault.json().path("expiresAt").asText()).isEqualTo("2026-03-02T09:00:00.000Z");
        Response asked = fx.api.post("/v1/users/member/tokens", "tok-member", "{\"lifetime\": \"10d\"}");
        assertThat(asked.json().path("expiresAt").asText()).isEqualTo("2026-03-11T09:00:00.000Z");
        String shortLived = byDefault.json().path("token").asText();
        assertThat(fx.api.get("/v1/me", shortLived).status()).isEqualTo(200);

        clock.advance(java.time.Duration.ofDays(1));

        Response refused = fx.api.get("/v1/me", shortLived);
        assertThat(refused.status()).as("expired, though the cache saw it a moment ago").isEqualTo(401);
        assertThat(refused.error()).contains("expired at 2026-03-02T09:00:00.000Z");
        assertThat(fx.api.get("/v1/me", asked.json().path("token").asText()).status()).isEqualTo(200);
        Response listed = fx.api.get("/v1/users/member/tokens", "tok-member");
        List<String> rows = new ArrayList<>();
        listed.json().path("tokens").forEach(t -> rows.add(t.path("label").asText() + " " + t.path("expiresAt").asText()
                + " " + t.path("expired").asBoolean()));
        assertThat(rows).contains("laptop 2026-03-02T09:00:00.000Z true", " 2026-03-11T09:00:00.000Z false");
    }

    @Test
    void givenAnExpiredToken_whenItIsSent_thenTheRefusalSaysWhenItExpiredAndHowToGetANewOneWithoutNamingItsUser() {
        MutableClock clock = fx.clocked();
        Response made = fx.api.post("/v1/users/member/tokens", "tok-member", "{\"lifetime\": \"1d\"}");
        String expired = made.json().path("token").asText();
        clock.advance(java.time.Duration.ofDays(2));

        Response refused = fx.api.get("/v1/me", expired);
        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.error()).isEqualTo("token expired at 2026-03-02T09:00:00.000Z");
        // the hint was the generic one for a missing header: "send the header 'Authorization: Bearer <token>' with a
        // token an administrator gave you", which reads as if the token were malformed
        assertThat(refused.json().path("hint").asText())
                .contains("an expired token cannot make another", "allot token create", "allot token create --user")
                .doesNotContain("Authorization: Bearer");
        assertThat(refused.json().toString()).as("who held it is said no more than before").doesNotContain("member");
        Response unknown = fx.api.get("/v1/me", "allot_nosuchtoken");
        assertThat(unknown.error()).isEqualTo("unknown or revoked token");
        assertThat(unknown.json().path("hint").asText()).contains("Authorization: Bearer");
    }

    @Test
    void givenATokenMintedWithAToken_whenItAsksToLiveLonger_thenItExpiresWithItsMinterAndIsRevokedWithIt() {
        Response parent = fx.api.post("/v1/users/member/tokens", "tok-member", "{\"label\": \"ci\", \"lifetime\": \"5d\"}");
        String parentToken = parent.json().path("token").asText();
        Response child = fx.api.post("/v1/users/member/tokens", parentToken, "{\"label\": \"job\", \"lifetime\": \"300d\"}");
        Response grandchild = fx.api.post("/v1/users/member/tokens", child.json().path("token").asText(), "{}");
        Response sibling = fx.api.post("/v1/users/member/tokens", "tok-member", "{}");
        assertThat(child.status()).isEqualTo(201);
        assertThat(child.json().path("expiresAt").asText()).as("never outlives its minter")
                .isEqualTo(parent.json().path("expiresAt").asText()).isEqualTo("2026-03-06T09:00:00.000Z");
        assertThat(grandchild.json().path("expiresAt").asText()).isEqualTo("2026-03-06T09:00:00.000Z");
        assertThat(fx.api.get("/v1/me", grandchild.json().path("token").asText()).status()).isEqualTo(200);

        assertThat(fx.api.delete("/v1/users/member/tokens/" + parent.json().path("id").asText(), "tok-member").status())
                .isEqualTo(204);

        assertThat(fx.api.get("/v1/me", parentToken).status()).isEqualTo(401);
        assertThat(fx.api.get("/v1/me", child.json().path("token").asText()).status()).as("minted from it").isEqualTo(401);
        assertThat(fx.api.get("/v1/me", grandchild.json().path("token").asText()).status()).as("transitively")
                .isEqualTo(401);
        assertThat(fx.api.get("/v1/me", sibling.json().path("token").asText()).status()).as("minted by another token")
                .isEqualTo(200);
        assertThat(fx.api.get("/v1/me", "tok-member").status()).isEqualTo(200);
        String revoke = fx.api.get("/v1/audit", "tok-root").json().path("entries").get(0).toString();
        assertThat(revoke).contains("token.revoke", child.json().path("id").asText(),
                grandchild.json().path("id").asText());
    }

    @Test
    void givenAUserSignedIn_whenAnAdminDisablesIt_thenEveryTokenOfItStopsAtOnceUntilEnabledAgain() {
        Response minted = fx.api.post("/v1/users/member/tokens", "tok-member", "{}");
        String second = minted.json().path("token").asText();
        assertThat(fx.api.get("/v1/me", "tok-member").status()).as("now in the token cache").isEqualTo(200);
        assertThat(fx.api.get("/v1/me", second).status()).isEqualTo(200);
        assertThat(fx.api.put("/v1/users/member", "tok-mp", "{\"disabled\": true}").status()).as("admins only")
                .isEqualTo(403);

        Response disabled = fx.api.put("/v1/users/member", "tok-root", "{\"disabled\": true}");

        assertThat(disabled.status()).isEqualTo(200);
        assertThat(disabled.json().path("disabled").asBoolean()).isTrue();
        assertThat(disabled.json().path("role").asText()).as("kept").isEqualTo("user");
        for (String token : List.of("tok-member", second)) {
            Response r = fx.api.get("/v1/me", token);
            assertThat(r.status()).isEqualTo(401);
            assertThat(r.error()).contains("user 'member' is disabled");
            assertThat(r.json().path("hint").asText()).as("not 'send the header ...': the token is good")
                    .isEqualTo("ask an administrator to enable it: PUT /v1/users/member {\"disabled\": false}");
        }
        assertThat(fx.api.post("/v1/workloads", "tok-member", ApiFixture.body()).status()).isEqualTo(401);
        assertThat(fx.api.get("/v1/users", "tok-root").json().toString()).contains("{\"name\":\"member\",\"role\":\"user\","
                + "\"disabled\":true}");
        assertThat(auditActions("tok-root")).first().isEqualTo("user.put by root");

        assertThat(fx.api.put("/v1/users/member", "tok-root", "{\"disabled\": false}").status()).isEqualTo(200);
        assertThat(fx.api.get("/v1/me", "tok-member").status()).isEqualTo(200);
        assertThat(fx.api.put("/v1/users/member", "tok-root", "{\"disabled\": \"yes\"}").field()).isEqualTo("disabled");
    }

    @Test
    void givenOneAdmin_whenItDemotesOrDisablesItself_thenItIsRefusedWith409UntilThereIsAnother() {
        Response demote = fx.api.put("/v1/users/root", "tok-root", "{\"role\": \"user\"}");
        assertThat(demote.status()).isEqualTo(409);
        assertThat(demote.error()).contains("'root' is the last enabled administrator", "demoted");
        Response disable = fx.api.put("/v1/users/root", "tok-root", "{\"disabled\": true}");
        assertThat(disable.status()).isEqualTo(409);
        assertThat(disable.error()).contains("disabled");
        assertThat(fx.api.get("/v1/me", "tok-root").json().path("role").asText()).isEqualTo("admin");

        assertThat(fx.api.put("/v1/users/mp", "tok-root", "{\"role\": \"admin\", \"disabled\": true}").status())
                .isEqualTo(200);
        assertThat(fx.api.put("/v1/users/root", "tok-root", "{\"role\": \"user\"}").status())
                .as("a disabled admin does not count").isEqualTo(409);
        assertThat(fx.api.put("/v1/users/mp", "tok-root", "{\"disabled\": false}").status()).isEqualTo(200);
        assertThat(fx.api.put("/v1/users/root", "tok-root", "{\"role\": \"user\"}").status()).isEqualTo(200);
        assertThat(fx.api.get("/v1/me", "tok-root").json().path("role").asText()).as("demoted at once").isEqualTo("user");
        assertThat(fx.api.put("/v1/users/mp", "tok-mp", "{\"disabled\": true}").status()).as("the last one now")
                .isEqualTo(409);
    }

    @Test
    void givenAnAdmin_whenItRegistersResizesAndMarksNodes_thenTheAuditTrailNamesIt() {
        assertThat(fx.api.put("/v1/nodes/gpu-03", "tok-root", "{\"gpus\": 4}").status()).isEqualTo(201);
        assertThat(fx.api.put("/v1/nodes/gpu-03", "tok-root", "{\"gpus\": 2}").status()).isEqualTo(200);
        assertThat(fx.api.post("/v1/nodes/gpu-03/health", "tok-root", "{\"healthy\": false, \"reason\": \"fan\"}")
                .status()).isEqualTo(200);

        Response audit = fx.api.get("/v1/audit", "tok-root");
        List<String> rows = new ArrayList<>();
        audit.json().path("entries").forEach(e -> rows.add(e.path("action").asText() + " " + e.path("subject").asText()
                + " by " + e.path("actor").asText() + " " + e.path("after").path("gpus").asText() + " "
                + e.path("after").path("healthy").asText()));
        assertThat(rows).startsWith("node.health node:gpu-03 by root 2 false", "node.put node:gpu-03 by root 2 true",
                "node.put node:gpu-03 by root 4 true");
        assertThat(fx.api.get("/v1/audit", "tok-mp").json().toString()).as("admins only").doesNotContain("node.");
    }

    @Test
    void theDocumentTheServerServesDescribesTheAccessFields() {
        com.fasterxml.jackson.databind.JsonNode doc = fx.api.get("/v1/openapi.json", null).json();
        List<String> fields = new ArrayList<>();
        doc.path("paths").path("/v1/users/{name}").path("put").path("requestBody").path("content")
                .path("application/json").path("schema").path("properties").fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactlyInAnyOrderElementsOf(Edits.UserEdit.FIELDS);
        fields.clear();
        doc.path("paths").path("/v1/users/{name}/tokens").path("post").path("requestBody").path("content")
                .path("application/json").path("schema").path("properties").fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactlyInAnyOrderElementsOf(Edits.TokenRequest.FIELDS);
        fields.clear();
        doc.path("paths").path("/v1/token-policy").path("put").path("requestBody").path("content")
                .path("application/json").path("schema").path("properties").fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactlyInAnyOrderElementsOf(Edits.TokenPolicyEdit.FIELDS);
        assertThat(doc.path("info").path("description").asText()).contains("Tokens expire", "90d", "365d",
                "at least 7 days from the upgrade", "redacted", "system:node-sync");
    }
}
