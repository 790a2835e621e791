package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.api.ServiceHealth;
import dev.allot.server.store.User;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot queue} while the service cannot observe its backend (slurmctld down): the states it lists are the last
 * ones seen, and it says so under the table, from {@code /v1/health}'s {@code backend}, as {@code allot campaign status}
 * does under its shards; a campaign's researcher read them as live before.
 */
class QueueBackendNoticeTest {
    static final long SEEN = Instant.parse("2026-03-01T08:58:10Z").toEpochMilli();
    static final long FAILING = Instant.parse("2026-03-01T08:58:20Z").toEpochMilli();

    /** The service of a Slurm cluster whose controller has not answered for a minute and forty seconds. */
    @RegisterExtension
    final ApiServerExtension outage = ApiServerExtension.builder()
            .user("alice", User.Role.USER)
            .allocation("lab", 1, List.of(), List.of("alice"))
            .node("n1", 8, true, null)
            .health(new ServiceHealth() {
                @Override
                public Optional<Problem> problem() {
                    return Optional.empty();
                }

                @Override
                public Optional<BackendUnseen> backendUnseen(long nowMillis) {
                    return Optional.of(new BackendUnseen("slurm", "squeue: error: Socket timed out", SEEN, FAILING,
                            10));
                }
            })
            .build();

    @RegisterExtension
    final ApiServerExtension fine = ApiServerExtension.builder()
            .user("alice", User.Role.USER)
            .allocation("lab", 1, List.of(), List.of("alice"))
            .node("n1", 8, true, null)
            .build();

    @Test
    void givenSlurmUnreachableTheQueueSaysItsStatesAreTheLastSeenAndSinceWhen() throws Exception {
        outage.as("alice", "submit", "--allocation", "lab", "--gpus", "1", "--min-runtime", "10m", "--", "train.py");

        Cli.Result queue = outage.as("alice", "queue");

        assertThat(queue.exit()).as(queue.err()).isZero();
        assertThat(queue.out()).contains("w-1").endsWith("(the slurm backend has not answered since"
                + " 2026-03-01T08:58:10.000Z: 10 observations failed since 2026-03-01T08:58:20.000Z, the last with: squeue:"
                + " error: Socket timed out; running work is shown as last seen, and none of it is taken as ended"
                + " meanwhile)" + System.lineSeparator());
        JsonNode json = new ObjectMapper().readTree(outage.as("alice", "queue", "--json").out());
        assertThat(json.path("backend").path("failures").asLong()).isEqualTo(10);
    }

    @Test
    void givenSlurmUnreachableACampaignsStatusSaysItsShardsAreAsLastSeen(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("eval.yaml");
        Files.writeString(file, """
                name: eval
                allocation: lab
                command: [python, eval.py, --shard, "{shard}"]
                gpus: 1
                min-runtime: 1h
                protected-shards: 1
                seconds-per-unit: 30
                shards:
                  - units: 16
                """);
        Cli.Result submitted = outage.as("alice", "campaign", "submit", file.toString());
        assertThat(submitted.exit()).as(submitted.err()).isZero();

        Cli.Result status = outage.as("alice", "campaign", "status", "eval");

        assertThat(status.exit()).as(status.err()).isZero();
        assertThat(status.out()).startsWith("campaign eval (alice, lab)").endsWith("running work is shown as last"
                + " seen, and none of it is taken as ended meanwhile)" + System.lineSeparator());
        assertThat(new ObjectMapper().readTree(outage.as("alice", "campaign", "status", "eval", "--json").out())
                .has("backend")).as("--json is the campaign as the API gives it").isFalse();
    }

    @Test
    void givenABackendThatAnswersTheQueueSaysNothingOfIt() throws Exception {
        fine.as("alice", "submit", "--allocation", "lab", "--gpus", "1", "--min-runtime", "10m", "--", "train.py");

        Cli.Result queue = fine.as("alice", "queue");

        assertThat(queue.out()).contains("w-1").doesNotContain("has not answered", "last seen");
        assertThat(new ObjectMapper().readTree(fine.as("alice", "queue", "--json").out()).path("backend").isNull())
                .isTrue();
    }
}
