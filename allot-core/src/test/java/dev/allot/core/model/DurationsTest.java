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
}
