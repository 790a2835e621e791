package dev.allot.core.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A number as someone wrote it: finite or refused, and named as written with why. */
class TypedNumbersTest {
    @Test
    void aNumberBeyondADoubleOrNaNReadsAsNoneAndIsShownAsWrittenWithWhy() {
        assertThat(TypedNumbers.finite(" 2.5 ")).hasValue(2.5);
        assertThat(TypedNumbers.finite("1e400")).isEmpty();
        assertThat(TypedNumbers.finite("NaN")).isEmpty();
        assertThat(TypedNumbers.finite("lots")).isEmpty();
        assertThat(TypedNumbers.shown("1e400")).isEqualTo("1e400 (beyond the largest number, about 1.8e308)");
        assertThat(TypedNumbers.shown("-1E400")).isEqualTo("-1E400 (beyond the largest number, about 1.8e308)");
        assertThat(TypedNumbers.shown("NaN")).isEqualTo("NaN (not a number)");
        assertThat(TypedNumbers.shown("-1")).isEqualTo("-1");
        assertThat(TypedNumbers.shown("lots")).isEqualTo("'lots'");
        assertThat(TypedNumbers.shown("1" + "0".repeat(400))).isEqualTo("1" + "0".repeat(39)
                + "... (401 characters) (beyond the largest number, about 1.8e308)");
    }
}
