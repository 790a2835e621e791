package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
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
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole service (simulated backend, a clock moved by hand, a 4-GPU node, allocations {@code a} and {@code b})
 * scraped over HTTP at {@code /metrics}. Cycles are run by the test ({@code runOnce}) so the values are exact.
 */
class ServiceMetricsTest {
    static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void metricsReportQueuesGpusWaitsPreemptionsEndsAndDecisions() throws Exception {
        try (Store s = Store.sqlite(dir)) {
            s.allocations().putAllocation(new Allocation("a", 1, List.of(), List.of()), "test", T0.toEpochMilli());
            s.allocations().putAllocation(new Allocation("b", 1, List.of(), List.of()), "test", T0.toEpochMilli());
            s.nodes().putNode(new Node("n1", 4, true, null, T0.toEpochMilli()));
        }
        MutableClock clock = new MutableClock(T0);
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofHours(1));
        try (Service service = Service.start(config, clock)) {
            String token = service.adminToken().orElseThrow();
            // Two unallocated 2-GPU workloads of a take the idle node.
            submit(service, token, "a", 2, "0s", "1h");
            submit(service, token, "a", 2, "0s", "1h");
            service.loop().runOnce();
            Map<String, Double> m = scrape(service);
            assertThat(m).containsEntry("allot_gpus{state=\"total\"}", 4.0)
                    .containsEntry("allot_gpus{state=\"healthy\"}", 4.0)
                    .containsEntry("allot_gpus{state=\"busy\"}", 4.0)
                    .containsEntry("allot_occupancy", 1.0)
                    .containsEntry("allot_queue_pending{allocation=\"a\"}", 0.0)
                    .containsEntry("allot_wait_seconds_count{allocation=\"a\"}", 2.0)
                    .containsEntry("allot_wait_seconds_sum{allocation=\"a\"}", 0.0);
            assertThat(m.get("allot_cycles_total")).isGreaterThanOrEqualTo(1.0);
            assertThat(m.get("allot_decision_seconds_count")).isEqualTo(m.get("allot_cycles_total"));

            // b's allocated 4-GPU workload preempts both (rule: unallocated); a third of a's waits.
            clock.advance(Duration.ofMinutes(10));
            // (b's is decided first, as the cycle its submission nudges may or may not have done before a's arrives:
            // seen together, a's would go first on the tie of two unused allocations and take two of the GPUs)
            submit(service, token, "b", 4, "1h", "2h");
            service.loop().runOnce();
            submit(service, token, "a", 2, "30m", "1h");
            service.loop().runOnce();
            service.loop().runOnce();
            m = scrape(service);
            assertThat(m).containsEntry("allot_preemptions_total{allocation=\"a\",cause=\"unallocated\"}", 2.0)
                    .containsKey("allot_preempted_gpu_seconds_lost_total{allocation=\"a\"}")
                    .containsEntry("allot_gpus{state=\"busy\"}", 4.0)
                    .containsEntry("allot_wait_seconds_count{allocation=\"b\"}", 1.0)
                    .containsEntry("allot_queue_pending{allocation=\"b\"}", 0.0);
            assertThat(m.get("allot_queue_pending{allocation=\"a\"}")).isGreaterThanOrEqualTo(1.0);
            assertThat(m).containsKey("allot_attempts_ended_total{outcome=\"requeued\"}");

            // b's work ends after its 2 hours.
            clock.advance(Duration.ofHours(2));
            service.loop().runOnce();
            service.loop().runOnce();
            m = scrape(service);
            assertThat(m).containsEntry("allot_attempts_ended_total{outcome=\"completed\"}", 1.0);
        }
    }

    @Test
    void wholeCycleTimeCountsEveryCycleNotOnlyThoseThatAskThePolicy() throws Exception {
        try (Store s = Store.sqlite(dir)) {
            s.allocations().putAllocation(new Allocation("a", 1, List.of(), List.of()), "test", T0.toEpochMilli());
            s.nodes().putNode(new Node("n1", 4, true, null, T0.toEpochMilli()));
        }
        MutableClock clock = new MutableClock(T0);
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofHours(1));
        try (Service service = Service.start(config, clock)) {
            String token = service.adminToken().orElseThrow();
            // Given a cycle that starts a workload (it asks the policy) ...
            submit(service, token, "a", 2, "0s", "1h");
            service.loop().runOnce();
            Map<String, Double> first = scrape(service);
            assertThat(first.get("allot_cycle_seconds_count")).isGreaterThanOrEqualTo(1.0);
            assertThat(first.get("allot_cycle_seconds_sum")).isPositive();
            assertThat(first.get("allot_cycle_seconds_max")).isPositive();
            // ... then three cycles with nothing new: the policy is not asked, yet each cycle is timed.
            for (int i = 0; i < 3; i++) {
                service.loop().runOnce();
            }
            Map<String, Double> later = scrape(service);
            assertThat(later.get("allot_cycle_seconds_count")).isGreaterThanOrEqualTo(
                    first.get("allot_cycle_seconds_count") + 3);
            assertThat(later.get("allot_decision_seconds_count")).isEqualTo(first.get("allot_decision_seconds_count"));
            assertThat(later.get("allot_cycle_seconds_count")).isGreaterThan(later.get("allot_decision_seconds_count"));
        }
    }

    @Test
    void metricsNeedNoToken() throws Exception {
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED);
        try (Service service = Service.start(config, new MutableClock(T0))) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(service.url() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            assertThat(r.body()).contains("# TYPE allot_occupancy gauge", "allot_gpus{state=\"total\"}");
        }
    }

    static void submit(Service service, String token, String allocation, int gpus, String minRuntime, String duration)
            throws Exception {
        post(service, token, "/v1/workloads", body(allocation, gpus, minRuntime, duration));
    }

    static String body(String allocation, int gpus, String minRuntime, String duration) {
        return "{\"allocation\": \"" + allocation + "\", \"gpus\": " + gpus + ", \"minRuntime\": \"" + minRuntime
                + "\", \"resumable\": true, \"priority\": \"normal\", \"duration\": \"" + duration
                + "\", \"command\": [\"true\"]}";
    }

    private static void post(Service service, String token, String path, String body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(service.url() + path))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*\\})?) (\\S+)$");

    /** The samples of a scrape, by name with labels (label order as the registry prints them). */
    static Map<String, Double> scrape(Service service) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(service.url() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Map<String, Double> out = new TreeMap<>();
        for (String line : r.body().split("\n")) {
            Matcher mm = SAMPLE.matcher(line.trim());
            if (!line.startsWith("#") && mm.matches()) {
                out.put(mm.group(1), Double.parseDouble(mm.group(2)));
            }
        }
        return out;
    }
}
