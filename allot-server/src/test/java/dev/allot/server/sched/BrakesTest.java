package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.Launch;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Attempts;
import dev.allot.server.store.BrakeLimits;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The safety brakes on the real-time loop ({@link Brakes}): a resumable workload whose attempts keep getting lost is
 * held once it went back to the queue more often than allowed, or once its runs used the GPU-hour cap; it is never
 * started again until a limit is raised, also across a restart of the service.
 */
class BrakesTest {
    private static final long HOUR = 3600;

    @RegisterExtension
    final LoopFixtures loops = new LoopFixtures();

    private static void limits(Fixture f, int maxRequeues, Double maxGpuHours) {
        f.store.settings().putBrakes(new BrakeLimits(maxRequeues, maxGpuHours), "admin", f.clock.millis());
        f.loop.brakesChanged(); // as the API does after PUT /v1/brakes
    }

    /** The node dies under the workload's latest attempt: the backend reports it stopped, not by the scheduler. */
    /** A 4-GPU workload of allocation a under a requeue limit of 0, lost once after a minute: now held. */
    private static String heldAfterOneFailure(Fixture f) {
        limits(f, 0, null);
        String w = f.submit("a", 4, HOUR, 0, true);
        f.cycle();
        f.advance(60);
        loseLatest(f, w);
        f.cycle();
        return w;
    }

    private static void loseLatest(Fixture f, String id) {
        Launch last = f.backend.launches.stream().filter(l -> l.attempt().workloadId().equals(id))
                .reduce((x, y) -> y).orElseThrow();
        f.backend.stop(last.attempt(), Duration.ZERO);
    }

    private static Workload workload(Fixture f, String id) {
        return f.store.workloads().workload(id).orElseThrow();
    }

    private static long launchesOf(Fixture f, String id) {
        return f.backend.launches.stream().filter(l -> l.attempt().workloadId().equals(id)).count();
    }

