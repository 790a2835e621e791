package dev.allot.core.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A backend that shows no contract in its own tools mirrors nothing of a promotion, and says so with its name: the
 * promotion holds in Allot all the same.
 */
class BackendPromoteTest {
    /** A backend that implements only what every backend must. */
    private static final class Plain implements Backend {
        @Override
        public String name() {
            return "local";
        }

        @Override
        public void start(Launch launch) {
        }

        @Override
        public void stop(AttemptKey attempt, Duration grace) {
        }

        @Override
        public List<AttemptStatus> observe() {
            return List.of();
        }

        @Override
        public void forget(AttemptKey attempt) {
        }
    }

    @Test
    void givenABackendThatShowsNoContractAPromotionIsNotMirroredAndTheAnswerNamesTheBackend() {
        Backend.Mirror m = new Plain().promote(new AttemptKey("shard-3", 1), Launch.Terms.of(2 * 3600, true));

        assertThat(m).isEqualTo(new Backend.Mirror(false, "the local backend shows no contract"));
    }
}
