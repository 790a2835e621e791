package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.testing.ForwardingBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A workload whose start the backend accepted but has not yet reported running (a Slurm job still pending in
 * slurmctld, or slurmctld down after {@code sbatch}) is running for the scheduler, which holds its GPUs, but not yet
 * running on the cluster: the API says so ({@code starting}), {@code allot queue} shows it as starting, and
 * {@code allot explain} says what it waits for. Before, all three said plainly "running".
 */
class StartingWorkloadApiTest {
    @RegisterExtension
    final LoopApiExtension fx = new LoopApiExtension();
    private ApiFixture api;

    /**
     * The simulated backend, except that until {@link #confirming} its running attempts are reported as starting, as
     * a cluster whose jobs are accepted and still pending would report them.
     */
    static final class UnconfirmedBackend extends ForwardingBackend {
        volatile boolean confirming;

        UnconfirmedBackend(Backend inner) {
            super(inner);
        }

        @Override
        public String name() {
            return "unconfirmed";
        }

        @Override
        public List<AttemptStatus> observe() {
            List<AttemptStatus> out = new ArrayList<>();
            for (AttemptStatus s : backend.observe()) {
                out.add(!confirming && s.phase() == AttemptStatus.Phase.RUNNING
                        ? new AttemptStatus(s.attempt(), AttemptStatus.Phase.STARTING, null, "pending in the queue",
                        null) : s);
            }
            return out;
        }
    }

    private JsonNode read(String path) {
        Response r = api.get(path, "tok-owner");
        assertThat(r.status()).as("%s: %s", path, r.json()).isEqualTo(200);
        return r.json();
    }

    @Test
    void givenAStartTheBackendHasNotConfirmed_thenTheWorkloadIsStartingUntilItIsSeenRunning() {
        // given owner's workload started by the scheduler on a backend that reports it still starting
        UnconfirmedBackend[] backend = new UnconfirmedBackend[1];
        api = fx.with(simulated -> backend[0] = new UnconfirmedBackend(simulated));
        Response submitted = api.submit("owner", body("gpus", "1", "gpusPerNode", "0", "resumable", "false"));
        assertThat(submitted.status()).as("%s", submitted.json()).isEqualTo(201);
        assertThat(submitted.json().path("starting").asBoolean(true)).isFalse();
        String id = submitted.json().path("id").asText();
        api.loop.runOnce();
        fx.clock.advance(Duration.ofSeconds(5));
        api.loop.runOnce();

        // then the workload is running for the scheduler, and starting in every view of it
        JsonNode shown = read("/v1/workloads/" + id);
        assertThat(shown.path("workload").path("state").asText()).isEqualTo("running");
        assertThat(shown.path("workload").path("starting").asBoolean()).isTrue();
        assertThat(shown.path("attempts").get(0).path("phase").asText()).isEqualTo("launching");
        JsonNode listed = read("/v1/workloads?state=running").path("workloads");
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).path("starting").asBoolean()).isTrue();
        List<String> summary = new ArrayList<>();
        read("/v1/workloads/" + id + "/explain").path("summary").forEach(s -> summary.add(s.asText()));
        assertThat(summary).anySatisfy(s -> assertThat(s).startsWith("Its attempt 1 is starting: the backend was"
                + " asked to launch it at ").endsWith(" and has not yet reported it running; meanwhile its GPUs are"
                + " held for it, as for running work."));

        // when the backend reports it running
        backend[0].confirming = true;
        fx.clock.advance(Duration.ofSeconds(5));
        api.loop.runOnce();

        // then it is running and no longer starting
        shown = read("/v1/workloads/" + id);
        assertThat(shown.path("workload").path("starting").asBoolean(true)).isFalse();
        assertThat(shown.path("attempts").get(0).path("phase").asText()).isEqualTo("running");
        assertThat(read("/v1/workloads?state=running").path("workloads").get(0).path("starting").asBoolean(true))
                .isFalse();
        assertThat(read("/v1/workloads/" + id + "/explain").path("summary").toString()).doesNotContain("is starting");
    }
}
