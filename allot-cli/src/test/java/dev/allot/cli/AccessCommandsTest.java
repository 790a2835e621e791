package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code allot token list|create|revoke|policy} and {@code allot user list|set|disable|enable}, against a real API
 * on a fixed clock; and {@code allot show} hiding another user's command and environment.
 */
class AccessCommandsTest {
    static final Instant NOW = ApiServerExtension.NOW;

    @RegisterExtension
    final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("root", User.Role.ADMIN).user("alice", User.Role.USER).user("bob", User.Role.USER)
            .allocation("lab", 1, List.of(), List.of("alice", "bob"))
            .node("gpu-01", 8, true, null)
            .build();

    Cli.Result as(String token, String... args) {
        return cluster.withToken(token, args);
    }

    @Test
    void givenAUser_whenItMakesListsAndRevokesTokens_thenEachShowsWhenItExpires() {
        Cli.Result created = as("tok-alice", "token", "create", "--label", "laptop", "--lifetime", "10d");
        assertThat(created.exit()).as(created.err()).isZero();
        String token = created.out().lines().findFirst().orElseThrow();
        assertThat(token).startsWith("allot_");
        assertThat(created.out()).contains("expires: 2026-03-11T09:00:00.000Z", "user:    alice");

        Cli.Result minted = as(token, "token", "create", "--label", "job", "--lifetime", "300d");
        assertThat(minted.exit()).as(minted.err()).isZero();
        assertThat(minted.out()).as("never outlives the token it was made with")
                .contains("expires: 2026-03-11T09:00:00.000Z (capped: a token never outlives the token it was made with,"
                        + " which expires then; the lifetime would have ended 2026-12-26T09:00:00.000Z)");
        assertThat(created.out()).as("not capped: nothing said").doesNotContain("capped");

        Cli.Result listed = as("tok-alice", "token", "list");
        assertThat(listed.exit()).as(listed.err()).isZero();
        assertThat(listed.out()).contains("EXPIRES", "laptop", "2026-03-11T09:00:00.000Z", "valid",
                "2026-05-30T09:00:00.000Z"); // the seeded token: the default 90 days
        String id = listed.out().lines().filter(l -> l.contains("laptop")).findFirst().orElseThrow().split(" ")[0];

        Cli.Result tooLong = as("tok-alice", "token", "create", "--lifetime", "400d");
        assertThat(tooLong.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(tooLong.err()).startsWith("allot: ").contains("lifetime", "365d");

        Cli.Result revoked = as("tok-alice", "token", "revoke", id.substring(0, 10));
        assertThat(revoked.exit()).as(revoked.err()).isZero();
        assertThat(revoked.out()).contains("revoked " + id);
        Cli.Result after = as(token, "token", "list");
        assertThat(after.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(after.err()).contains("unknown or revoked token");
        assertThat(as("tok-alice", "token", "list").out()).doesNotContain("laptop", "job");

        Cli.Result others = as("tok-alice", "token", "list", "--user", "bob");
        assertThat(others.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(as("tok-root", "token", "list", "--user", "bob").out()).contains("test");
        assertThat(as("tok-alice", "token", "revoke", "ffff").err()).contains("no token of 'alice'");
    }

    @Test
    void givenAnAdminThatMadeATokenForBob_whenItRevokesItByIdWithoutUser_thenTheErrorPointsAtUserAndWithItTheTokenGoes() {
        Cli.Result made = as("tok-root", "token", "create", "--user", "bob", "--label", "for-bob");
        assertThat(made.exit()).as(made.err()).isZero();
        String id = made.out().lines().filter(l -> l.startsWith("id:")).findFirst().orElseThrow().substring(3).strip();

        Cli.Result mine = as("tok-root", "token", "revoke", id);
        assertThat(mine.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(mine.err()).contains("no token of 'root'", "another user's token: allot token revoke --user NAME "
                + id);

        Cli.Result bobs = as("tok-root", "token", "revoke", "--user", "bob", id);
        assertThat(bobs.exit()).as(bobs.err()).isZero();
        assertThat(bobs.out()).contains("revoked " + id);
        assertThat(as("tok-root", "token", "revoke", "--user", "bob", id).err())
                .contains("no token of 'bob'", "'allot token list --user bob' shows them");
    }

    @Test
    void givenAnAdmin_whenItSetsThePolicyAndDisablesAndEnablesAUser_thenTheUserStopsAndStartsAtOnce() {
        assertThat(as("tok-alice", "token", "policy").out()).isEqualTo("default lifetime: 90d\nmaximum lifetime: 365d\n");
        Cli.Result policy = as("tok-root", "token", "policy", "--max", "30d", "--default", "7d");
        assertThat(policy.exit()).as(policy.err()).isZero();
        assertThat(policy.out()).isEqualTo("default lifetime: 7d\nmaximum lifetime: 30d\n");
        assertThat(as("tok-alice", "token", "policy", "--max", "1000d").exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);

        Cli.Result made = as("tok-root", "user", "set", "carol", "--role", "user");
        assertThat(made.exit()).as(made.err()).isZero();
        assertThat(made.out()).isEqualTo("carol  user  enabled\n");
        Cli.Result disabled = as("tok-root", "user", "disable", "bob");
        assertThat(disabled.out()).isEqualTo("bob  user  disabled\n");
        assertThat(as("tok-bob", "queue").err()).contains("user 'bob' is disabled");
        Cli.Result users = as("tok-root", "user", "list");
        assertThat(users.out()).contains("NAME   ROLE   STATUS", "bob    user   disabled", "root   admin  enabled");
        assertThat(as("tok-alice", "user", "list").out()).as("others see themselves").contains("alice")
                .doesNotContain("bob");

        Cli.Result nobody = as("tok-root", "user", "disable", "nosuch");
        assertThat(nobody.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(nobody.err()).as("it said: field 'role': missing: a new user needs a role")
                .isEqualTo("allot: no user 'nosuch' to disable (hint: 'allot user list' lists them; a new user needs a"
                        + " role)\n");

        Cli.Result lastAdmin = as("tok-root", "user", "disable", "root");
        assertThat(lastAdmin.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(lastAdmin.err()).contains("last enabled administrator");
        assertThat(as("tok-root", "user", "enable", "bob").out()).isEqualTo("bob  user  enabled\n");
        assertThat(as("tok-bob", "queue").exit()).isZero();
    }

    @Test
    void givenATokenLabelTooLong_whenATokenIsCreated_thenTheErrorSaysItsLengthAndTheLimit() {
        // it ended "got a string", as if a label were not one
        Cli.Result r = as("tok-alice", "token", "create", "--label", "x".repeat(300));

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --label: expected a string of at most 256 characters, got one of"
                + " 300 characters (hint: e.g. \"laptop\" or \"ci\")\n");
    }

    @Test
    void givenADisabledUser_whenItRunsACommand_thenItIsToldItIsDisabledAndThatAnAdministratorEnablesIt() {
        // it was told "give your token with --token TOKEN ...", as if its token were missing or wrong
        as("tok-root", "user", "disable", "bob");

        Cli.Result r = as("tok-bob", "queue");

        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).isEqualTo("allot: user 'bob' is disabled: its tokens are refused until an administrator"
                + " enables it again (hint: ask an administrator to enable it: 'allot user enable bob')\n");
    }

    @Test
    void givenAUser_whenEnabledOrDisabledOrSet_thenEachPrintsItsStatusInTheWordsOfUserList() {
        // enable printed "bob  user", no status, where disable printed "bob  user  disabled"
        assertThat(as("tok-root", "user", "disable", "bob").out()).isEqualTo("bob  user  disabled\n");
        assertThat(as("tok-root", "user", "enable", "bob").out()).isEqualTo("bob  user  enabled\n");
        assertThat(as("tok-root", "user", "set", "bob", "--role", "admin").out()).isEqualTo("bob  admin  enabled\n");
        assertThat(as("tok-root", "user", "list").out()).contains("bob    admin  enabled");
    }

    @Test
    void givenAnotherUsersWorkload_whenShown_thenItsCommandAndEnvironmentAreHidden() {
        Workload w = cluster.store().workloads().submit(NewWorkload.builder("lab", "alice").gpus(1)
                .command(List.of("train.py", "--key=sk-123")).environment(new java.util.TreeMap<>(Map.of("SECRET", "s3")))
                .submittedAtMillis(NOW.toEpochMilli()).build());
        Cli.Result own = as("tok-alice", "show", "--show-secrets", w.id());
        assertThat(own.out()).contains("--key=sk-123", "SECRET=s3");
        Cli.Result other = as("tok-bob", "show", w.id());
        assertThat(other.exit()).as(other.err()).isZero();
        assertThat(other.out()).contains("user", "alice", "(hidden: only its submitter").doesNotContain("sk-123", "s3");
        assertThat(as("tok-root", "show", "--show-secrets", w.id()).out()).contains("--key=sk-123");
    }

    @Test
    void givenAWorkloadWhoseScriptReportsWithAToken_whenItsSubmitterShowsIt_thenTheTokenIsMaskedUnlessAskedForWhole() {
        // 'allot show' printed ALLOT_TOKEN=allot_... whole on the submitter's terminal, and a --token in the command
        String token = "allot_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
        Workload w = cluster.store().workloads().submit(NewWorkload.builder("lab", "alice").gpus(1)
                .command(List.of("report.sh", "--password=hunter2", "Authorization: Bearer " + token, "--epochs=3"))
                .environment(new java.util.TreeMap<>(Map.of("ALLOT_TOKEN", token, "WANDB_API_KEY", "0123456789abcdef0123",
                        "SEED", "7")))
                .submittedAtMillis(NOW.toEpochMilli()).build());

        Cli.Result shown = as("tok-alice", "show", w.id());

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(shown.out()).doesNotContain(token, "hunter2", "0123456789abcdef0123")
                .contains("ALLOT_TOKEN=allo...[38 chars]", "WANDB_API_KEY=0123...[20 chars]", "SEED=7",
                        "--password=...[7 chars]", "'Authorization: Bearer allo...[38 chars]'", "--epochs=3",
                        "secrets      masked (--show-secrets prints them whole)");
        Cli.Result whole = as("tok-alice", "show", "--show-secrets", w.id());
        assertThat(whole.out()).contains("ALLOT_TOKEN=" + token, "--password=hunter2", "WANDB_API_KEY=0123456789abcdef0123")
                .doesNotContain("masked");
    }

    @Test
    void givenAWorkloadWithSecrets_whenItsSubmitterAsksForJson_thenTheSecretsAreMaskedAsInTheTextUnlessAskedForWhole() {
        // 'allot show --json' and 'allot queue --json' printed ALLOT_TOKEN and --password= whole, where 'allot show'
        // masked them
        String token = "allot_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
        Workload w = cluster.store().workloads().submit(NewWorkload.builder("lab", "alice").gpus(1)
                .command(List.of("report.sh", "--password=hunter2", "--epochs=3"))
                .environment(new java.util.TreeMap<>(Map.of("ALLOT_TOKEN", token, "SEED", "7")))
                .submittedAtMillis(NOW.toEpochMilli()).build());

        Cli.Result shown = as("tok-alice", "show", "--json", w.id());
        Cli.Result queue = as("tok-alice", "queue", "--json");

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(queue.exit()).as(queue.err()).isZero();
        for (Cli.Result r : List.of(shown, queue)) {
            assertThat(r.out()).doesNotContain(token, "hunter2")
                    .contains("\"ALLOT_TOKEN\" : \"allo...[38 chars]\"", "\"SEED\" : \"7\"",
                            "[ \"report.sh\", \"--password=...[7 chars]\", \"--epochs=3\" ]");
        }
        Cli.Result whole = as("tok-alice", "show", "--json", "--show-secrets", w.id());
        assertThat(whole.out()).contains("\"ALLOT_TOKEN\" : \"" + token + "\"", "\"--password=hunter2\"");
    }
}
