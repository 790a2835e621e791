package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.AttemptReasons;
import dev.allot.server.testing.ForwardingBackend;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An attempt's reason keeps the backend's words, which may name what only the workload's command and environment hold
 * (its program's path, its declared {@code PATH}): its owner ({@code owner} of the fixture's lab), a manager above it
 * ({@code mp}) and an administrator ({@code root}) read them; any other signed-in user ({@code outsider}, the
 * allocation's plain {@code member}, the manager of a sibling subtree {@code ms}) reads the kind of end and a note that
 * the words are withheld, in the workload, its explanation and the timeline.
 *
 * <p>The stories: owner's two workloads run on the real local backend (the service's own account) and fail to start,
 * one because {@code train.sh} is on none of the directories of its declared {@code PATH}, the other because
 * {@code /home/alice/project-x/run.sh} does not exist; a backend refuses owner's start naming the script; owner's
 * attempt is preempted, the backend's words recorded with it.
 */
class LaunchFailureReasonApiTest {
    private static final String SECRET_PATH = "/home/alice/secret/bin:/usr/bin";
    private static final String SCRIPT = "/home/alice/project-x/run.sh";
    private static final List<String> MAY_SEE = List.of("owner", "mp", "root");
    private static final List<String> MAY_NOT_SEE = List.of("outsider", "member", "ms");

    @RegisterExtension
    final LoopApiExtension fx = new LoopApiExtension();
    private ApiFixture api;

    /** The fixture's lab with a scheduling loop over the local backend on gpu-01, as the service's own account. */
    private void onTheLocalBackend() {
        api = fx.onTheLocalBackend();
    }

