package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.Launch;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.BrakeLimits;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code allot brakes show|set} and how {@code allot queue}, {@code allot show} and {@code allot explain} show a held
 * workload.
 */
class BrakesCommandTest {
    static final Instant NOW = ApiServerExtension.NOW;

    @RegisterExtension
    final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("root", User.Role.ADMIN).user("alice", User.Role.USER)
            .allocation("lab", 1, List.of(), List.of("alice"))
            .node("gpu-01", 8, true, null)
            .build();

    Cli.Result as(String user, String... args) {
        return cluster.as(user, args);
    }

    @Test
    void anAdministratorSetsOneLimitAtATimeAndAnyoneReadsThem() {
        Cli.Result shown = as("alice", "brakes", "show");
        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(shown.out()).isEqualTo("max requeues:               20\nmax GPU-hours per workload: none\n");

        Cli.Result capped = as("root", "brakes", "set", "--max-gpu-hours", "250.5");
        assertThat(capped.exit()).as(capped.err()).isZero();
        assertThat(cluster.store().settings().brakes()).isEqualTo(new BrakeLimits(20, 250.5));
        Cli.Result raised = as("root", "brakes", "set", "--max-requeues", "30");
        assertThat(raised.out()).isEqualTo("max requeues:               30\nmax GPU-hours per workload: 250.5\n");
        Cli.Result cleared = as("root", "brakes", "set", "--max-gpu-hours", "none");
        assertThat(cleared.exit()).as(cleared.err()).isZero();
        assertThat(cluster.store().settings().brakes()).isEqualTo(new BrakeLimits(30, null));

        Cli.Result denied = as("alice", "brakes", "set", "--max-requeues", "99");
        assertThat(denied.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(denied.err()).startsWith("allot: ").contains("may not change the brakes");
        Cli.Result negative = as("root", "brakes", "set", "--max-requeues", "-1");
        assertThat(negative.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(negative.err()).startsWith("allot: --max-requeues: expected a whole number").doesNotContain("field");
        Cli.Result word = as("root", "brakes", "set", "--max-gpu-hours", "lots");
        assertThat(word.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(word.err()).contains("--max-gpu-hours");
        // a number beyond a double read as Infinity and went to the server as the string "Infinity", which it named
        for (String typed : List.of("1e400", "-1e400", "NaN")) {
            Cli.Result huge = as("root", "brakes", "set", "--max-gpu-hours", typed);
            assertThat(huge.exit()).as(typed).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(huge.err()).as(typed).isEqualTo("allot: --max-gpu-hours: expected a finite number of GPU-hours"
                    + " >= 0, or none, got " + typed + (typed.equals("NaN") ? " (not a number)"
                    : " (beyond the largest number, about 1.8e308)") + "\n");
        }
        // a negative cap is the server's to refuse; it named the double the client sent, "got a number (-1.0)"
        for (String typed : List.of("-1", "-0.5")) {
            Cli.Result out = as("root", "brakes", "set", "--max-gpu-hours", typed);
            assertThat(out.exit()).as(typed).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(out.err()).as(typed).startsWith("allot: --max-gpu-hours: expected a number from 0 to"
                    + " 1000000000000 or null, got " + typed + " (hint: ");
        }
        Cli.Result nothing = as("root", "brakes", "set");
        assertThat(nothing.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(cluster.store().settings().brakes()).isEqualTo(new BrakeLimits(30, null));
    }

    @Test
    void queueShowAndExplainSayAWorkloadIsHeldAndWhy() {
        Workload w = cluster.store().workloads().submit(NewWorkload.builder("lab", "alice").gpus(8).resumable(true)
                .command(List.of("train.py")).submittedAtMillis(NOW.toEpochMilli()).build());
        cluster.store().attempts().endAttempt(cluster.store().attempts().beginAttempt(w.id(),
                List.of(new Launch.NodeGpus("gpu-01", List.of(0, 1, 2, 3, 4, 5, 6, 7))), NOW.toEpochMilli()),
                AttemptOutcome.LOST, "node died", null, null, NOW.toEpochMilli());
        String reason = "held: requeued 1 time, more than the limit of 0 (brakes.maxRequeues); raise it to release";
        cluster.store().workloads().setHeld(w.id(), reason);

        Cli.Result queue = as("alice", "queue");
        assertThat(queue.exit()).as(queue.err()).isZero();
        assertThat(queue.out()).contains("held (requeued)");
        Cli.Result show = as("alice", "show", w.id());
        assertThat(show.exit()).as(show.err()).isZero();
        assertThat(show.out()).contains("held (requeued)").contains(reason);
        // The explanation points to the commands that show and change the limits, not to the REST API's requests.
        Cli.Result explain = as("alice", "explain", w.id());
        assertThat(explain.exit()).as(explain.err()).isZero();
        assertThat(explain.out()).contains(reason)
                .contains("('allot brakes show' shows the limits; an administrator changes them with 'allot brakes set')")
                .doesNotContain("/v1/");
    }
}
