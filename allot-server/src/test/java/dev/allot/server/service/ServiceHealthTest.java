package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.server.CapturedLog;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.testing.ForwardingBackend;
import dev.allot.server.testing.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /v1/health} tells whether the service works, not only whether it answers: given a service whose scheduling
 * cycles fail (here its backend throws something the loop does not expect), health answers 503 with the last failure
 * and since when, the failures are counted in the metrics, and once cycles succeed again health is ok.
 */
class ServiceHealthTest {
    static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** A simulated backend whose {@link #observe} throws {@link #failure} while it is set. */
    static final class FlakyBackend extends ForwardingBackend {
        volatile RuntimeException failure;
        volatile Error error;

        FlakyBackend(MutableClock clock) {
            super(new SimulatedBackend(clock));
        }

        @Override
        public String name() {
            return "flaky";
        }

        @Override
        public List<AttemptStatus> observe() {
            RuntimeException f = failure;
            if (f != null) {
                throw f;
            }
            Error e = error;
            if (e != null) {
                throw e;
            }
            return backend.observe();
        }
    }

    @Test
    void givenCyclesThatFailHealthAnswers503WithTheReasonAndSinceWhenThenOkOnceTheyRecover() throws Exception {
        MutableClock clock = new MutableClock(T0);
        FlakyBackend flaky = new FlakyBackend(clock);
        try (Service service = start(clock, flaky, Duration.ofHours(1))) {
            waitForTheFirstCycle(service);
            HttpResponse<String> ok = get(service, "/v1/health");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(ok.body()).path("status").asText()).isEqualTo("ok");

            flaky.failure = new IllegalStateException("the backend's answer made no sense");
            clock.advance(Duration.ofSeconds(5));
            assertThatThrownBy(() -> service.loop().runOnce()).isSameAs(flaky.failure);
            clock.advance(Duration.ofSeconds(5));
            assertThatThrownBy(() -> service.loop().runOnce()).isSameAs(flaky.failure);

            HttpResponse<String> failing = get(service, "/v1/health");
            assertThat(failing.statusCode()).isEqualTo(503);
            assertThat(failing.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
            JsonNode body = JSON.readTree(failing.body());
            assertThat(body.path("status").asText()).isEqualTo("failing");
            assertThat(body.path("since").asText()).isEqualTo("2026-03-01T09:00:05.000Z");
            assertThat(body.path("failures").asLong()).isEqualTo(2);
            assertThat(body.path("error").asText()).isEqualTo("scheduling cycles have failed since"
                    + " 2026-03-01T09:00:05.000Z (2 in a row); the last failure: IllegalStateException: the backend's"
                    + " answer made no sense");
            assertThat(body.has("field")).as("the API's error shape").isTrue();
            assertThat(body.path("hint").asText()).isNotBlank();
            assertThat(ServiceMetricsTest.scrape(service)).containsEntry("allot_cycle_failures_total", 2.0);

            flaky.failure = null;
            clock.advance(Duration.ofSeconds(5));
            service.loop().runOnce();
            HttpResponse<String> again = get(service, "/v1/health");
            assertThat(again.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(again.body()).path("status").asText()).isEqualTo("ok");
            assertThat(ServiceMetricsTest.scrape(service)).containsEntry("allot_cycle_failures_total", 2.0);
        }
    }

    @Test
    void givenABackendThatCannotBeObservedForHalfAMinuteHealthSaysDegradedSinceWhenAndItsLastWordThenOkAgain()
            throws Exception {
        MutableClock clock = new MutableClock(T0);
        FlakyBackend flaky = new FlakyBackend(clock);
        try (Service service = start(clock, flaky, Duration.ofHours(1))) {
            waitForTheFirstCycle(service);
            clock.advance(Duration.ofSeconds(10));
            service.loop().runOnce(); // observed at 09:00:10

            // given slurmctld stops answering: each cycle's observation fails, which concludes nothing (not a failed
            // cycle: health stays 200)
            flaky.failure = new BackendUnavailableException("squeue: error: slurm_receive_msg: Socket timed out");
            for (int i = 0; i < 3; i++) {
                clock.advance(Duration.ofSeconds(10));
                service.loop().runOnce(); // 09:00:20, :30, :40
            }
            // twenty seconds of failed probes are the normal noise of a busy cluster
            JsonNode early = JSON.readTree(get(service, "/v1/health").body());
            assertThat(early.path("status").asText()).isEqualTo("ok");
            assertThat(early.has("backend")).as("only while the backend is not seen").isFalse();

            clock.advance(Duration.ofSeconds(10));
            service.loop().runOnce(); // 09:00:50: thirty seconds since the first failed probe
            HttpResponse<String> degraded = get(service, "/v1/health");
            assertThat(degraded.statusCode()).as("the API works; the backend is what cannot be seen").isEqualTo(200);
            JsonNode body = JSON.readTree(degraded.body());
            assertThat(body.path("status").asText()).isEqualTo("degraded");
            JsonNode backend = body.path("backend");
            assertThat(backend.path("name").asText()).isEqualTo("flaky");
            assertThat(backend.path("lastObservedAt").asText()).isEqualTo("2026-03-01T09:00:10.000Z");
            assertThat(backend.path("failingSince").asText()).isEqualTo("2026-03-01T09:00:20.000Z");
            assertThat(backend.path("failures").asLong()).isEqualTo(4);
            assertThat(backend.path("lastError").asText()).contains("Socket timed out");
            assertThat(backend.path("note").asText()).contains("shown as last seen");

            // then it answers again: ok, nothing left of the outage
            flaky.failure = null;
            clock.advance(Duration.ofSeconds(10));
            service.loop().runOnce();
            JsonNode again = JSON.readTree(get(service, "/v1/health").body());
            assertThat(again.path("status").asText()).isEqualTo("ok");
            assertThat(again.has("backend")).isFalse();
        }
    }

    @Test
    void givenTheLoopsOwnThreadWhenACycleThrowsAnErrorTheLoopGoesOnAndHealthTellsItThenRecovers() throws Exception {
        MutableClock clock = new MutableClock(T0);
        FlakyBackend flaky = new FlakyBackend(clock);
        flaky.error = new AssertionError("a broken promise");
        List<ILoggingEvent> errors;
        // The loop logs the first failure with its stack trace, as it should; the test keeps it out of the build's
        // output (where a stack trace reads as a failure) and checks it was logged.
        try (CapturedLog log = CapturedLog.of(SchedulerLoop.class);
             Service service = start(clock, flaky, Duration.ofMillis(20))) {
            HttpResponse<String> failing = awaitHealth(service, 503);
            assertThat(JSON.readTree(failing.body()).path("error").asText())
                    .contains("the last failure: AssertionError: a broken promise");
            flaky.error = null;
            awaitHealth(service, 200);
            errors = log.events().stream().filter(e -> e.getLevel() == Level.ERROR).toList();
        }
        assertThat(errors).isNotEmpty();
        assertThat(errors.get(0).getFormattedMessage()).isEqualTo("scheduling cycle failed; trying again next tick");
        assertThat(errors.get(0).getThrowableProxy().getClassName()).isEqualTo(AssertionError.class.getName());
        assertThat(errors.get(0).getThrowableProxy().getMessage()).isEqualTo("a broken promise");
    }

    /** A service on {@code flaky}, over a store with allocation {@code a} and a 4-GPU node, ticking every {@code tick}. */
    private Service start(MutableClock clock, FlakyBackend flaky, Duration tick) throws Exception {
        try (Store s = Store.sqlite(dir)) {
            s.allocations().putAllocation(new Allocation("a", 1, List.of(), List.of()), "test", T0.toEpochMilli());
            s.nodes().putNode(new Node("n1", 4, true, null, T0.toEpochMilli()));
        }
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withBackend("flaky").withTick(tick);
        return Service.start(config, clock, Map.of("flaky", (c, store) -> flaky));
    }

    private static HttpResponse<String> awaitHealth(Service service, int status) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        HttpResponse<String> r = get(service, "/v1/health");
        while (r.statusCode() != status && System.nanoTime() < deadline) {
            Thread.sleep(20);
            r = get(service, "/v1/health");
        }
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return r;
    }

    /** The loop's thread runs one cycle at its start; the test's cycles come after it, so the counts are exact. */
    private static void waitForTheFirstCycle(Service service) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (service.loop().counters().cycles() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(service.loop().counters().cycles()).isGreaterThanOrEqualTo(1);
    }

    private static HttpResponse<String> get(Service service, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(service.url() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
