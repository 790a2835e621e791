package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.User;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Who may edit the budgets, as a table: each role against each action. The tree is {@link ApiFixture}'s, with one
 * more user, {@code lm}, made manager of the leaf L = X = {@code lab/nlp/pretrain}:
 *
 * <pre>
 * lab                      (no managers)
 * lab/nlp           = P    managed by mp
 * lab/nlp/pretrain  = L    managed by lm; members member, owner
 * lab/vision        = Q    managed by ms
 * lab/vision/detect        members ms-member
 * </pre>
 *
 * Updates write back the values the node already has, so every row starts from the same tree; creations and
 * removals use a node of the row's own. An allowed change must also be in the store and the audit trail with the
 * caller as actor; a refused one must have left no trace.
 */
class BudgetAuthorizationMatrixTest {
    static final int OK = 200;
    static final int CREATED = 201;
    static final int GONE = 204;
    static final int DENIED = 403;
    static final int NO_TOKEN = 401;

    static final String P = "lab/nlp";
    static final String Q_LEAF = "lab/vision/detect";

    @TempDir
    static Path dataDir;

    static ApiFixture api;

    @BeforeAll
    static void start() {
        api = new ApiFixture(dataDir);
        api.store.access().putUser(new User("lm", User.Role.USER));
        api.store.access().addToken("lm", "tok-lm", "test", ApiFixture.NOW.toEpochMilli());
        api.store.allocations().putAllocation(new Allocation(X, 1, List.of("lm"), List.of("member", "owner")), "root", 0);
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    static Stream<Arguments> matrix() {
        return Stream.of(
                //        role                          token           update leaf  update P  create child  delete leaf  update leaf  set node  read    read
                //                                                      inside P     itself    under P       inside P     inside Q     health    audit   usage
                arguments("admin",                      "tok-root",     OK,          OK,       CREATED,      GONE,        OK,          OK,       OK,     OK),
                arguments("manager of program P",       "tok-mp",       OK,          DENIED,   CREATED,      GONE,        DENIED,      DENIED,   OK,     OK),
                arguments("manager of sibling program Q", "tok-ms",     DENIED,      DENIED,   DENIED,       DENIED,      OK,          DENIED,   OK,     OK),
                arguments("manager of leaf L itself",   "tok-lm",       DENIED,      DENIED,   DENIED,       DENIED,      DENIED,      DENIED,   OK,     OK),
                arguments("member of L",                "tok-member",   DENIED,      DENIED,   DENIED,       DENIED,      DENIED,      DENIED,   DENIED, OK),
                arguments("non-member",                 "tok-outsider", DENIED,      DENIED,   DENIED,       DENIED,      DENIED,      DENIED,   DENIED, OK),
                arguments("no token",                   null,           NO_TOKEN,    NO_TOKEN, NO_TOKEN,     NO_TOKEN,    NO_TOKEN,    NO_TOKEN, NO_TOKEN, NO_TOKEN));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("matrix")
    void roleAgainstActions(String role, String token, int updateLeafInP, int updateP, int createChildUnderP,
                            int deleteLeafInP, int updateLeafInQ, int setHealth, int readAudit, int readUsage) {
        String child = P + "/new-" + role.replace(' ', '-');
        String victim = P + "/victim-" + role.replace(' ', '-');
        api.store.allocations().putAllocation(new Allocation(victim, 1, List.of(), List.of()), "seed", 0);

        check(role, "updates leaf L inside P", token, updateLeafInP,
                api.put("/v1/allocations/" + X, token, edit(1, "[\"lm\"]", "[\"member\", \"owner\"]")), X);
        check(role, "updates P itself", token, updateP, api.put("/v1/allocations/" + P, token, edit(2, "[\"mp\"]", "[]")), P);
        check(role, "creates a child under P", token, createChildUnderP,
                api.put("/v1/allocations/" + child, token, edit(1, "[]", "[]")), child);
        check(role, "deletes a leaf inside P", token, deleteLeafInP, api.delete("/v1/allocations/" + victim, token), victim);
        check(role, "updates a leaf inside Q", token, updateLeafInQ,
                api.put("/v1/allocations/" + Q_LEAF, token, edit(1, "[]", "[\"ms-member\"]")), Q_LEAF);
        check(role, "sets a node's health", token, setHealth,
                api.post("/v1/nodes/gpu-01/health", token, "{\"healthy\": true}"), null);
        check(role, "reads the audit trail", token, readAudit, api.get("/v1/audit", token), null);
        check(role, "reads usage", token, readUsage, api.get("/v1/allocations/usage?since=1d", token), null);

        assertThat(exists(child)).as("%s: the child exists exactly when its creation was allowed", role)
                .isEqualTo(createChildUnderP == CREATED);
        assertThat(exists(victim)).as("%s: the leaf is gone exactly when its removal was allowed", role)
                .isEqualTo(deleteLeafInP != GONE);
    }

    @Test
    void aManagerMayEditGrandchildrenButNotANodeOutsideTheirSubtreeEvenIfNamedAlike() {
        api.store.allocations().putAllocation(new Allocation("lab/nlp/pretrain/ablation", 1, List.of(), List.of()), "root", 0);
        api.store.allocations().putAllocation(new Allocation("lab/nlpx", 1, List.of(), List.of()), "root", 0);

        assertThat(api.put("/v1/allocations/lab/nlp/pretrain/ablation", "tok-mp", edit(5, "[]", "[]")).status())
                .as("a grandchild of P").isEqualTo(OK);
        assertThat(api.put("/v1/allocations/lab/nlp/pretrain/ablation", "tok-lm", edit(5, "[]", "[]")).status())
                .as("the manager of L may edit below L").isEqualTo(OK);
        assertThat(api.put("/v1/allocations/lab/nlpx", "tok-mp", edit(5, "[]", "[]")).status())
                .as("lab/nlpx is not inside lab/nlp").isEqualTo(DENIED);
        assertThat(api.put("/v1/allocations/lab", "tok-mp", edit(5, "[]", "[]")).status())
                .as("nor is the root").isEqualTo(DENIED);
        assertThat(api.put("/v1/allocations/newroot", "tok-mp", edit(1, "[]", "[]")).status())
                .as("only administrators create roots").isEqualTo(DENIED);
        assertThat(api.put("/v1/nodes/gpu-07", "tok-mp", "{\"gpus\": 8}").status())
                .as("only administrators register nodes").isEqualTo(DENIED);
        assertThat(api.put("/v1/nodes/gpu-07", null, "{\"gpus\": 8}").status()).isEqualTo(NO_TOKEN);
        api.store.allocations().removeAllocation("lab/nlp/pretrain/ablation", "root", 0);
        api.store.allocations().removeAllocation("lab/nlpx", "root", 0);
    }

    private static void check(String role, String action, String token, int expected, Response r, String subject) {
        assertThat(r.status()).as("%s %s: %s", role, action, r.json()).isEqualTo(expected);
        if (expected == DENIED || expected == NO_TOKEN) {
            assertThat(r.error()).as("%s %s is refused with a reason", role, action).isNotBlank();
        }
        if (subject != null) {
            boolean audited = api.store.allocations().audit(1).get(0).subject().equals(subject)
                    && api.store.allocations().audit(1).get(0).actor().equals(userOf(token));
            assertThat(audited).as("%s %s: audited with the caller as actor exactly when allowed", role, action)
                    .isEqualTo(expected < 300);
        }
    }

    private static String userOf(String token) {
        return token == null ? "" : token.substring("tok-".length());
    }

    private static boolean exists(String path) {
        return api.store.allocations().allocations().stream().anyMatch(a -> a.path().equals(path));
    }

    private static String edit(double share, String managers, String members) {
        return "{\"share\": " + share + ", \"managers\": " + managers + ", \"members\": " + members + "}";
    }
}
