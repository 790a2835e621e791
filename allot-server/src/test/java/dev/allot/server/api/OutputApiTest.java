package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.api.ApiFixture.Response;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/workloads/{id}/output} ({@code allot logs}): owner's workload runs as a process on the real local
 * backend and prints lines; its owner, a manager above it ({@code mp}) and an administrator ({@code root}) read them,
 * the end of them with {@code tailBytes}; any other user ({@code outsider}, the allocation's plain {@code member}, the
 * manager of a sibling subtree {@code ms}) is refused, as the workload's command and environment are withheld from
 * them. Before, the output was only in the service's data directory, which only the service's account can read.
 */
class OutputApiTest {
    private static final List<String> MAY_READ = List.of("owner", "mp", "root");
    private static final List<String> MAY_NOT_READ = List.of("outsider", "member", "ms");

    @RegisterExtension
    final LoopApiExtension fx = new LoopApiExtension();
    private ApiFixture api;

    private static void waitUntil(BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 20 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private String submitAsOwner(String command) {
        Response r = api.submit("owner", body("gpus", "1", "gpusPerNode", "0", "resumable", "false",
                "command", command));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    @Test
    void givenOwnersWorkloadPrintedLines_thenWhoMaySeeItsDetailsReadsThemAndNoOneElse() throws Exception {
        // given owner's workload that prints three lines (one to stderr) and ends
        api = fx.onTheLocalBackend();
        String id = submitAsOwner("[\"sh\", \"-c\", \"echo first; echo second >&2; echo third token=s3cr3t\"]");
        api.loop.runOnce();
        waitUntil(() -> {
            fx.clock.advance(Duration.ofSeconds(1));
            api.loop.runOnce();
            return api.get("/v1/workloads/" + id, "tok-owner").json().path("workload").path("state").asText()
                    .equals("completed");
        });

        for (String user : MAY_READ) {
            // when whoever may see its details reads its output
            Response r = api.get("/v1/workloads/" + id + "/output", "tok-" + user);
            // then it is all of it, stdout and stderr as written, of its last (only) attempt
            assertThat(r.status()).as("%s: %s", user, r.json()).isEqualTo(200);
            JsonNode out = r.json();
            assertThat(out.path("text").asText()).as(user).isEqualTo("first\nsecond\nthird token=s3cr3t\n");
            assertThat(out.path("attempt").asInt()).isEqualTo(1);
            assertThat(out.path("phase").asText()).isEqualTo("ended");
            assertThat(out.path("sizeBytes").asLong()).isEqualTo(32);
            assertThat(out.path("truncated").asBoolean()).isFalse();
        }
        // and the end of it, from a line's beginning, with what was left out said
        JsonNode tail = api.get("/v1/workloads/" + id + "/output?tailBytes=20", "tok-owner").json();
        assertThat(tail.path("text").asText()).isEqualTo("third token=s3cr3t\n");
        assertThat(tail.path("truncated").asBoolean()).isTrue();
        assertThat(tail.path("fromByte").asLong()).isEqualTo(13);

        for (String user : MAY_NOT_READ) {
            // and anyone else is refused, naming who may
            Response r = api.get("/v1/workloads/" + id + "/output", "tok-" + user);
            assertThat(r.status()).as(user).isEqualTo(403);
            assertThat(r.json().toString()).as(user).contains("may not read the output of workload " + id)
                    .doesNotContain("s3cr3t");
        }
    }

    @Test
    void aWorkloadNotStartedAnUnknownAttemptAndABackendWithoutOutputAreClearErrors() {
        // given a scheduling loop on the simulated backend, which runs no processes, and a workload it has not seen
        api = fx.api;
        String waiting = api.submit("owner", body("gpus", "1", "gpusPerNode", "0")).json().path("id").asText();
        Response notStarted = api.get("/v1/workloads/" + waiting + "/output", "tok-owner");
        assertThat(notStarted.status()).isEqualTo(404);
        assertThat(notStarted.json().toString()).contains("has not started yet").contains("allot explain " + waiting);

        String running = waiting;
        api.loop.runOnce(); // now it starts
        Response none = api.get("/v1/workloads/" + running + "/output", "tok-owner");
        assertThat(none.status()).isEqualTo(404);
        assertThat(none.json().toString()).contains("is not kept by this service")
                .contains("the simulated backend runs no processes");

        Response noSuchAttempt = api.get("/v1/workloads/" + running + "/output?attempt=2", "tok-owner");
        assertThat(noSuchAttempt.status()).isEqualTo(400);
        assertThat(noSuchAttempt.json().toString()).contains("has no attempt 2").contains("its attempts are 1 to 1");
        assertThat(api.get("/v1/workloads/" + running + "/output?tailBytes=0", "tok-owner").status()).isEqualTo(400);
        assertThat(api.get("/v1/workloads/" + running + "/output?lines=5", "tok-owner").status()).isEqualTo(400);
        assertThat(api.get("/v1/workloads/w-999/output", "tok-owner").status()).isEqualTo(404);
    }
}
