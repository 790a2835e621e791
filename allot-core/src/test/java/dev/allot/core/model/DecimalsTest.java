package dev.allot.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DecimalsTest {
    private static void same(double x, int places) {
        assertThat(Decimals.fixed(x, places)).as("%s with %d places", x, places)
                .isEqualTo(String.format(Locale.ROOT, "%." + places + "f", x));
    }

    @Test
    void spellsWhatFormatterSpells() {
        double[] edges = {0.0, -0.0, 1.005, 0.125, 0.135, 2.675, 0.995, 9.995, 99.995, 1e-7, 123456789.125,
                1e20, 0.5, 1.5, Double.MIN_VALUE, Double.MAX_VALUE, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY, Double.NaN, -1.005, 4.35, 0.045};
        for (double x : edges) {
            for (int places = 0; places <= 4; places++) {
                same(x, places);
            }
        }
    }

    @Test
    void spellsWhatFormatterSpellsForRandomRatiosAndHalves() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            double x = switch (i % 5) {
                case 0 -> random.nextDouble() * 5;
                case 1 -> random.nextInt(100_000) / 1000.0 + 0.0005; // ties at the third decimal
                case 2 -> random.nextLong(1L << 40) / (double) random.nextLong(1, 1L << 30);
                case 3 -> (random.nextInt(10_000) + 0.5) / 100.0;
                default -> random.nextDouble() * 2e6; // both sides of the fast path's limit
            };
            same(x, 2);
            same(x, 3);
            same(x, i % 5);
        }
    }

    @Test
    void plainSaysANumberAsItWasTypedNotAsJavaSpellsADouble() {
        // a setting's range error said "got -1.0" for -1
        assertThat(Decimals.plain(-1.0)).isEqualTo("-1");
        assertThat(Decimals.plain(0.1)).isEqualTo("0.1");
        assertThat(Decimals.plain(2.50)).isEqualTo("2.5");
        assertThat(Decimals.plain(-0.0)).isEqualTo("0");
        assertThat(Decimals.plain(1234567.0)).isEqualTo("1234567");
        assertThat(Decimals.plain(1e308)).isEqualTo("1E+308");
        assertThat(Decimals.plain(-1e-20)).isEqualTo("-1E-20");
    }

    @Test
    void significantDigitsShowTheNumbersThatDecideWhereFixedDecimalsShowZero() {
        assertThat(Decimals.significant(0.0014881, 3)).isEqualTo("0.00149");
        assertThat(Decimals.significant(0.0029762, 3)).isEqualTo("0.00298");
        assertThat(Decimals.significant(12.345, 3)).isEqualTo("12.3");
        assertThat(Decimals.significant(1.5, 3)).isEqualTo("1.50");
        assertThat(Decimals.significant(1234.5, 3)).isEqualTo("1235");
        assertThat(Decimals.significant(0.001, 3)).isEqualTo("0.00100");
        assertThat(Decimals.significant(0, 3)).isEqualTo("0");
        assertThat(Decimals.significant(3.0e-9, 2)).isEqualTo("0.0000000030");
        // beyond 10^15 either way, an exponent: a share of 1e308 made allot explain print numbers of 309 digits
        assertThat(Decimals.significant(1.2141754850088184e308, 3)).isEqualTo("1.21E+308");
        assertThat(Decimals.significant(4.8e-307, 3)).isEqualTo("4.8E-307");
        assertThat(Decimals.significant(-2.5e20, 2)).isEqualTo("-2.5E+20");
        assertThat(Decimals.significant(999_999_999_999_999.0, 3)).isEqualTo("999999999999999");
        assertThat(Decimals.significant(1e-15, 2)).isEqualTo("0.0000000000000010");
    }
}
