package dev.allot.core.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The shared settings reach no further than any duration may (about 68 years, {@code Durations.MAX_SECONDS}):
 * {@code --set max-min-runtime=100000d} was taken by the simulator and the service alike.
 */
class SchedulerConfigLimitsTest {
    @Test
    void givenAMaxMinRuntimeOf100000Days_thenItIsRefusedSayingTheLimit() {
        assertThatThrownBy(() -> SchedulerConfig.defaults().withMaxMinRuntime(Duration.ofDays(100_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max-min-runtime must be a duration of at most 24855d3h14m7s (2,147,483,647 seconds,"
                        + " about 68 years), got 100000d");
        assertThat(SchedulerConfig.defaults().withMaxMinRuntime(Duration.ofSeconds(Integer.MAX_VALUE))
                .maxMinRuntime().getSeconds()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void givenALookbackOf100000DaysInOneBucket_thenItIsRefusedSayingTheLimit() {
        Duration d = Duration.ofDays(100_000);
        assertThatThrownBy(() -> new SchedulerConfig(d, SchedulerConfig.DEFAULT_MAX_MIN_RUNTIME, d))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lookback must be a duration of at most 24855d3h14m7s (2,147,483,647 seconds,"
                        + " about 68 years), got 100000d");
    }
}
