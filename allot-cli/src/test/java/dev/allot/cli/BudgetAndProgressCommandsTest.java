package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.Launch;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code allot budget set}, {@code allot budget usage} and {@code allot progress} against a real API server, each test
 * on a fresh store (they change it): lab (share 1) > nlp (3, managed by mp) > pretrain (members alice, bob); vision.
 */
class BudgetAndProgressCommandsTest {
    static final Instant NOW = ApiServerExtension.NOW;

    @RegisterExtension
    final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("root", User.Role.ADMIN).user("mp", User.Role.USER).user("alice", User.Role.USER)
            .user("bob", User.Role.USER)
            .allocation("lab", 1, List.of(), List.of())
            .allocation("lab/nlp", 3, List.of("mp"), List.of())
            .allocation("lab/nlp/pretrain", 1, List.of(), List.of("alice", "bob"))
            .allocation("lab/vision", 1, List.of(), List.of())
            .node("gpu-01", 8, true, null)
            .build();

    Cli.Result as(String user, String... args) {
        return cluster.as(user, args);
    }

    @Test
    void aManagerCreatesAnAllocationInItsSubtreeAndChangesOnlyWhatItGives() {
        Cli.Result created = as("mp", "budget", "set", "lab/nlp/eval", "--share", "2", "--members", "bob");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(created.out()).isEqualTo("lab/nlp/eval: share 2, managers -, members bob (created: a new allocation"
                + " under lab/nlp; to undo: allot budget remove lab/nlp/eval)\n");

        Cli.Result changed = as("mp", "budget", "set", "lab/nlp/pretrain", "--share", "2.5");
        assertThat(changed.exit()).as(changed.err()).isZero();
        assertThat(changed.out()).isEqualTo("lab/nlp/pretrain: share 2.5, managers -, members alice, bob\n");
        assertThat(cluster.store().allocations().allocations()).contains(
                new Allocation("lab/nlp/eval", 2, List.of(), List.of("bob")),
                new Allocation("lab/nlp/pretrain", 2.5, List.of(), List.of("alice", "bob")));
        assertThat(cluster.store().allocations().audit(10)).hasSize(6);

        Cli.Result cleared = as("mp", "budget", "set", "lab/nlp/eval", "--members", "");
        assertThat(cleared.out()).isEqualTo("lab/nlp/eval: share 2, managers -, members -\n");
    }

    @Test
    void givenMembersRepeatedOrCommaSeparated_whenSettingABudget_thenBothGiveTheSameList() {
        Cli.Result repeated = as("mp", "budget", "set", "lab/nlp/eval", "--share", "1", "--members", "alice",
                "--members", "bob", "--managers", "mp");
        assertThat(repeated.exit()).as(repeated.err()).isZero();
        Cli.Result separated = as("mp", "budget", "set", "lab/nlp/eval2", "--share", "1", "--members", "alice,bob",
                "--managers", "mp");
        assertThat(separated.exit()).as(separated.err()).isZero();
        assertThat(cluster.store().allocations().allocations()).contains(
                new Allocation("lab/nlp/eval", 1, List.of("mp"), List.of("alice", "bob")),
                new Allocation("lab/nlp/eval2", 1, List.of("mp"), List.of("alice", "bob")));
    }

    @Test
    void givenAUserNameWithAComma_whenAnAdminMakesIt_thenItIsRefusedSoEveryUserCanBeGivenToMembers() {
        Cli.Result r = as("root", "user", "set", "smith,j", "--role", "user");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("expected " + dev.allot.core.rules.UserNames.EXPECTED + ", got 'smith,j'");
    }

    @Test
    void theRemoveHintOfANameWithABlankIsACommandThatRemovesIt() {
        // given a new allocation whose name holds a blank and a quote (names may)
        Cli.Result created = as("mp", "budget", "set", "lab/nlp/maria's eval", "--share", "1");
        assertThat(created.exit()).as(created.err()).isZero();

        // then the hint quotes it as one shell word
        assertThat(created.out()).endsWith("; to undo: allot budget remove 'lab/nlp/maria'\\''s eval')\n");

        // and the name it quotes removes it (ShellWordsTest: a shell reads the quoted word back as that name)
        Cli.Result removed = as("mp", "budget", "remove", "lab/nlp/maria's eval");
        assertThat(removed.exit()).as(removed.err()).isZero();
    }

