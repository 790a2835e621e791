package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EndSettlingTest {
    @Test
    void withoutASettleTimeNoCycleHolds() {
        EndSettling s = new EndSettling(Duration.ZERO);
        assertThat(s.holds(3, 1_000)).isFalse();
        assertThat(s.holds(1, 1_100)).isFalse();
    }

    @Test
    void aCycleThatSawEndsHoldsUntilACycleSeesNoneAndNeverLongerThanTheSettleTime() {
        EndSettling s = new EndSettling(Duration.ofMillis(500));
        assertThat(s.holds(0, 1_000)).as("no end: decide").isFalse();
        assertThat(s.holds(1, 1_100)).as("an end: wait for the next cycle").isTrue();
        assertThat(s.holds(2, 1_200)).as("more ends within the settle time").isTrue();
        assertThat(s.holds(0, 1_300)).as("no further end: decide").isFalse();
        assertThat(s.holds(1, 2_000)).as("a new first end").isTrue();
        assertThat(s.holds(1, 2_400)).isTrue();
        assertThat(s.holds(1, 2_500)).as("500 ms after the first end: decide even though ends keep coming").isFalse();
        assertThat(s.holds(1, 2_600)).as("and the next end starts a new wait").isTrue();
    }

    @Test
    void aNegativeSettleTimeIsRefused() {
        assertThatThrownBy(() -> new EndSettling(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be negative");
    }
}
