package dev.allot.server;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The one form of an instant the service writes in its API's answers, errors and audit entries: ISO-8601 in UTC to
 * the millisecond, always three digits ({@code 2026-03-01T09:00:00.000Z}). Java's {@code Instant.toString} wrote the
 * milliseconds only when they were not zero, and instants kept in seconds (forecasts, explanations, the queue) had
 * none, so one answer mixed {@code 09:00:05Z} and {@code 09:00:05.123Z}. Milliseconds rather than whole seconds:
 * {@code allot replay} measures submissions, starts and ends from these fields at a time scale (at 60 scenario
 * seconds per real second, a second cut off would be a minute of the scenario).
 */
public final class Instants {
    private static final DateTimeFormatter FORM = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'",
            Locale.ROOT).withZone(ZoneOffset.UTC);

    private Instants() {
    }

    /** The instant {@code millis} after the epoch. */
    public static String ofMillis(long millis) {
        return FORM.format(Instant.ofEpochMilli(millis));
    }

    /** An instant kept in whole seconds. */
    public static String ofSeconds(long seconds) {
        return ofMillis(Math.multiplyExact(seconds, 1000L));
    }
}