    @Test
    void aMistypedPathIsSaidToBeNewAndIsRemovedAgain() {
        // given a typo for lab/nlp/pretrain, one level too deep: it would make pretrain a parent
        Cli.Result typo = as("mp", "budget", "set", "lab/nlp/pretrain/x", "--share", "2");

        // then the change says it created an allocation, that pretrain is no leaf now, and how to undo it
        assertThat(typo.exit()).as(typo.err()).isZero();
        assertThat(typo.out()).isEqualTo("lab/nlp/pretrain/x: share 2, managers -, members - (created: a new"
                + " allocation under lab/nlp/pretrain, which is no longer a leaf (no work can be submitted to it);"
                + " to undo: allot budget remove lab/nlp/pretrain/x)\n");

        // and remove takes it away, leaving the tree as it was; a second remove names what is missing
        Cli.Result removed = as("mp", "budget", "remove", "lab/nlp/pretrain/x");
        assertThat(removed.exit()).as(removed.err()).isZero();
        assertThat(removed.out()).isEqualTo("removed lab/nlp/pretrain/x\n");
        assertThat(cluster.store().allocations().allocations()).extracting(Allocation::path)
                .containsExactlyInAnyOrder("lab", "lab/nlp", "lab/nlp/pretrain", "lab/vision");
        Cli.Result again = as("mp", "budget", "remove", "lab/nlp/pretrain/x");
        assertThat(again.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(again.err()).startsWith("allot: no allocation 'lab/nlp/pretrain/x'");
    }

    @Test
    void removeRefusesAParentAWorkloadsAllocationAndAMemberAndChangesNothing() {
        // given pretrain with a waiting workload, nlp its parent, and alice a member only
        cluster.store().workloads().submit(NewWorkload.builder("lab/nlp/pretrain", "alice").gpus(1)
                .minRuntimeSeconds(600).submittedAtMillis(NOW.toEpochMilli()).build());

        Cli.Result parent = as("root", "budget", "remove", "lab/nlp");
        Cli.Result busy = as("root", "budget", "remove", "lab/nlp/pretrain");
        Cli.Result member = as("alice", "budget", "remove", "lab/vision");
        Cli.Result badPath = as("root", "budget", "remove", "lab//x");

        assertThat(parent.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(parent.err()).contains("has 1 child (lab/nlp/pretrain); remove them first");
        assertThat(busy.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(busy.err()).contains("has 1 workload not ended");
        assertThat(member.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(member.err()).contains("alice");
        assertThat(badPath.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(badPath.err()).startsWith("allot: PATH: ");
        assertThat(cluster.store().allocations().allocations()).hasSize(4);
    }

    @Test
    void aMemberMayNotEditAndABadShareIsNamed() {
        Cli.Result denied = as("alice", "budget", "set", "lab/nlp/pretrain", "--share", "9");
        assertThat(denied.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(denied.err()).startsWith("allot: ").contains("alice");
        Cli.Result outside = as("mp", "budget", "set", "lab/vision", "--share", "9");
        assertThat(outside.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        Cli.Result bad = as("root", "budget", "set", "lab/vision", "--share", "-1");
        assertThat(bad.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(bad.err()).isEqualTo("allot: --share: expected a finite number >= 0, the weight among its"
                + " siblings (e.g. 1 or 2.5), got -1\n");
        // a number too large for a double, or NaN: named as typed (it said "got Infinity"), before any request
        for (String typed : List.of("1e400", "-1e400", "NaN")) {
            Cli.Result huge = as("root", "budget", "set", "lab/vision", "--share", typed);
            assertThat(huge.exit()).as(typed).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(huge.err()).as(typed).isEqualTo("allot: --share: expected a finite number >= 0, the weight"
                    + " among its siblings (e.g. 1 or 2.5), got " + typed + (typed.equals("NaN") ? " (not a number)"
                    : " (beyond the largest number, about 1.8e308)") + "\n");
        }
        Cli.Result newAndBad = as("root", "budget", "set", "lab/x", "--share", "-1");
        assertThat(newAndBad.err()).isEqualTo(bad.err());
        assertThat(newAndBad.out()).isEmpty();
        assertThat(cluster.store().allocations().audit(10)).hasSize(4);
    }

    @Test
    void usageShowsEachNodeAgainstWhatItsEntitlementBuysAndStepByStep() {
        Workload w = cluster.store().workloads().submit(NewWorkload.builder("lab/nlp/pretrain", "alice").gpus(4)
                .minRuntimeSeconds(600).submittedAtMillis(NOW.toEpochMilli() - 7_200_000).build());
        cluster.store().attempts().beginAttempt(w.id(), List.of(new Launch.NodeGpus("gpu-01", List.of(0, 1, 2, 3))),
                NOW.toEpochMilli() - 3_600_000);

        Cli.Result r = as("bob", "budget", "usage", "--since", "2h", "--step", "1h");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("window 2026-03-01T07:00:00.000Z .. 2026-03-01T09:00:00.000Z, 8 GPUs");
        assertThat(lines.get(1)).startsWith("ALLOCATION").contains("ENTITLED", "RUN GPU-H", "RUN/ENTITLED");
        // it says what it counts, and that fair share charges more
        assertThat(r.out()).contains("(run: GPU-hours run in the window; fair share, as allot explain shows, charges"
                + " also the unrun part of running work's protected minimum runtimes)");
        // pretrain is entitled to 75% of 8 GPUs for 2 h = 12 GPU-hours and used 4
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("lab/nlp/pretrain +75\\.0% +4\\.00 +12\\.0 +33\\.3%"));
        assertThat(r.out()).contains("lab/nlp/pretrain by 1h:");
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("2026-03-01T08:00:00.000Z +4\\.00 +6\\.00 +66\\.7%"));
    }

    @Test
    void theOwnerReportsProgressAndAnotherMemberMayNot() {
        Workload w = cluster.store().workloads().submit(NewWorkload.builder("lab/nlp/pretrain", "alice").gpus(1)
                .submittedAtMillis(NOW.toEpochMilli()).build());
        Cli.Result ok = as("alice", "progress", w.id(), "1200", "10000");
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).isEqualTo(w.id() + ": 1200 of 10000\n");
        assertThat(cluster.store().workloads().workload(w.id()).orElseThrow().progressDone()).isEqualTo(1200);

        Cli.Result other = as("bob", "progress", w.id(), "1", "2");
        assertThat(other.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        Cli.Result backwards = as("alice", "progress", w.id(), "3", "2");
        assertThat(backwards.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(backwards.err()).contains("done");
    }
}
