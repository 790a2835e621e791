package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Launch;
import dev.allot.server.store.WorkloadState;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that reaches the backend after its attempt was settled in the store (a leader paused inside the backend
 * call, resumed after another took over and ended the attempt) is stopped by the next observation, at once, and
 * forgotten once ended ({@link StaleStarts}); an attempt the store still has open is not touched.
 */
class StaleStartTest {
    @TempDir
    Path dir;
    private Fixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    void givenAStartThatLandsAfterItsAttemptEndedThenTheNextCycleStopsItAndTheBackendForgetsItOnceEnded() {
        f = new Fixture(dir.resolve("stale"), List.of("a"), 4);
        String w = f.submit("a", 4, 3600, 0, false);
        f.cycle();
        Launch launch = f.backend.launches.get(0);
        f.cancel(w);
        f.cycle();
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.CANCELLED);
        AttemptKey key = launch.attempt();
        assertThat(f.backend.observe()).as("the backend forgot the ended attempt").isEmpty();
        int stopsBefore = f.backend.stops.size();

        f.backend.start(launch); // the old leader's start, landing late
        assertThat(f.backend.observe()).singleElement()
                .satisfies(s -> assertThat(s.phase()).isEqualTo(AttemptStatus.Phase.RUNNING));
        f.loop.runOnce();
        assertThat(f.backend.stops.subList(stopsBefore, f.backend.stops.size())).as("stopped by the next cycle")
                .containsExactly(key);
        assertThat(f.backend.graces.get(f.backend.graces.size() - 1)).as("with no grace").isZero();
        f.loop.runOnce();
        assertThat(f.backend.observe()).as("forgotten once it ended").isEmpty();
        assertThat(f.attempts(w)).as("the store is not changed by it").singleElement()
                .satisfies(a -> assertThat(a.key()).isEqualTo(key));
        assertThat(f.loop.c.staleStarts.count()).isEqualTo(1);
    }

    @Test
    void givenWorkTheLoopRunsThenNothingIsStoppedAsStale() {
        f = new Fixture(dir.resolve("live"), List.of("a"), 4);
        f.submit("a", 2, 3600, 0, false);
        f.submit("a", 2, 3600, 0, false);
        for (int i = 0; i < 3; i++) {
            f.cycle();
            f.advance(10);
        }
        assertThat(f.backend.launches).hasSize(2);
        assertThat(f.backend.stops).isEmpty();
        assertThat(f.loop.c.staleStarts.count()).isZero();
    }
}
