package dev.allot.server.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.service.Service;
import dev.allot.server.store.Attempt;
import dev.allot.server.testing.MutableClock;
import dev.allot.sim.forecast.Forecast;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forecast against actual start on the live service, not only the simulator: a small scenario (two teams, 40 workloads
 * of 1 to 8 GPUs over about 5 hours on 2 nodes of 8 GPUs, durations of 10 to 120 minutes declared, as the simulated
 * backend needs to end them; 70% allocated) is replayed through the service with the simulated backend, minute by
 * minute on a hand-moved clock: submissions over HTTP, the loop's cycles, and after each minute with submissions a
 * forecast by the service's {@link LiveForecaster}. Each workload still waiting after its submission's cycle is
 * compared with its actual start, read from the store's attempts once the scenario has ended: median absolute error
 * and band coverage, next to the naive "it starts now".
 *
 * <p>Everything declares its duration here and the service has only hours of history (new work is expected like that
 * of a recent hour): the errors come from the work submitted after a forecast that goes ahead (fair share, allocated
 * over unallocated) other than expected, and from preemptions.
 */
class LiveAccuracyTest {
    @TempDir
    Path dir;

    record Submission(int minute, String user, int gpus, int minutes, boolean allocated) {
    }

    /** One compared forecast: when it was made, its band, and the actual start from the store. */
    record Row(String id, long madeAt, long low, long median, long high, long horizonEnd, long actual) {
        long absError() {
            return Math.abs(Math.min(median, horizonEnd) - Math.min(actual, horizonEnd));
        }

        boolean covered(Forecast f) {
            return f.covers(actual);
        }
    }

    static List<Submission> scenario() {
        Random r = new Random(5);
        int[] sizes = {1, 2, 4, 4, 8};
        List<Submission> out = new ArrayList<>();
        int minute = 0;
        for (int i = 0; i < 40; i++) {
            minute += 1 + r.nextInt(15);
            out.add(new Submission(minute, r.nextBoolean() ? "alice" : "bob", sizes[r.nextInt(sizes.length)],
                    10 + r.nextInt(111), r.nextInt(10) < 7));
        }
        return out;
    }

    @Test
    void forecastsAtSubmissionAreMeasuredAgainstTheServicesActualStarts() throws Exception {
        MutableClock clock = new MutableClock(ForecastFixture.T0);
        List<Submission> scenario = scenario();
        Map<String, Forecast> atSubmission = new LinkedHashMap<>();
        List<String> all = new ArrayList<>();
        int startedAtOnce = 0;
        try (Service s = ForecastFixture.start(dir, clock, Duration.ofHours(1), 2)) {
            int next = 0;
            for (int minute = 0; minute < 24 * 60; minute++) {
                List<String> submitted = new ArrayList<>();
                while (next < scenario.size() && scenario.get(next).minute() == minute) {
                    Submission w = scenario.get(next++);
                    submitted.add(ForecastFixture.submit(s, w.user(), "lab/" + (w.user().equals("alice") ? "a" : "b"),
                            w.gpus(), w.allocated() ? "30m" : "0", w.minutes() + "m"));
                }
                s.loop().runOnce();
                all.addAll(submitted);
                if (!submitted.isEmpty()) {
                    LiveForecast f = s.forecaster().forecastNow().orElseThrow();
                    for (String id : submitted) {
                        if (f.of(id).isPresent()) {
                            atSubmission.put(id, f.of(id).get());
                        } else {
                            startedAtOnce++;
                        }
                    }
                }
                if (next == scenario.size() && s.loop().inspect((st, t) -> st.running().count() + st.pending()
                        .total()).orElse(1) == 0) {
                    break;
                }
                clock.advance(Duration.ofMinutes(1));
            }
            List<Row> rows = new ArrayList<>();
            for (Map.Entry<String, Forecast> e : atSubmission.entrySet()) {
                List<Attempt> attempts = s.store().attempts().attempts(e.getKey());
                assertThat(attempts).as("every workload of the scenario ran: %s", e.getKey()).isNotEmpty();
                long actual = Math.floorDiv(attempts.get(0).startedAtMillis(), 1000);
                Forecast f = e.getValue();
                rows.add(new Row(e.getKey(), f.madeAtSeconds(), f.lowSeconds(), f.medianSeconds(), f.highSeconds(),
                        f.horizonEndSeconds(), actual));
            }
            assertThat(all).hasSize(scenario.size());
            assertThat(rows.size() + startedAtOnce).isEqualTo(scenario.size());
            assertThat(rows).as("most of the scenario's work waits").hasSizeGreaterThan(10);
            long[] errors = rows.stream().mapToLong(Row::absError).sorted().toArray();
            long[] naive = rows.stream().mapToLong(r -> r.actual() - r.madeAt()).sorted().toArray();
            long covered = rows.stream().filter(r -> r.covered(atSubmission.get(r.id()))).count();
            assertThat(Arrays.stream(naive).min().orElseThrow()).as("a waiting workload starts after the forecast")
                    .isPositive();
            long mae = median(errors);
            long naiveMae = median(naive);
            System.out.printf(Locale.ROOT, "live forecast accuracy (service, simulated backend): %d forecasts at"
                            + " submission (%d started at once), %d exactly right, median |error| %d s, p90 %d s, band"
                            + " p10-p90 covers %.0f%%; naive 'starts now' median |error| %d s%n", rows.size(),
                    startedAtOnce, Arrays.stream(errors).filter(e -> e == 0).count(), mae,
                    errors[(int) Math.ceil(0.9 * errors.length) - 1], 100.0 * covered / rows.size(), naiveMae);
            assertThat(mae).as("the forecast beats 'it starts now'").isLessThan(naiveMae);
        }
    }

    private static long median(long[] sorted) {
        return sorted[(int) Math.ceil(0.5 * sorted.length) - 1];
    }
}
