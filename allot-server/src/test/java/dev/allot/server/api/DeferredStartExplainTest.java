package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Backend;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.testing.ForwardingBackend;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v1/workloads/{id}/explain} of a workload whose start the scheduler decided but deferred: the GPUs it was
 * given are still held by work it preempted, which is being stopped (a training job writing its checkpoint on SIGTERM
 * takes its grace period). The store has the workload waiting until it starts; the scheduler's core has it placed.
 * The explanation said "w-2 runs in lab/nlp/pretrain. It is protected by its 2h minimum runtime until ..." of a
 * workload whose state was pending and whose process had not started; it says now that it is about to start.
 */
class DeferredStartExplainTest {
    private static final String DETECT = "lab/vision/detect";

    private final MutableClock clock = new MutableClock(ApiFixture.NOW);
    @TempDir
    Path dir;
    private ApiFixture api;
    private HoldsStops backend;

    @AfterEach
    void close() {
        if (api != null) {
            api.close();
        }
    }

    @Test
    void givenPreemptedWorkStillStopping_whenTheWorkTakingItsGpusIsExplained_thenItIsAboutToStartNotRunningAndProtected() {
        // given detect (8 GPUs, 1h protected) runs, and pretrain (8 GPUs) preempts it once its protection has ended,
        // while detect's process takes its time to stop
        String pretrain = pretrainDeferredBehindStoppingDetect();

        // when its submitter asks why it waits
        JsonNode e = explain(pretrain);

        // then it is pending, about to start, and not said to run or to be protected yet
        assertThat(e.path("state").asText()).isEqualTo("pending");
        assertThat(e.path("summary").get(0).asText()).isEqualTo(pretrain + " is pending and about to start: the"
                + " scheduler has given it GPUs that work it stopped still holds, and starts it as soon as that work"
                + " has ended (a stop gives the work its grace period first). Its minimum runtime protects it from its"
                + " start.");
        assertThat(e.path("summary").toString()).doesNotContain(" runs in ").doesNotContain("protected by");
        assertThat(e.path("summary").get(1).asText()).startsWith("Over the last 7d: ");
        assertThat(e.path("data").path("seenByScheduler").asBoolean()).isTrue();
        assertThat(e.path("data").path("protection").isNull()).isTrue();

        // and once detect has stopped, pretrain starts and runs, protected from its start
        backend.release();
        clock.advance(Duration.ofSeconds(5));
        api.loop.runOnce();
        JsonNode running = explain(pretrain);
        assertThat(running.path("state").asText()).isEqualTo("running");
        assertThat(running.path("summary").get(0).asText()).isEqualTo(pretrain + " runs in " + X + ".");
        assertThat(running.path("data").path("protection").path("protectedUntil").asText())
                .isEqualTo("2026-03-01T12:00:05.000Z");
    }

    @Test
    void givenADeferredStart_whenTheQueueIsListed_thenItHasNoPlaceAndIsSaidToBeAboutToStartAsItsExplanationSays() {
        // given pretrain's start is deferred until detect, which it preempted, has stopped
        String pretrain = pretrainDeferredBehindStoppingDetect();

        // when the queue is listed
        Response q = api.get("/v1/queue", "tok-member");
        assertThat(q.status()).as("%s", q.json()).isEqualTo(200);

        // then it has no place (the scheduler has placed it: it is out of the serving order) and says why, where it
        // was listed as work the scheduler had not seen yet
        JsonNode entry = null;
        for (JsonNode e : q.json().path("entries")) {
            if (e.path("id").asText().equals(pretrain)) {
                entry = e;
            }
        }
        assertThat(entry).as("%s", q.json()).isNotNull();
        assertThat(entry.path("position").isNull()).isTrue();
        assertThat(entry.path("state").asText()).isEqualTo("pending");
        assertThat(entry.path("aboutToStart").asBoolean()).as("%s", entry).isTrue();
        assertThat(explain(pretrain).path("summary").get(0).asText()).contains("about to start");

        // and once it has started it is no longer in the queue
        backend.release();
        clock.advance(Duration.ofSeconds(5));
        api.loop.runOnce();
        assertThat(api.get("/v1/queue", "tok-member").json().path("entries").toString()).doesNotContain(pretrain);
    }

    /**
     * Detect (8 GPUs, 1h protected) runs; pretrain (8 GPUs) preempts it once its protection has ended, and detect's
     * stop is held, so pretrain's start is deferred. Returns pretrain's id.
     */
    private String pretrainDeferredBehindStoppingDetect() {
        api = ApiFixture.withSchedulingLoop(dir, clock, simulated -> backend = new HoldsStops(simulated));
        String detect = submit("ms-member", DETECT, "1h");
        api.loop.runOnce();
        String pretrain = submit("member", X, "2h");
        api.loop.runOnce();
        clock.advance(Duration.ofHours(1));
        api.loop.runOnce();
        assertThat(backend.stopped).containsExactly(detect);
        assertThat(api.loop.deferredLaunches()).containsExactly(pretrain);
        return pretrain;
    }

    private String submit(String user, String allocation, String minRuntime) {
        Response r = api.submit(user, body("allocation", "\"" + allocation + "\"", "gpusPerNode", "0",
                "minRuntime", "\"" + minRuntime + "\"", "duration", "\"1d\""));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private JsonNode explain(String id) {
        Response r = api.get("/v1/workloads/" + id + "/explain", "tok-member");
        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        return r.json();
    }

    /**
     * The simulated backend whose stops are held (the work keeps running) until {@link #release}; also the deferred
     * start of {@link DashboardOwnServiceBrowserTest}.
     */
    static final class HoldsStops extends ForwardingBackend {
        private final List<AttemptKey> held = new ArrayList<>();
        final List<String> stopped = new ArrayList<>();

        HoldsStops(Backend simulated) {
            super(simulated);
        }

        void release() {
            held.forEach(k -> backend.stop(k, Duration.ZERO));
            held.clear();
        }

        @Override
        public void stop(AttemptKey attempt, Duration grace) {
            held.add(attempt);
            stopped.add(attempt.workloadId());
        }
    }
}
