package dev.allot.sim.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** New work expected from the recent past, over short and long horizons. */
class RecentArrivalsTest {
    private static final long DAY = 86_400;

    @Test
    void givenAWeekOfOneJobAnHourThenAMonthAheadExpectsOneAnHourToItsEnd() {
        // given a week of history with one workload submitted every hour, at 10 past
        RecentArrivals recent = new RecentArrivals();
        for (long t = 600; t < 7 * DAY; t += 3_600) {
            recent.learn(WorkloadSpec.builder("w" + t).submitAt(t).allocation("a").user("u").gpus(1)
                    .duration(Duration.ofHours(1)).kind("train").build(), 0);
        }
        DurationHistory durations = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        long now = 7 * DAY;
        // then a 30-day forecast expects one an hour in its first week and in its last, not only in its first day
        List<WorkloadSpec> drawn = recent.draw(now, now + 30 * DAY, "~", durations, new SplittableRandom(5));
        long firstWeek = drawn.stream().filter(w -> w.submitSeconds() < now + 7 * DAY).count();
        long lastWeek = drawn.stream().filter(w -> w.submitSeconds() >= now + 23 * DAY).count();
        assertThat(firstWeek).isEqualTo(7 * 24);
        assertThat(lastWeek).isEqualTo(7 * 24);
        // each a copy of a past one, at the same time of day, after the forecast's instant, and with a unique id
        assertThat(drawn).allSatisfy(w -> {
            assertThat(w.submitSeconds()).isGreaterThan(now).isLessThanOrEqualTo(now + 30 * DAY);
            assertThat(w.submitSeconds() % 3_600).isEqualTo(600);
        });
        assertThat(drawn.stream().map(WorkloadSpec::id).distinct().count()).isEqualTo(drawn.size());
    }

    @Test
    void runsWeighTheRecentDaysDifferentlyButTheSameSeedDrawsTheSame() {
        // given a week in which each day has as many workloads as its number (day 1: one, ..., day 7: seven)
        RecentArrivals recent = new RecentArrivals();
        for (int d = 0; d < 7; d++) {
            for (int i = 0; i <= d; i++) {
                long t = d * DAY + 3_600 + i;
                recent.learn(WorkloadSpec.builder("d" + d + "-" + i).submitAt(t).allocation("a").user("u").gpus(1)
                        .duration(Duration.ofHours(1)).kind("train").build(), 0);
            }
        }
        DurationHistory durations = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        long now = 7 * DAY;
        java.util.Set<Integer> counts = new java.util.TreeSet<>();
        for (int run = 0; run < 20; run++) {
            counts.add(recent.draw(now, now + 20 * DAY, "~", durations, new SplittableRandom(run)).size());
        }
        // then twenty runs do not all expect the same amount of new work over 20 days
        assertThat(counts.size()).isGreaterThan(5);
        assertThat(recent.draw(now, now + 20 * DAY, "~", durations, new SplittableRandom(3)))
                .isEqualTo(recent.draw(now, now + 20 * DAY, "~", durations, new SplittableRandom(3)));
    }
}
