package dev.allot.server.backend;

import dev.allot.server.testing.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The simulated backend ends work when the test clock says so, stops it at once and keeps every call idempotent. */
class SimulatedBackendTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));

    private static Launch launch(String id, int attempt, Duration duration) {
        return new Launch(new AttemptKey(id, attempt), List.of(new Launch.NodeGpus("n1", List.of(0))),
                List.of("train"), new TreeMap<>(), duration);
    }

    private static AttemptStatus statusOf(SimulatedBackend backend, String id, int attempt) {
        AttemptKey key = new AttemptKey(id, attempt);
        return backend.observe().stream().filter(s -> s.attempt().equals(key)).findFirst().orElseThrow();
    }

    @Test
    void workExitsWithCodeZeroOnceItsDurationHasPassed() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.start(launch("a", 1, Duration.ofHours(1)));

        clock.advance(Duration.ofMinutes(59));
        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.RUNNING);

        clock.advance(Duration.ofMinutes(1));
        AttemptStatus done = statusOf(backend, "a", 1);
        assertThat(done.phase()).isEqualTo(Phase.EXITED);
        assertThat(done.exitCode()).isZero();
        assertThat(done.ended()).isTrue();
    }

    @Test
    void timeScaleShortensTheWork() {
        SimulatedBackend backend = new SimulatedBackend(clock, 60);
        backend.start(launch("a", 1, Duration.ofHours(1)));

        clock.advance(Duration.ofSeconds(59));
        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.RUNNING);
        clock.advance(Duration.ofSeconds(1));
        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.EXITED);
    }

    @Test
    void aRememberedRunEndsWhenItsStoredStartAndDurationSayAndAStopAskedBeforeThatStoppedIt() {
        Instant tenMinutesAgo = clock.instant().minus(Duration.ofMinutes(10));
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.remember(new AttemptKey("a", 1), tenMinutesAgo, Duration.ofHours(1), null);
        backend.remember(new AttemptKey("b", 2), tenMinutesAgo, Duration.ofHours(1), tenMinutesAgo.plusSeconds(60));
        backend.remember(new AttemptKey("c", 1), tenMinutesAgo, Duration.ofMinutes(5), tenMinutesAgo.plusSeconds(600));
        backend.remember(new AttemptKey("d", 1), tenMinutesAgo, null, null);

        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.RUNNING);
        assertThat(statusOf(backend, "b", 2).phase()).isEqualTo(Phase.STOPPED);
        assertThat(statusOf(backend, "c", 1).phase()).as("it ended by itself before the stop").isEqualTo(Phase.EXITED);
        assertThat(statusOf(backend, "d", 1).phase()).isEqualTo(Phase.RUNNING);
        // A start of a remembered attempt is idempotent, as any start: it keeps its stored start.
        backend.start(launch("a", 1, Duration.ofHours(1)));
        clock.advance(Duration.ofMinutes(49));
        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.RUNNING);
        clock.advance(Duration.ofMinutes(1));
        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.EXITED);
        assertThat(statusOf(backend, "d", 1).phase()).isEqualTo(Phase.RUNNING);
    }

    @Test
    void timeScaleBelowOneIsRefused() {
        assertThatThrownBy(() -> new SimulatedBackend(clock, 0.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeScale");
        assertThatThrownBy(() -> new SimulatedBackend(clock, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void workWithoutADurationRunsUntilStopped() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.start(launch("a", 1, null));

        clock.advance(Duration.ofDays(3650));
        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.RUNNING);

        backend.stop(new AttemptKey("a", 1), Duration.ofMinutes(5));
        AttemptStatus stopped = statusOf(backend, "a", 1);
        assertThat(stopped.phase()).isEqualTo(Phase.STOPPED);
        assertThat(stopped.exitCode()).isNull();
    }

    @Test
    void stoppedWorkStaysStoppedEvenAfterItsEndTimeAndStopIsIdempotent() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.start(launch("a", 1, Duration.ofHours(1)));
        clock.advance(Duration.ofMinutes(10));
        AttemptKey key = new AttemptKey("a", 1);

        backend.stop(key, Duration.ofSeconds(30));
        AttemptStatus first = statusOf(backend, "a", 1);
        clock.advance(Duration.ofHours(2));
        backend.stop(key, Duration.ofSeconds(30));

        assertThat(statusOf(backend, "a", 1)).isEqualTo(first);
        assertThat(first.phase()).isEqualTo(Phase.STOPPED);
        assertThat(first.detail()).contains("PT10M");
    }

    @Test
    void stoppingWorkThatAlreadyExitedLeavesItExited() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.start(launch("a", 1, Duration.ofMinutes(1)));
        clock.advance(Duration.ofMinutes(2));

        backend.stop(new AttemptKey("a", 1), Duration.ZERO);

        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.EXITED);
    }

    @Test
    void stoppingAnUnknownAttemptDoesNothing() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.stop(new AttemptKey("nobody", 1), Duration.ZERO);
        assertThat(backend.observe()).isEmpty();
    }

    @Test
    void startingAKnownAttemptAgainChangesNothing() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.start(launch("a", 1, Duration.ofMinutes(10)));
        clock.advance(Duration.ofMinutes(5));
        backend.start(launch("a", 1, Duration.ofMinutes(10))); // a repeat must not restart the timer

        clock.advance(Duration.ofMinutes(5));
        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.EXITED);
        assertThat(backend.observe()).hasSize(1);
    }

    @Test
    void negativeDurationIsRefused() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        assertThatThrownBy(() -> backend.start(launch("a", 1, Duration.ofSeconds(-1))))
                .isInstanceOf(BackendException.class).hasMessageContaining("a#1");
        assertThat(backend.observe()).isEmpty();
    }

    @Test
    void observeListsAttemptsSortedByKey() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.start(launch("b", 1, null));
        backend.start(launch("a", 2, null));
        backend.start(launch("a", 10, null));
        backend.start(launch("a", 1, null));

        assertThat(backend.observe()).extracting(AttemptStatus::attempt).containsExactly(
                new AttemptKey("a", 1), new AttemptKey("a", 2), new AttemptKey("a", 10), new AttemptKey("b", 1));
    }

    @Test
    void forgetDropsEndedAttemptsAndRefusesRunningOnes() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.start(launch("done", 1, Duration.ofMinutes(1)));
        backend.start(launch("busy", 1, null));
        clock.advance(Duration.ofMinutes(1));

        backend.forget(new AttemptKey("done", 1));
        backend.forget(new AttemptKey("done", 1)); // idempotent
        assertThatThrownBy(() -> backend.forget(new AttemptKey("busy", 1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("busy#1").hasMessageContaining("RUNNING");

        assertThat(backend.observe()).extracting(AttemptStatus::attempt).containsExactly(new AttemptKey("busy", 1));
    }

    @Test
    void aDurationTooLongForTheCalendarRunsUntilStopped() {
        SimulatedBackend backend = new SimulatedBackend(clock);
        backend.start(launch("a", 1, Duration.ofSeconds(Long.MAX_VALUE)));
        clock.advance(Duration.ofDays(365L * 1000));
        assertThat(statusOf(backend, "a", 1).phase()).isEqualTo(Phase.RUNNING);
    }
}
