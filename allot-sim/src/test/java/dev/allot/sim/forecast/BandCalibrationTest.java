package dev.allot.sim.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Bands widened or narrowed from the track record hold the wanted share of later starts. */
class BandCalibrationTest {
    private static final long HORIZON = 30 * 86_400L;

    private static Forecast band(long madeAt, long lowWait, long medianWait, long highWait) {
        return new Forecast("w", madeAt, madeAt + lowWait, madeAt + medianWait, madeAt + highWait, madeAt + HORIZON,
                "test");
    }

    /** Waits around 2 h, spread by a factor of e per standard deviation. */
    private static long actualWait(SplittableRandom r) {
        double z = Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
        return Math.round(Math.exp(Math.log(7_200) + z));
    }

    private static double coverageAfterLearning(long lowWait, long highWait) {
        SplittableRandom r = new SplittableRandom(7);
        BandCalibration c = new BandCalibration(0.8);
        for (int i = 0; i < 1_000; i++) {
            c.learn(band(i, lowWait, 7_200, highWait), i + actualWait(r));
        }
        int covered = 0;
        int trials = 2_000;
        for (int i = 0; i < trials; i++) {
            Forecast f = c.apply(band(i, lowWait, 7_200, highWait));
            if (f.covers(i + actualWait(r))) {
                covered++;
            }
        }
        return covered / (double) trials;
    }

    @Test
    void aBandTooNarrowIsWidenedToHoldEightyPercent() {
        assertThat(coverageAfterLearning(6_000, 8_000)).isBetween(0.76, 0.84);
    }

    @Test
    void aBandTooWideIsNarrowedToHoldEightyPercent() {
        assertThat(coverageAfterLearning(60, 30 * 3_600)).isBetween(0.76, 0.84);
    }

    @Test
    void untilEnoughStartsAreKnownTheRunsOwnBandIsKept() {
        BandCalibration c = new BandCalibration(0.8);
        Forecast raw = band(0, 6_000, 7_200, 8_000);
        for (int i = 0; i < BandCalibration.MIN_SCORES - 1; i++) {
            c.learn(raw, 50_000);
        }
        assertThat(c.apply(raw)).isEqualTo(raw);
        c.learn(raw, 50_000);
        Forecast wider = c.apply(raw);
        assertThat(wider.highSeconds()).isGreaterThanOrEqualTo(50_000);
        assertThat(wider.medianSeconds()).isEqualTo(raw.medianSeconds());
    }
}
