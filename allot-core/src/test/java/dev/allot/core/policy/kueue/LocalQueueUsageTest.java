package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Admission Fair Sharing's decayed usage: "it closes half of the remaining gap every usageHalfLifeTime". */
class LocalQueueUsageTest {
    private static final long H = 3600;

    @Test
    void usageApproachesWhatTheLocalQueueHoldsByHalfTheGapEveryHalfLife() {
        LocalQueueUsage u = new LocalQueueUsage(168 * H, 0);
        int lq = u.localQueue(0, 0);
        u.advanceTo(0);
        u.addAdmitted(lq, 2);
        u.advanceTo(168 * H);
        assertThat(u.usage(lq)).isCloseTo(1.0, within(1e-12));
        u.advanceTo(2 * 168 * H);
        assertThat(u.usage(lq)).isCloseTo(1.5, within(1e-12));
        u.advanceTo(3 * 168 * H);
        assertThat(u.usage(lq)).isCloseTo(1.75, within(1e-12));
        // released: it decays by half every half-life
        u.addAdmitted(lq, -2);
        u.advanceTo(4 * 168 * H);
        assertThat(u.usage(lq)).isCloseTo(0.875, within(1e-12));
    }

    @Test
    void theDecayIsExactWhateverTheStepsTimeIsTakenIn() {
        LocalQueueUsage once = new LocalQueueUsage(10 * H, 300);
        LocalQueueUsage often = new LocalQueueUsage(10 * H, 300);
        int a = once.localQueue(3, 7);
        int b = often.localQueue(3, 7);
        once.advanceTo(0);
        often.advanceTo(0);
        once.admit(a, 8);
        often.admit(b, 8);
        once.advanceTo(17 * H);
        for (long t = 0; t <= 17 * H; t += 137) {
            often.advanceTo(t);
        }
        often.advanceTo(17 * H);
        assertThat(often.usage(b)).isCloseTo(once.usage(a), within(1e-9));
    }

    @Test
    void eachAdmissionPaysAnEntryPenaltyOfOneSamplingIntervalAtOnce() {
        LocalQueueUsage u = new LocalQueueUsage(168 * H, 300);
        int lq = u.localQueue(0, 0);
        u.advanceTo(0);
        double rate = 1 - Math.pow(0.5, 300.0 / (168 * H));
        assertThat(u.entryPenaltyRate()).isCloseTo(rate, within(1e-15));
        u.admit(lq, 4);
        u.admit(lq, 4);
        assertThat(u.usage(lq)).isCloseTo(8 * rate, within(1e-15));
        assertThat(u.admitted(lq)).isEqualTo(8);
    }

    @Test
    void localQueuesAreAUserInAClusterQueue() {
        LocalQueueUsage u = new LocalQueueUsage(H, 60);
        int a = u.localQueue(0, 0);
        assertThat(u.localQueue(0, 0)).isEqualTo(a);
        assertThat(u.localQueue(1, 0)).isNotEqualTo(a);
        assertThat(u.localQueue(0, 1)).isNotEqualTo(a);
        assertThat(u.size()).isEqualTo(3);
    }

    @Test
    void aZeroHalfLifeKeepsNoHistory() {
        LocalQueueUsage u = new LocalQueueUsage(0, 300);
        int lq = u.localQueue(0, 0);
        u.advanceTo(0);
        u.admit(lq, 4);
        u.advanceTo(10);
        assertThat(u.usage(lq)).isZero();
    }
}
