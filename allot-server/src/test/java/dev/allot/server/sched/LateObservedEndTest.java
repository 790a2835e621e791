package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.WorkloadState;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A backend that learns of ends by asking (Slurm) may report one long after it happened, with the end it recorded
 * (Slurm's EndTime): slurmctld could not be reached for fifty minutes, or the service was down. The attempt is
 * recorded as ended then, its allocation charged and its run counted only up to then; its GPUs are freed when the
 * loop learns of it ({@link EndedAt}).
 */
class LateObservedEndTest {
    private static final long MINUTE = 60;
    private static final long HOUR = 3600;

    @RegisterExtension
    final LoopFixtures loops = new LoopFixtures();

    private static Attempt only(Fixture f, String id) {
        List<Attempt> as = f.attempts(id);
        assertThat(as).hasSize(1);
        return as.get(0);
    }

    /** What the core charged allocation {@code a} in all, and what it counts the workload ran. */
    private static long[] coreCharges(Fixture f, String id) {
        return f.loop.inspect((ClusterState s, Long now) -> {
            Job j = s.job(id).orElseThrow();
            return new long[] {s.totalChargedGpuSeconds(j.leaf()), s.windowUsageGpuSeconds(j.leaf()),
                    j.runGpuSeconds(), j.progressSeconds()};
        }).orElseThrow();
    }

    @Test
    void givenAJobThatEndedTenMinutesInWhileTheBackendCouldNotBeAsked_thenItIsChargedAndRunOnlyUpToThatEnd() {
        Fixture f = loops.open("outage", 8);
        String w = f.submit("a", 4, 10 * MINUTE, 5 * MINUTE, false);
        String waits = f.submit("a", 8, HOUR, 5 * MINUTE, false);
        f.cycle();
        Instant start = f.clock.instant();
        Instant end = start.plusSeconds(10 * MINUTE);
        f.backend.endedAt.put(w, end); // Slurm's EndTime: the program exited ten minutes in
        for (int i = 0; i < 60; i++) { // slurmctld unreachable for an hour: every probe fails
            f.advance(MINUTE);
            f.backend.failObserves = 1;
            f.loop.runOnce();
            f.loop.checkBooks();
        }
        assertThat(f.stateOf(w)).as("not known to have ended while the backend cannot be asked")
                .isEqualTo(WorkloadState.RUNNING);
        assertThat(f.stateOf(waits)).isEqualTo(WorkloadState.PENDING);

        f.cycle(); // an hour in, fifty minutes after the end

        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
        Attempt a = only(f, w);
        assertThat(a.outcome()).isEqualTo(AttemptOutcome.COMPLETED);
        assertThat(a.endedAtMillis()).as("the end Slurm recorded, not when the loop saw it")
                .isEqualTo(end.toEpochMilli());
        assertThat(f.store.attempts().usageSince(start.toEpochMilli(), f.clock.millis()))
                .as("the allocation's usage, from the store").containsEntry("a", 4.0 * 10 * MINUTE);
        assertThat(coreCharges(f, w)).as("charged (total, window), run GPU-seconds and progress in the core")
                .containsExactly(4 * 10 * MINUTE, 4 * 10 * MINUTE, 4 * 10 * MINUTE, 10 * MINUTE);
        // the GPUs are freed when the end is learned: the waiting job starts now, not back then
        assertThat(f.stateOf(waits)).isEqualTo(WorkloadState.RUNNING);
        assertThat(only(f, waits).startedAtMillis()).isEqualTo(f.clock.millis());
    }

    @Test
    void givenAJobThatEndedWhileTheServiceWasDown_whenItRestarts_thenTheEndIsTheOneTheBackendRecorded() {
        Fixture f = loops.open("restart", 8);
        String w = f.submit("a", 4, 10 * MINUTE, 5 * MINUTE, false);
        f.cycle();
        Instant start = f.clock.instant();
        f.advance(5 * MINUTE);
        f.cycle();
        f.crash(); // the service is down for an hour; Slurm runs on

        f.advance(HOUR - 5 * MINUTE);
        Instant end = start.plusSeconds(10 * MINUTE);
        f.backend.endedAt.put(w, end);
        f.cycle();
        f.cycle();

        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(only(f, w).endedAtMillis()).isEqualTo(end.toEpochMilli());
        assertThat(f.store.attempts().usageSince(start.toEpochMilli(), f.clock.millis()))
                .containsEntry("a", 4.0 * 10 * MINUTE);
        assertThat(coreCharges(f, w)).as("charged (total, window), run GPU-seconds and progress in the core")
                .containsExactly(4 * 10 * MINUTE, 4 * 10 * MINUTE, 4 * 10 * MINUTE, 10 * MINUTE);
    }

    @Test
    void anEndReportedBeforeTheAttemptBeganOrAfterNowIsRecordedAtTheStartOrNow() {
        Fixture f = loops.open("clamped", 8);
        String early = f.submit("a", 4, 10 * MINUTE, 5 * MINUTE, false);
        String late = f.submit("a", 4, 10 * MINUTE, 5 * MINUTE, false);
        f.cycle();
        long start = f.clock.millis();
        f.backend.endedAt.put(early, Instant.ofEpochMilli(start - HOUR * 1000));
        f.backend.endedAt.put(late, Instant.ofEpochMilli(start + 2 * HOUR * 1000));
        f.advance(20 * MINUTE);
        f.cycle();

        assertThat(only(f, early).endedAtMillis()).isEqualTo(start);
        assertThat(only(f, late).endedAtMillis()).isEqualTo(f.clock.millis());
        assertThat(f.store.attempts().usageSince(start, f.clock.millis())).containsEntry("a", 4.0 * 20 * MINUTE);
        assertThat(coreCharges(f, late)[0]).isEqualTo(4 * 20 * MINUTE);
    }

    @Test
    void anEndReportedWithoutATimeIsRecordedWhenObservedAsBefore() {
        Fixture f = loops.open("unsaid", 8);
        String w = f.submit("a", 4, 10 * MINUTE, 5 * MINUTE, false);
        f.cycle();
        long start = f.clock.millis();
        f.advance(HOUR);
        f.cycle();

        assertThat(only(f, w).endedAtMillis()).isEqualTo(start + HOUR * 1000);
        assertThat(coreCharges(f, w)[0]).isEqualTo(4 * HOUR);
    }
}
