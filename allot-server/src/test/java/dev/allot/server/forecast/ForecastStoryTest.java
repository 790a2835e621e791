package dev.allot.server.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.service.Service;
import dev.allot.server.service.ServiceConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.store.WorkloadState;
import dev.allot.server.testing.MutableClock;
import dev.allot.sim.forecast.Forecast;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forecasts through the real service path: a service with the simulated backend on one node of 8 GPUs and a clock
 * moved by hand, workloads submitted over HTTP, the loop's cycles, the forecaster's snapshot and its runs, and the
 * API's answers. The stories are worked by hand, so every start is known exactly.
 */
class ForecastStoryTest {
    static final Instant T0 = ForecastFixture.T0;

    @TempDir
    Path dir;

    private Service start(MutableClock clock, Duration forecastInterval) {
        return ForecastFixture.start(dir, clock, forecastInterval);
    }

    private String submit(Service s, String duration) throws Exception {
        return ForecastFixture.submit(s, duration);
    }

    private JsonNode get(Service s, String path) throws Exception {
        return ForecastFixture.get(s, path);
    }

    private static long at(Instant t) {
        return t.getEpochSecond();
    }

    @Test
    void aHandWorkedStoryIsForecastExactlyAndShownWithItsAssumptions() throws Exception {
        MutableClock clock = new MutableClock(T0);
        // a long interval: the forecaster's thread never runs during the test; forecasts are made by hand
        try (Service s = start(clock, Duration.ofHours(1))) {
            String running = submit(s, "1h");
            s.loop().runOnce();
            assertThat(s.store().workloads().workload(running).orElseThrow().state()).isEqualTo(WorkloadState.RUNNING);
            clock.advance(Duration.ofMinutes(10));
            String second = submit(s, "2h");
            String third = submit(s, "30m");
            String undeclared = submit(s, null);
            String last = submit(s, "15m");
            s.loop().runOnce();

            LiveForecast live = s.forecaster().forecastNow().orElseThrow();

            long t = at(T0);
            assertThat(live.forecasts().madeAtSeconds()).isEqualTo(t + 600);
            assertThat(live.forecasts().byWorkload()).containsOnlyKeys(second, third, undeclared, last);
            // the running one ends at its declared hour; each waiting one takes the whole node after the one before
            assertBand(live.of(second).orElseThrow(), t + 3_600);
            assertBand(live.of(third).orElseThrow(), t + 3_600 + 7_200);
            assertBand(live.of(undeclared).orElseThrow(), t + 3_600 + 7_200 + 1_800);
            // nothing declared and nothing like it finished: the stated default, one hour
            assertBand(live.of(last).orElseThrow(), t + 3_600 + 7_200 + 1_800 + 3_600);
            assertThat(live.of(second).orElseThrow().durationBasis()).isEqualTo("declared");
            assertThat(live.of(undeclared).orElseThrow().durationBasis()).isEqualTo("default 1h");

            JsonNode explain = get(s, "/v1/workloads/" + second + "/explain");
            JsonNode f = explain.path("forecast");
            assertThat(f.path("likelyStart").asText()).isEqualTo("2026-03-02T10:00:00.000Z");
            assertThat(f.path("low").asText()).isEqualTo("2026-03-02T10:00:00.000Z");
            assertThat(f.path("high").asText()).isEqualTo("2026-03-02T10:00:00.000Z");
            assertThat(f.path("band").asText()).isEqualTo("p10-p90");
            assertThat(f.path("madeAt").asText()).isEqualTo("2026-03-02T09:10:00.000Z");
            assertThat(f.path("withinHorizon").asBoolean()).isTrue();
            assertThat(f.path("runs").asInt()).isEqualTo(10);
            assertThat(f.path("assumptions").path("duration").asText()).isEqualTo("declared");
            assertThat(f.path("assumptions").path("newWork").asText()).contains("no new work");
            assertThat(f.path("assumptions").path("policy").asText()).isEqualTo("allocation (defaults)");
            assertThat(f.path("assumptions").path("runningWork").asText()).contains("else 1h");
            assertThat(explain.path("summary").toString()).contains("likely to start at 2026-03-02T10:00:00.000Z");

            JsonNode list = get(s, "/v1/forecasts");
            assertThat(list.path("forecasting").asBoolean()).isTrue();
            assertThat(list.path("waiting").asInt()).isEqualTo(4);
            assertThat(list.path("forecasts").findValuesAsText("id")).containsExactly(second, third, undeclared, last);
            assertThat(list.path("forecasts").get(1).path("forecast").path("likelyStart").asText())
                    .isEqualTo("2026-03-02T12:00:00.000Z");
            assertThat(list.path("forecast").path("horizonEnd").asText()).isEqualTo("2026-03-04T09:10:00.000Z");

            JsonNode queue = get(s, "/v1/queue");
            assertThat(queue.path("entries").get(3).path("forecast").path("likelyStart").asText())
                    .isEqualTo("2026-03-02T13:30:00.000Z");
            assertThat(queue.path("forecast").path("assumptions").path("policy").asText())
                    .isEqualTo("allocation (defaults)");

            // the running one is not forecast: its explanation has none
            assertThat(get(s, "/v1/workloads/" + running + "/explain").path("forecast").isNull()).isTrue();
        }
    }

