package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.allot.server.CapturedLog;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the loop logs each time it loads the store: the work found running and adopted by <em>that</em> load. A loop
 * loads again at every new term of leadership (a failover back, or a database outage that let its lease lapse) and
 * after a store write failed; the line added the earlier loads' counts, so that an administrator reading the log after
 * a database outage read "2 workloads running before, 2 of their attempts adopted" with one workload running.
 */
class LoadLogTest {
    private static final long HOUR = 3600;

    @RegisterExtension
    final LoopFixtures loops = new LoopFixtures();

    @Test
    void givenOneWorkloadRunning_whenTheLoopLoadsAgainAtANewTerm_thenEachLoadLogsThatOneWorkloadOnce() {
        // given one workload running, adopted by a loop that starts on the store (a restart)
        Fixture f = loops.open("reload", List.of("a"), 8);
        String w = f.submit("a", 4, HOUR, 900, false);
        f.cycle();
        f.crash();
        Leadership l = Leadership.onLease(f.store.leases(), "vm:/data#", Duration.ofSeconds(60), Duration.ofSeconds(1));
        l.renewOnce();
        f.loop.lead(l);
        try (CapturedLog log = CapturedLog.of(SchedulerLoop.class)) {
            f.cycle();
            // when it loses its term and leads again (a new epoch): it loads and adopts once more
            l.stepDown("the test: another instance holds the lease");
            f.cycle();
            l.renewOnce();
            f.cycle();

            // then each load tells of the one workload it found
            List<String> loads = log.events().stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.startsWith("scheduling loaded")).toList();
            String once = "scheduling loaded 1 node, 1 allocation, 1 workload in the core; 1 workload running before,"
                    + " 1 of their attempts adopted";
            assertThat(loads).containsExactly(once, once);
        }
        assertThat(f.attempts(w)).as("%s ran once", w).hasSize(1);
        assertThat(f.loop.counters().adoptedAtLoad()).as("the counters still add up the loads").isEqualTo(2);
    }
}
