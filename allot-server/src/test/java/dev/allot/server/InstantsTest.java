package dev.allot.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Every instant the API writes has one form, to the millisecond, whether it was kept in milliseconds or seconds. */
class InstantsTest {
    @Test
    void instantsWithAndWithoutMillisecondsAndInstantsKeptInSecondsHaveOneForm() {
        // Instant.toString wrote '2026-03-01T09:00:05.123Z' for one and '2026-03-01T09:00:05Z' for the next, and
        // instants kept in seconds (forecasts, explanations, the queue) never had milliseconds: one answer mixed both
        assertThat(Instants.ofMillis(1_772_355_605_123L)).isEqualTo("2026-03-01T09:00:05.123Z");
        assertThat(Instants.ofMillis(1_772_355_605_000L)).isEqualTo("2026-03-01T09:00:05.000Z");
        assertThat(Instants.ofMillis(1_772_355_605_100L)).isEqualTo("2026-03-01T09:00:05.100Z");
        assertThat(Instants.ofSeconds(1_772_355_605L)).isEqualTo("2026-03-01T09:00:05.000Z");
        assertThat(Instants.ofMillis(0)).isEqualTo("1970-01-01T00:00:00.000Z");
    }
}