    private static void assertBand(Forecast f, long seconds) {
        assertThat(List.of(f.lowSeconds(), f.medianSeconds(), f.highSeconds())).as(f.toString())
                .containsExactly(seconds, seconds, seconds);
    }

    @Test
    void durationsAreLearntFromFinishedWork() throws Exception {
        MutableClock clock = new MutableClock(T0);
        try (Service s = start(clock, Duration.ofHours(1))) {
            // five runs of 40 minutes finish one after the other (the service learns how long such work runs) ...
            for (int i = 0; i < 5; i++) {
                String id = submit(s, "40m");
                s.loop().runOnce();
                clock.advance(Duration.ofMinutes(40));
                s.loop().runOnce();
                assertThat(s.store().workloads().workload(id).orElseThrow().state())
                        .isEqualTo(WorkloadState.COMPLETED);
                s.forecaster().forecastNow();
            }
            // ... so the same work that declares nothing is expected to run 40 minutes, and the next starts then
            String running = submit(s, null);
            s.loop().runOnce();
            String waiting = submit(s, null);
            s.loop().runOnce();
            LiveForecast live = s.forecaster().forecastNow().orElseThrow();
            Forecast f = live.of(waiting).orElseThrow();
            long started = s.store().attempts().attempts(running).get(0).startedAtMillis() / 1000;
            assertBand(f, started + 2_400);
            assertThat(f.durationBasis()).startsWith("history of 5 finished runs of user alice, lab/a");
            assertThat(live.finishedLearnt()).isEqualTo(5);
        }
    }

    @Test
    void workStillRunningCountsAsRunningAtLeastAsLongAsItHas() throws Exception {
        MutableClock clock = new MutableClock(T0);
        try (Service s = start(clock, Duration.ofHours(1))) {
            // given five runs of 40 minutes that finished ...
            for (int i = 0; i < 5; i++) {
                submit(s, "40m");
                s.loop().runOnce();
                clock.advance(Duration.ofMinutes(40));
                s.loop().runOnce();
            }
            // ... and work like them, declaring nothing, that has now run two hours and still runs
            String running = submit(s, null);
            s.loop().runOnce();
            long started = s.store().attempts().attempts(running).get(0).startedAtMillis() / 1000;
            clock.advance(Duration.ofHours(2));
            String waiting = submit(s, null);
            s.loop().runOnce();
            assertThat(s.store().workloads().workload(running).orElseThrow().state())
                    .isEqualTo(WorkloadState.RUNNING);

            LiveForecast live = s.forecaster().forecastNow().orElseThrow();
            Forecast f = live.of(waiting).orElseThrow();
            // then the forecast's durations count it (it is longer than all that finished: half as long again as it
            // has run, so it ends at 3h), and say so
            assertBand(f, started + 3 * 3_600);
            assertThat(f.durationBasis()).startsWith("history of 5 finished runs of user alice, lab/a")
                    .endsWith(" and 1 still running");
        }
    }