    private String submitAsOwner(String command, String environment) {
        Response r = api.submit("owner", body("gpus", "1", "gpusPerNode", "0", "resumable", "false",
                "command", command, "environment", environment));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private JsonNode read(String path, String user) {
        Response r = api.get(path, "tok-" + user);
        assertThat(r.status()).as("%s as %s: %s", path, user, r.json()).isEqualTo(200);
        return r.json();
    }

    @Test
    void givenOwnersProgramsAreMissing_whenOthersReadTheWorkloadOrTheTimeline_thenTheySeeNoPathNorPathValue() {
        // given owner's two workloads whose programs cannot be found, each tried once and failed to start
        onTheLocalBackend();
        String onPath = submitAsOwner("[\"train.sh\", \"--lr\", \"3e-4\"]", "{\"PATH\": \"" + SECRET_PATH + "\"}");
        String absolute = submitAsOwner("[\"" + SCRIPT + "\"]", "{}");
        api.loop.runOnce();
        fx.clock.advance(Duration.ofMinutes(1));
        api.loop.runOnce();

        for (String user : MAY_NOT_SEE) {
            // when another user reads them
            JsonNode first = read("/v1/workloads/" + onPath, user);
            JsonNode second = read("/v1/workloads/" + absolute, user);
            // then each says it failed to start, and that the backend's words are withheld, naming no path
            assertThat(first.path("attempts").get(0).path("outcome").asText()).isEqualTo("failed");
            assertThat(first.path("attempts").get(0).path("reason").asText()).as(user)
                    .isEqualTo("failed to start (" + AttemptReasons.DETAIL_WITHHELD + ")");
            assertThat(second.path("attempts").get(0).path("reason").asText()).as(user)
                    .isEqualTo("failed to start (" + AttemptReasons.DETAIL_WITHHELD + ")");
            String everything = first.toString() + second + read("/v1/workloads/" + onPath + "/explain", user)
                    + read("/v1/workloads/" + absolute + "/explain", user) + read("/v1/timeline", user);
            assertThat(everything).as(user).doesNotContain("/home/alice").doesNotContain("secret")
                    .doesNotContain("train.sh").doesNotContain("run.sh");
        }
        for (String user : MAY_SEE) {
            // and whoever may see the workloads' details reads the backend's words in full
            assertThat(read("/v1/workloads/" + onPath, user).path("attempts").get(0).path("reason").asText()).as(user)
                    .isEqualTo("failed to start (train.sh: command not found (No such file or directory in PATH="
                            + SECRET_PATH + "))");
            assertThat(read("/v1/workloads/" + absolute, user).path("attempts").get(0).path("reason").asText())
                    .as(user).isEqualTo("failed to start (" + SCRIPT + ": No such file or directory)");
            assertThat(read("/v1/timeline", user).path("notes").toString()).as(user)
                    .contains("PATH=" + SECRET_PATH).contains(SCRIPT + ": No such file or directory");
        }
    }

    @Test
    void givenOwnersProgramIsMissing_whenOwnerAsksWhy_thenTheExplanationSaysItFailedToStartAndWhy_withheldFromOthers() {
        // given owner's workload whose program is on none of its declared PATH's directories, tried once and failed
        onTheLocalBackend();
        String id = submitAsOwner("[\"train.sh\"]", "{\"PATH\": \"" + SECRET_PATH + "\"}");
        api.loop.runOnce();
        fx.clock.advance(Duration.ofMinutes(1));
        api.loop.runOnce();

        for (String user : MAY_SEE) {
            // when whoever may see its details asks why (allot explain)
            List<String> summary = summaryOf(read("/v1/workloads/" + id + "/explain", user));
            // then it says the attempt failed, and why, in the backend's words: it said only "it no longer waits"
            assertThat(summary).as(user).anySatisfy(s -> assertThat(s).startsWith("Attempt 1 failed at ")
                    .endsWith(": failed to start (train.sh: command not found (No such file or directory in PATH="
                            + SECRET_PATH + "))."));
        }
        for (String user : MAY_NOT_SEE) {
            // and everyone else reads that it failed to start, the backend's words withheld
            List<String> summary = summaryOf(read("/v1/workloads/" + id + "/explain", user));
            assertThat(summary).as(user).anySatisfy(s -> assertThat(s).startsWith("Attempt 1 failed at ")
                    .endsWith(": failed to start (" + AttemptReasons.DETAIL_WITHHELD + ")."));
            assertThat(summary.toString()).as(user).doesNotContain("train.sh").doesNotContain("secret");
        }
    }

    private static List<String> summaryOf(JsonNode explanation) {
        List<String> out = new java.util.ArrayList<>();
        explanation.path("summary").forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void givenTheBackendRefusesOwnersStartNamingTheScript_whenOthersReadTheWorkload_thenTheySeeOnlyThatItWasRefused() {
        // given a backend that refuses every start in words naming the script (as Slurm's sbatch does)
        api = fx.with(RefusesEveryStart::new);
        String id = submitAsOwner("[\"" + SCRIPT + "\"]", "{}");
        api.loop.runOnce();

        for (String user : MAY_NOT_SEE) {
            // when another user reads the workload and the timeline
            JsonNode w = read("/v1/workloads/" + id, user);
            // then it says the backend refused it, and nothing of the script
            assertThat(w.path("attempts").get(0).path("reason").asText()).as(user)
                    .isEqualTo("the simulated backend refused it (" + AttemptReasons.DETAIL_WITHHELD + ")");
            assertThat(w.toString() + read("/v1/timeline", user)).as(user).doesNotContain("/home/alice")
                    .doesNotContain("sbatch");
        }
        for (String user : MAY_SEE) {
            assertThat(read("/v1/workloads/" + id, user).path("attempts").get(0).path("reason").asText()).as(user)
                    .isEqualTo("the simulated backend refused it (sbatch: error: Unable to open file " + SCRIPT + ")");
        }
    }

    /** The simulated backend, refusing every start as sbatch refuses a script it cannot open. */
    private static final class RefusesEveryStart extends ForwardingBackend {
        RefusesEveryStart(Backend simulated) {
            super(simulated);
        }

        @Override
        public void start(Launch launch) {
            throw new BackendException("sbatch: error: Unable to open file " + launch.command().get(0));
        }
    }

    @Test
    void givenOwnersAttemptWasPreemptedWithTheBackendsWords_whenOthersReadItsExplanation_thenTheWordsAreWithheld() {
        // given owner's attempt, preempted before its start was confirmed, with the backend's words recorded apart
        // (as the loop records them: an sbatch error naming the script)
        api = fx.api; // its loop is never run: the attempt is written to the store as the loop would
        String id = submitAsOwner("[\"" + SCRIPT + "\"]", "{}");
        AttemptKey key = api.store.attempts().beginAttempt(id, List.of(new Launch.NodeGpus("gpu-01", List.of(0))),
                ApiFixture.NOW.toEpochMilli() - 60_000);
        api.store.attempts().endAttempt(key, AttemptOutcome.REQUEUED, "preempted to make room for w-9",
                "sbatch: error: Unable to open file " + SCRIPT, "w-9", 0.0, ApiFixture.NOW.toEpochMilli() - 1_000);

        for (String user : MAY_NOT_SEE) {
            // when another user reads its explanation
            JsonNode e = read("/v1/workloads/" + id + "/explain", user);
            // then the preemption is told with the scheduler's words only
            assertThat(e.path("data").path("preemptions").get(0).path("reason").asText()).as(user)
                    .isEqualTo("preempted to make room for w-9 (" + AttemptReasons.DETAIL_WITHHELD + ")");
            assertThat(e.toString()).as(user).doesNotContain("/home/alice").doesNotContain("sbatch");
        }
        for (String user : MAY_SEE) {
            JsonNode e = read("/v1/workloads/" + id + "/explain", user);
            assertThat(e.path("data").path("preemptions").get(0).path("reason").asText()).as(user)
                    .isEqualTo("preempted to make room for w-9 (sbatch: error: Unable to open file " + SCRIPT + ")");
            assertThat(e.path("summary").toString()).as(user).contains("Unable to open file " + SCRIPT);
        }
    }
}