    @Test
    void aWorkloadRequeuedMoreThanTheLimitIsHeldWithTheReasonUntilTheLimitIsRaised() {
        Fixture f = loops.open("requeues", 8);
        limits(f, 2, null);
        String w = f.submit("a", 4, HOUR, 0, true);
        f.cycle();
        for (int i = 0; i < 3; i++) {
            f.advance(60);
            loseLatest(f, w);
            f.cycle(); // lost, requeued; started again in the same cycle while the brake allows
        }
        assertThat(f.attempts(w)).extracting(Attempt::outcome)
                .containsExactly(AttemptOutcome.LOST, AttemptOutcome.LOST, AttemptOutcome.LOST);
        assertThat(launchesOf(f, w)).isEqualTo(3);
        Workload held = workload(f, w);
        assertThat(held.state()).isEqualTo(WorkloadState.REQUEUED);
        assertThat(held.heldReason()).isEqualTo(
                "held: requeued 3 times after failures, more than the limit of 2 (brakes.maxRequeues); raise it to release");

        // Never started again, however long it waits on an idle cluster.
        for (int i = 0; i < 5; i++) {
            f.advance(120);
            f.cycle();
        }
        assertThat(launchesOf(f, w)).isEqualTo(3);

        // Raising the limit (no restart: the core knew the id) releases it, and it runs to the end.
        limits(f, 3, null);
        f.advance(1);
        f.cycle();
        assertThat(launchesOf(f, w)).isEqualTo(4);
        assertThat(workload(f, w).heldReason()).isNull();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.RUNNING);
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
    }

    @Test
    void aHeldWorkloadSurvivesARestartStillHeldAndOtherWorkRunsMeanwhile() {
        Fixture f = loops.open("restart", 8);
        String w = heldAfterOneFailure(f);
        assertThat(workload(f, w).heldReason()).contains("requeued 1 time after a failure, more than the limit of 0");

        f.crash();
        String other = f.submit("a", 8, 60, 0, false);
        f.advance(1);
        f.cycle();
        f.advance(1);
        f.cycle();
        assertThat(launchesOf(f, w)).isEqualTo(1);
        assertThat(launchesOf(f, other)).isEqualTo(1); // the held workload's GPUs are free for others
        assertThat(workload(f, w).heldReason()).isNotNull();

        // Raised while the service is down: the restarted loop releases it at load.
        f.advance(120);
        f.cycle();
        f.store.settings().putBrakes(new BrakeLimits(1, null), "admin", f.clock.millis());
        f.crash();
        f.advance(1);
        f.cycle();
        assertThat(launchesOf(f, w)).isEqualTo(2);
        assertThat(workload(f, w).heldReason()).isNull();
    }

    @Test
    void aLimitRaisedWithoutAHintReleasesAHeldWorkloadAtTheNextReadOfTheLimits() {
        // given a workload held after one failure (limit 0)
        Fixture f = loops.open("unhinted", 8);
        String w = heldAfterOneFailure(f);
        assertThat(workload(f, w).heldReason()).isNotNull();
        f.advance(SchedulerLoop.BRAKES_REFRESH_SECONDS);
        f.cycle();
        // when the limit is raised in the store with no hint (another instance's API, say)
        f.store.settings().putBrakes(new BrakeLimits(1, null), "admin", f.clock.millis());
        f.advance(1);
        f.cycle();
        // then it stays held until the loop reads the limits again, and is released then
        assertThat(launchesOf(f, w)).isEqualTo(1);
        f.advance(SchedulerLoop.BRAKES_REFRESH_SECONDS);
        f.cycle();
        assertThat(workload(f, w).heldReason()).isNull();
        assertThat(launchesOf(f, w)).isEqualTo(2);
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.RUNNING);
    }

    @Test
    void theGpuHourCapHoldsARequeuedWorkloadButNeverStopsARunningOne() {
        Fixture f = loops.open("cap", 8);
        limits(f, 20, 0.1); // 360 GPU-seconds
        String w = f.submit("a", 4, HOUR, 0, true); // unallocated: never charged, still counted by the cap
        String steady = f.submit("a", 4, HOUR, 0, true);
        f.cycle();
        f.advance(60);
        loseLatest(f, w); // 240 GPU-seconds: under the cap, started again
        f.cycle();
        assertThat(launchesOf(f, w)).isEqualTo(2);
        f.advance(60);
        loseLatest(f, w); // 480 GPU-seconds: held
        f.cycle();
        assertThat(launchesOf(f, w)).isEqualTo(2);
        assertThat(workload(f, w).heldReason()).isEqualTo("held: used 0.13 GPU-hours, at or above the cap of 0.10"
                + " (brakes.maxGpuHoursPerWorkload); raise it to release");

        // The other one runs far past the cap and is never stopped: the brakes are about resubmission.
        f.advance(HOUR);
        f.cycle();
        assertThat(f.backend.stops).allMatch(k -> k.workloadId().equals(w));
        assertThat(f.stateOf(steady)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(launchesOf(f, w)).isEqualTo(2);

        // Clearing the cap releases it.
        limits(f, 20, null);
        f.advance(1);
        f.cycle();
        assertThat(launchesOf(f, w)).isEqualTo(3);
    }

    @Test
    void loweringALimitHoldsAQueuedWorkloadAtTheNextSyncAndACancelledHeldOneEnds() {
        Fixture f = loops.open("lower", 4);
        String w = f.submit("a", 4, HOUR, 0, true);
        f.cycle();
        f.advance(60);
        loseLatest(f, w);
        f.cycle();
        assertThat(launchesOf(f, w)).isEqualTo(2);
        // The node goes out of service and the work on it is lost: it waits in the core's queue.
        f.store.nodes().setHealth("n1", false, "fan failure", f.clock.millis());
        f.loop.topologyChanged();
        f.advance(60);
        loseLatest(f, w);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.REQUEUED);
        assertThat(workload(f, w).heldReason()).isNull();

        limits(f, 1, null);
        f.advance(1);
        f.cycle();
        Workload held = workload(f, w);
        assertThat(held.heldReason()).contains("requeued 2 times after failures, more than the limit of 1 (brakes.maxRequeues)");
        f.store.nodes().setHealth("n1", true, null, f.clock.millis());
        f.loop.topologyChanged();
        f.advance(60);
        f.cycle();
        assertThat(launchesOf(f, w)).isEqualTo(2);

        f.cancel(w);
        f.advance(1);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.CANCELLED);
        assertThat(workload(f, w).heldReason()).isNull();
    }

    @Test
    void givenUnallocatedWorkThePolicyPreemptsAgainAndAgain_thenTheRequeueBrakeNeverHoldsIt_butALostRunStillCounts() {
        Fixture f = loops.open("preempted", 4);
        limits(f, 2, null);
        String free = f.submit("a", 4, HOUR, 0, true); // unallocated: preemptible by contract
        f.cycle();
        // Given allocated work that takes the node five times in a row, each time preempting the unallocated work ...
        for (int i = 0; i < 5; i++) {
            f.advance(60);
            String allocated = f.submit("a", 4, 60, 60, false);
            f.cycle();
            assertThat(f.stateOf(allocated)).as("round %d", i).isEqualTo(WorkloadState.RUNNING);
            f.advance(60);
            f.cycle(); // it completes; the unallocated work starts again
            assertThat(f.stateOf(allocated)).as("round %d", i).isEqualTo(WorkloadState.COMPLETED);
        }
        // ... then it went back to the queue five times, more than the limit of 2, and is not held: it runs.
        assertThat(f.attempts(free)).extracting(Attempt::outcome).containsExactly(AttemptOutcome.REQUEUED,
                AttemptOutcome.REQUEUED, AttemptOutcome.REQUEUED, AttemptOutcome.REQUEUED, AttemptOutcome.REQUEUED,
                null);
        assertThat(workload(f, free).heldReason()).isNull();
        assertThat(f.stateOf(free)).isEqualTo(WorkloadState.RUNNING);

        // Its own failures still count: three lost runs are more than 2.
        for (int i = 0; i < 3; i++) {
            f.advance(60);
            loseLatest(f, free);
            f.cycle();
        }
        assertThat(workload(f, free).heldReason()).isEqualTo("held: requeued 3 times after failures, more than the"
                + " limit of 2 (brakes.maxRequeues); raise it to release");
        assertThat(launchesOf(f, free)).isEqualTo(8);
    }

    @Test
    void theReasonNamesBothBrakesWhenBothTrip() {
        assertThat(Brakes.reason(new Attempts.RunTotals(3, 7200, 0), new BrakeLimits(2, 1.5)))
                .isEqualTo("held: requeued 3 times after failures, more than the limit of 2 (brakes.maxRequeues), and used 2.00"
                        + " GPU-hours, at or above the cap of 1.50 (brakes.maxGpuHoursPerWorkload); raise them to"
                        + " release");
        assertThat(Brakes.reason(new Attempts.RunTotals(2, 5399, 0), new BrakeLimits(2, 1.5))).isNull();
    }
}
