package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.server.store.Store;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch of starts or stops through {@link LeaderOnlyBackend} ({@link Backend#startAll}, {@link Backend#stopAll}): as
 * for single calls, none begins once this instance may no longer act, even when it stops leading in the middle of
 * the batch; those not begun are reported not known to have started (or not stopped), to be asked again.
 */
class LeaderOnlyBatchTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);
    private static final AttemptKey W2 = new AttemptKey("w-2", 1);
    private static final AttemptKey W3 = new AttemptKey("w-3", 1);

    @TempDir
    Path dir;

    /** A backend that records what it was asked and makes the instance step down after its first call. */
    private static final class SteppingDown implements Backend {
        final List<AttemptKey> asked = new ArrayList<>();
        final Leadership leadership;

        SteppingDown(Leadership leadership) {
            this.leadership = leadership;
        }

        @Override
        public String name() {
            return "test";
        }

        @Override
        public void start(Launch launch) {
            asked.add(launch.attempt());
            leadership.stepDown("another instance took over (test)");
        }

        @Override
        public void stop(AttemptKey attempt, Duration grace) {
            asked.add(attempt);
            leadership.stepDown("another instance took over (test)");
        }

        @Override
        public List<AttemptStatus> observe() {
            return List.of();
        }

        @Override
        public void forget(AttemptKey attempt) {
        }
    }

    private static Launch launch(AttemptKey key) {
        return new Launch(key, List.of(new Launch.NodeGpus("n1", List.of(0))), List.of("true"), new TreeMap<>(), null,
                Launch.Terms.ALLOCATED);
    }

    private Leadership leading(Store store) {
        Leadership l = Leadership.onLease(store.leases(), "a#", Duration.ofSeconds(60), Duration.ofSeconds(1));
        l.renewOnce();
        assertThat(l.mayAct()).isTrue();
        return l;
    }

    @Test
    void aBatchBegunWhileLeadingBeginsNothingMoreOnceTheInstanceStepsDown() throws Exception {
        try (Store store = Store.sqlite(dir)) {
            Leadership l = leading(store);
            SteppingDown inner = new SteppingDown(l);
            LeaderOnlyBackend backend = new LeaderOnlyBackend("test", () -> inner, l, false);

            Map<AttemptKey, BackendException> failed = backend.startAll(List.of(launch(W1), launch(W2), launch(W3)),
                    Backend.OPEN);

            assertThat(inner.asked).containsExactly(W1);
            assertThat(failed).containsOnlyKeys(W2, W3);
            assertThat(failed.values()).allMatch(e -> e instanceof BackendUnavailableException);
        }
    }

    @Test
    void aBatchOfStopsToo() throws Exception {
        try (Store store = Store.sqlite(dir)) {
            Leadership l = leading(store);
            SteppingDown inner = new SteppingDown(l);
            LeaderOnlyBackend backend = new LeaderOnlyBackend("test", () -> inner, l, false);

            Map<AttemptKey, BackendException> failed = backend.stopAll(List.of(
                    new Backend.Stop(W1, Duration.ZERO, null), new Backend.Stop(W2, Duration.ZERO, "cancelled")),
                    Backend.OPEN);

            assertThat(inner.asked).containsExactly(W1);
            assertThat(failed).containsOnlyKeys(W2);
        }
    }
}
