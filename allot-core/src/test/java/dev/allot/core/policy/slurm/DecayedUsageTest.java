package dev.allot.core.policy.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** PriorityDecayHalfLife: past usage counts half as much for every half-life since it happened. */
class DecayedUsageTest {
    private static final long DAY = 86_400;
    private static final long WEEK = 7 * DAY;
    private static final double LN2 = Math.log(2);

    /** Usage of 8 GPUs run for one hour from time 0 (at the default 7-day half-life). */
    private static DecayedUsage oneHourOfEightGpus() {
        DecayedUsage u = new DecayedUsage(1, WEEK, 0);
        u.setRate(0, 8);
        u.advanceTo(3600);
        u.setRate(0, 0);
        return u;
    }

    @Test
    void usageHalvesEveryHalfLife() {
        DecayedUsage u = oneHourOfEightGpus();
        double first = u.usage(0);
        // what accrued during the hour is already decayed a little: 8 x h/ln2 x (1 - 2^(-1h/h))
        assertThat(first).isCloseTo(8 * WEEK / LN2 * (1 - Math.pow(2, -3600.0 / WEEK)), within(1e-6));
        assertThat(first).isLessThan(8 * 3600.0).isGreaterThan(8 * 3600.0 * 0.997);
        u.advanceTo(3600 + WEEK);
        assertThat(u.usage(0)).isCloseTo(first / 2, within(1e-6));
        u.advanceTo(3600 + 2 * WEEK);
        assertThat(u.usage(0)).isCloseTo(first / 4, within(1e-6));
    }

    @Test
    void aConstantRateApproachesRateTimesHalfLifeOverLn2() {
        DecayedUsage u = new DecayedUsage(1, WEEK, 0);
        u.setRate(0, 4);
        u.advanceTo(WEEK);
        assertThat(u.usage(0)).isCloseTo(4 * WEEK / LN2 / 2, within(1e-3)); // half way there after one half-life
        u.advanceTo(60 * WEEK);
        assertThat(u.usage(0)).isCloseTo(4 * WEEK / LN2, within(1e-3));
    }

    @Test
    void advancingInStepsEqualsAdvancingAtOnce() {
        DecayedUsage steps = new DecayedUsage(2, DAY, 100);
        DecayedUsage once = new DecayedUsage(2, DAY, 100);
        steps.setRate(0, 3);
        once.setRate(0, 3);
        steps.setRate(1, 0.5);
        once.setRate(1, 0.5);
        for (long t = 100; t <= 100 + 5 * DAY; t += 317) {
            steps.advanceTo(t);
        }
        steps.advanceTo(100 + 5 * DAY);
        once.advanceTo(100 + 5 * DAY);
        assertThat(steps.usage(0)).isCloseTo(once.usage(0), within(once.usage(0) * 1e-12));
        assertThat(steps.usage(1)).isCloseTo(once.usage(1), within(once.usage(1) * 1e-12));
    }

    @Test
    void aHalfLifeOfZeroMeansNoDecay() {
        DecayedUsage u = new DecayedUsage(1, 0, 0);
        u.setRate(0, 2);
        u.advanceTo(3600);
        u.setRate(0, 0);
        u.advanceTo(100 * WEEK);
        assertThat(u.usage(0)).isEqualTo(7200.0);
    }

    @Test
    void theSameInputsGiveBitForBitTheSameUsage() {
        assertThat(oneHourOfEightGpus().usage(0)).isEqualTo(oneHourOfEightGpus().usage(0));
    }

    @Test
    void timeNeverGoesBackAndRatesAreNeverNegative() {
        DecayedUsage u = new DecayedUsage(1, WEEK, 50);
        assertThatThrownBy(() -> u.advanceTo(49)).hasMessageContaining("time went back");
        assertThatThrownBy(() -> u.setRate(0, -1)).hasMessageContaining(">= 0");
        assertThatThrownBy(() -> new DecayedUsage(1, -1, 0)).hasMessageContaining("half-life");
    }
}
