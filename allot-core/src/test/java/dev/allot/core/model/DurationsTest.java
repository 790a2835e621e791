package dev.allot.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {
    @ParameterizedTest
    @CsvSource({"90s,90", "15m,900", "8h,28800", "2d,172800", "3600,3600", "1h30m,5400", "0,0", "0s,0", " 5m ,300"})
    void parsesCompactDurations(String text, long seconds) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.ofSeconds(seconds));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "h", "5x", "-5m", "1.5h", "5m3", "m5", "99999999999999999999", "9999999999999999d"})
    void rejectsMalformedDurationsWithAHint(String text) {
        assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duration");
    }

    @ParameterizedTest
    @CsvSource({"0,0s", "45,45s", "900,15m", "5400,1h30m", "172800,2d", "90061,1d1h1m1s"})
    void printsCompactly(long seconds, String text) {
        assertThat(Durations.formatSeconds(seconds)).isEqualTo(text);
        assertThat(Durations.parse(text).getSeconds()).isEqualTo(seconds);
    }

    @ParameterizedTest
    @CsvSource({"1h1h,'h'", "5m5m,'m'", "1h30m1h,'h'", "2d1d,'d'"})
    void givenAUnitWrittenTwice_thenTheDurationIsRefusedNamingTheUnitNotReadAsASum(String text, String unit) {
        // 1h1h was read as 2h and 5m5m as 10m, in the API and in the simulator's CSV alike
        assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed duration '" + text + "': the unit '" + unit + "' is given twice; expected each of"
                        + " d, h, m and s at most once, e.g. 1h30m");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\u0661\u0660m", "\u0661\u0660", "1\u0660s", "\uFF11h"})
    void givenDigitsOfAnotherScript_thenTheDurationIsRefusedNotReadAsAsciiDigits(String text) {
        // Arabic-Indic digits (١٠m) were taken as 10m
        assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed duration '" + text + "'; expected e.g. 90s, 15m, 8h, 2d, 1h30m or plain seconds");
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999999999999999999s", "9223372036854775808", "106751991167301d"})
    void givenADurationTooLargeToCount_thenItSaysTheRealLimitOf68Years(String text) {
        // "at most 9223372036854775807 seconds" was said, while a forecast or the simulator reaches 68 years
        assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(Durations.TooLargeException.class)
                .hasMessage("duration '" + text + "' is too large: expected a duration of at most 24855d3h14m7s"
                        + " (2,147,483,647 seconds, about 68 years)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"100000d", "2147483648", "24855d3h14m8s"})
    void givenASettingBeyond68Years_thenItIsTooLargeNotTaken(String text) {
        // --set max-min-runtime=100000d was taken
        assertThatThrownBy(() -> Durations.parseAtMostMax(text)).isInstanceOf(Durations.TooLargeException.class)
                .hasMessage("duration '" + text + "' is too large: expected a duration of at most 24855d3h14m7s"
                        + " (2,147,483,647 seconds, about 68 years)");
        assertThat(Durations.parseAtMostMax("24855d3h14m7s").getSeconds()).isEqualTo(Integer.MAX_VALUE);
    }
}