    @Test
    void aScheduleCycleCompletesWhileAForecastIsInProgress() throws Exception {
        MutableClock clock = new MutableClock(T0);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Service s = start(clock, Duration.ofHours(1))) {
            String running = submit(s, "1h");
            s.loop().runOnce();
            String waiting = submit(s, "1h");
            s.loop().runOnce();
            CountDownLatch inForecast = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.forecaster().afterSnapshot(() -> {
                inForecast.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Future<java.util.Optional<LiveForecast>> forecast = pool.submit(() -> s.forecaster().forecastNow());
            assertThat(inForecast.await(30, TimeUnit.SECONDS)).isTrue();
            // the forecast is in progress (held in the hook, after its snapshot): a cycle runs to its end
            clock.advance(Duration.ofHours(1));
            Future<?> cycle = pool.submit(() -> s.loop().runOnce());
            cycle.get(30, TimeUnit.SECONDS);
            assertThat(forecast.isDone()).isFalse();
            assertThat(s.store().workloads().workload(running).orElseThrow().state())
                    .isEqualTo(WorkloadState.COMPLETED);
            assertThat(s.store().workloads().workload(waiting).orElseThrow().state()).isEqualTo(WorkloadState.RUNNING);
            release.countDown();
            LiveForecast live = forecast.get(30, TimeUnit.SECONDS).orElseThrow();
            // made from the snapshot taken before the cycle
            assertThat(live.forecasts().madeAtSeconds()).isEqualTo(at(T0));
            assertBand(live.of(waiting).orElseThrow(), at(T0) + 3_600);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theSettingsAdaptToTheTimeBudgetAndBack() throws Exception {
        MutableClock clock = new MutableClock(T0);
        try (Service s = start(clock, Duration.ofHours(1))) {
            submit(s, "1h");
            s.loop().runOnce();
            submit(s, "1h");
            s.loop().runOnce();
            // every forecast takes longer than a nanosecond: fewer runs first, then a shorter horizon, to the floor
            s.forecaster().adaptTo(Duration.ofNanos(1));
            List<String> used = new java.util.ArrayList<>();
            for (int i = 0; i < 6; i++) {
                LiveForecast f = s.forecaster().forecastNow().orElseThrow();
                used.add(f.settings().runs() + "/" + f.settings().horizon().toHours() + "h/" + f.forecasts().runs());
            }
            assertThat(used).containsExactly("10/48h/10", "5/48h/5", "3/48h/3", "3/24h/3", "3/12h/3", "3/12h/3");
            // and every forecast takes less than a quarter of a day: back to the configured settings
            s.forecaster().adaptTo(Duration.ofDays(1));
            used.clear();
            for (int i = 0; i < 6; i++) {
                LiveForecast f = s.forecaster().forecastNow().orElseThrow();
                used.add(f.settings().runs() + "/" + f.settings().horizon().toHours() + "h");
            }
            assertThat(used).containsExactly("3/12h", "3/24h", "3/48h", "6/48h", "10/48h", "10/48h");
            assertThat(get(s, "/v1/forecasts").path("forecast").path("runs").asInt()).isEqualTo(10);
        }
    }

    @Test
    void aZeroIntervalTurnsForecastingOff() throws Exception {
        MutableClock clock = new MutableClock(T0);
        try (Service s = start(clock, Duration.ZERO)) {
            submit(s, "1h");
            String waiting = submit(s, "1h");
            s.loop().runOnce();
            s.loop().runOnce();
            assertThat(s.forecaster().running()).isFalse();
            assertThat(s.forecaster().latest()).isEmpty();
            JsonNode list = get(s, "/v1/forecasts");
            assertThat(list.path("forecasting").asBoolean()).isFalse();
            assertThat(list.path("forecast").isNull()).isTrue();
            assertThat(list.path("forecasts")).isEmpty();
            JsonNode explain = get(s, "/v1/workloads/" + waiting + "/explain");
            assertThat(explain.path("forecast").isNull()).isTrue();
            assertThat(explain.path("summary").toString()).doesNotContain("orecast");
        }
    }
}
