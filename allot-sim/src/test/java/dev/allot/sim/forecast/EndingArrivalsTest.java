package dev.allot.sim.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A replay's forecasts expect new work up to the replay's last submission and none after it. */
class EndingArrivalsTest {
    private static final long DAY = 86_400;

    private static RecentArrivals aWeekOfOneJobAnHour() {
        RecentArrivals recent = new RecentArrivals();
        for (long t = 600; t < 7 * DAY; t += 3_600) {
            recent.learn(WorkloadSpec.builder("w" + t).submitAt(t).allocation("a").user("u").gpus(1)
                    .duration(Duration.ofHours(1)).kind("train").build(), 0);
        }
        return recent;
    }

    @Test
    void givenSubmissionsEndTwoDaysAheadThenATenDayForecastExpectsTwoDaysOfWorkAndSaysSo() {
        // given a week of one workload an hour, and a replay whose last submission is 2 days after the forecast
        RecentArrivals recent = aWeekOfOneJobAnHour();
        DurationHistory durations = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        long now = 7 * DAY;
        long end = now + 2 * DAY;
        EndingArrivals ending = new EndingArrivals(recent, end);

        List<WorkloadSpec> drawn = ending.draw(now, now + 10 * DAY, "~", durations, new SplittableRandom(5));

        // then it expects the 48 of the next two days, none after the end, the same ones the open model draws there
        assertThat(drawn).hasSize(48).allSatisfy(w -> assertThat(w.submitSeconds()).isLessThanOrEqualTo(end));
        List<WorkloadSpec> open = recent.draw(now, now + 10 * DAY, "~", durations, new SplittableRandom(5));
        assertThat(open).hasSize(10 * 24);
        assertThat(drawn).isEqualTo(open.stream().filter(w -> w.submitSeconds() <= end).toList());
        assertThat(ending.basis(now)).endsWith("until the replay's last submission");
        // and from the end on, none at all
        assertThat(ending.draw(end, end + 5 * DAY, "~", durations, new SplittableRandom(5))).isEmpty();
        assertThat(ending.basis(end)).isEqualTo("no new work (the replay's submissions have ended)");
    }
}
