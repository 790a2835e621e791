package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.store.Allocation;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot explain} against a real API server whose explanations come from a real scheduling loop (simulated
 * backend, a fixed clock, cycles run by hand). One 8-GPU node; lab/vision's workload runs protected for 1h, then
 * alice's workload of lab/nlp/pretrain waits for that protection to end.
 */
class ExplainCommandTest {
    static final String X = "lab/nlp/pretrain";

    @TempDir
    static Path dataDir;

    static LoopApi api;
    static String running;
    static String waiting;

    @BeforeAll
    static void start() {
        api = LoopApi.start(dataDir, List.of("alice"), store -> {
            long t = LoopApi.NOW.toEpochMilli();
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation("lab/nlp", 3, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation(X, 1, List.of(), List.of("alice")), "root", t);
            store.allocations().putAllocation(new Allocation("lab/vision", 1, List.of(), List.of()), "root", t);
        });
        running = submit("root", "lab/vision", "1h");
        api.loop.runOnce();
        waiting = submit("alice", X, "2h");
        api.loop.runOnce();
    }

    @AfterAll
    static void stop() {
        if (api != null) {
            api.close();
        }
    }

    static Cli.Result as(String user, String... args) {
        return api.as(user, args);
    }

    static String submit(String user, String allocation, String minRuntime) {
        return api.submit(user, "--allocation", allocation, "--gpus", "8", "--min-runtime", minRuntime, "--duration",
                "1d", "--resumable", "--", "train.py");
    }

    @Test
    void explainPrintsThePlainWordsAndTheFairShareLevels() {
        Cli.Result r = as("alice", "explain", waiting);

        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("workload " + waiting + " (pending, " + X + ")");
        assertThat(lines.get(1)).isEqualTo("  " + waiting + " waits: 1st of 1 waiting; 1st of 1 in " + X + ".");
        // under the default ranking=entitlement, X (3/4 of 8 GPUs: a quota of 6) is owed; lab/vision holds 8 of 2
        assertThat(r.out()).contains("  Right now " + X + " holds 0 GPUs of its quota of 6 (entitlement 75% x 8 healthy"
                + " GPUs): it is owed GPUs, so its waiting work goes first and may reclaim from allocations holding at"
                + " least 1.1 x their quota, down to their quota; from those it is ahead of on the lookback window it may take"
                + " more, below their quota, while it would stand no higher than they do (taking turns).");
        assertThat(r.out()).contains("the protection of " + running + " (lab/vision, 8 GPUs) ends at"
                + " 2026-03-01T10:00:00.000Z (in 1h), after which it may preempt them if the rules still allow it then (its"
                + " allocation holds 0 of its quota of 6 GPUs; lab/vision holds 8 of its quota of 2).");
        int standings = lines.indexOf("standing now (ranking=entitlement, reclaim from allocations holding at least 1.10"
                + " x their quota):");
        assertThat(standings).as(r.out()).isPositive();
        assertThat(lines.get(standings + 1)).startsWith("  ALLOCATION").contains("HELD GPUS", "QUOTA GPUS", "HELD/QUOTA",
                "OWED");
        assertThat(lines.get(standings + 2).split(" +")).containsExactly("", X, "0", "6.00", "0", "yes");
        assertThat(lines.get(standings + 3).split(" +")).containsExactly("", "lab/vision", "8", "2.00", "4.00", "no");
        int header = lines.indexOf("fair share:");
        assertThat(header).isPositive();
        assertThat(lines.get(header + 1)).startsWith("  LEVEL").contains("RUN GPU-H", "COMMITTED GPU-H", "ENTITLEMENT", "BUYS GPU-H",
                "CHARGED/BUYS", "RANK");
        assertThat(lines.get(header + 2)).startsWith("  lab ").contains(" 0.00595 ").endsWith("1/1");
        assertThat(lines.get(header + 3)).startsWith("  lab/nlp ").contains(" 0 ", "0.750").endsWith("1/2");
        assertThat(lines.get(header + 4)).startsWith("  " + X + " ").endsWith("1/1");
    }

    @Test
    void explainOfRunningWorkSaysUntilWhenItIsProtected() {
        Cli.Result r = as("alice", "explain", running);

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("(running, lab/vision)", "It is protected by its 1h minimum runtime until"
                + " 2026-03-01T10:00:00.000Z (in 1h)", "may preempt it once its protection ends, if the rules then still allow it: " + waiting);
    }

    @Test
    void jsonPrintsTheServersAnswer() throws Exception {
        Cli.Result r = as("alice", "explain", waiting, "--json");

        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode answer = new ObjectMapper().readTree(r.out());
        assertThat(answer.path("id").asText()).isEqualTo(waiting);
        assertThat(answer.path("data").path("waitsFor").path("kind").asText()).isEqualTo("protected-until");
        assertThat(answer.path("data").path("queue").path("position").asInt()).isEqualTo(1);
    }

    @Test
    void anUnknownIdIsAnError() {
        Cli.Result r = as("alice", "explain", "w-999");

        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("allot: ").contains("no workload 'w-999'");
    }

    @Test
    void aMinimumRuntimeAboveTheCapIsSaidToBeCappedAtSubmissionInShowQueueAndExplain() {
        // given alice asks for a 9h minimum runtime, over the scheduler's 8h cap
        Cli.Result submitted = as("alice", "submit", "--allocation", X, "--gpus", "8", "--min-runtime", "9h",
                "--duration", "1d", "--", "train.py");
        assertThat(submitted.exit()).as(submitted.err()).isZero();
        String id = submitted.out().substring("submitted ".length(), submitted.out().indexOf(' ', "submitted ".length()));

        // then submit notes the cap, show and queue show the 8h that applies and that it was capped, explain says so
        assertThat(submitted.out()).contains("note: the minimum runtime is capped at 8h (the scheduler's maximum);"
                + " 9h was asked");
        assertThat(as("alice", "show", id).out()).containsPattern("min runtime +8h \\(capped from 9h\\): the"
                + " scheduler's maximum");
        assertThat(as("alice", "queue").out().lines().filter(l -> l.startsWith(id + " ")).findFirst().orElseThrow())
                .contains("8h (capped from 9h)");
        assertThat(as("alice", "explain", id).out()).contains("The minimum runtime is capped at 8h (the scheduler's"
                + " maximum); 9h was asked.");
    }
}
