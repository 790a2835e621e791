package dev.allot.core.timeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The one writer of {@link TimelineData}: order, delta-coded starts, slots, periods. */
class TimelineEncoderTest {
    private static TimelineEncoder.Run run(int workload, long start, long end, int... slots) {
        return new TimelineEncoder.Run(workload, start, end, -1, 0, -1, -1, slots);
    }

    @Test
    void runsAreSortedByStartThenWorkloadKeepingTheOrderOfTiesAndTheirStartsAreDeltaCoded() {
        TimelineData t = new TimelineEncoder()
                .add(run(2, 100, 160, 0, 0, 2))
                .add(new TimelineEncoder.Run(1, 100, 130, 20, 1, 3, 2, new int[] {1, 4, 4}))
                .add(run(0, 40, 90, 0, 2, 1, 1, 0, 1))
                .add(run(1, 100, 200, 1, 0, 1))
                .encode();
        assertThat(t.runs()).isEqualTo(4);
        assertThat(t.workload()).containsExactly(0, 1, 1, 2);
        assertThat(t.startDelta()).containsExactly(40, 60, 0, 0);
        assertThat(t.durationSeconds()).containsExactly(50, 30, 100, 60);
        assertThat(t.protectedSeconds()).containsExactly(-1, 20, -1, -1);
        assertThat(t.end()).containsExactly(0, 1, 0, 0);
        assertThat(t.cause()).containsExactly(-1, 3, -1, -1);
        assertThat(t.preemptor()).containsExactly(-1, 2, -1, -1);
        assertThat(t.parts()).containsExactly(2, 1, 1, 1);
        assertThat(t.slots()).containsExactly(0, 2, 1, 1, 0, 1, 1, 4, 4, 1, 0, 1, 0, 0, 2);
    }

    @Test
    void periodsAreSortedByStartNodeAndState() {
        TimelineData t = new TimelineEncoder()
                .add(new TimelineEncoder.Period(3, TimelineData.DRAINED, 50, 90))
                .add(new TimelineEncoder.Period(3, TimelineData.UNHEALTHY, 50, 90))
                .add(new TimelineEncoder.Period(1, TimelineData.UNHEALTHY, 70, 80))
                .add(new TimelineEncoder.Period(0, TimelineData.UNHEALTHY, 50, 60))
                .encode();
        assertThat(t.periodNode()).containsExactly(0, 3, 3, 1);
        assertThat(t.periodState()).containsExactly(0, 0, 1, 0);
        assertThat(t.periodFromSeconds()).containsExactly(50, 50, 50, 70);
        assertThat(t.periodToSeconds()).containsExactly(60, 90, 90, 80);
        assertThat(t.runs()).isZero();
    }

    @Test
    void aRunNeedsWholeSlotTriplesAndAnEndAfterItsStart() {
        assertThatThrownBy(() -> run(0, 0, 10)).hasMessageContaining("at least one");
        assertThatThrownBy(() -> run(0, 0, 10, 1, 2)).hasMessageContaining("triples");
        assertThatThrownBy(() -> run(0, 10, 5, 0, 0, 1)).hasMessageContaining("before it starts");
    }
}
