package dev.allot.core.state;

import static dev.allot.core.state.TwoTeams.on;
import static dev.allot.core.state.TwoTeams.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A driver learns of an attempt's end after it happened (a cluster manager that could not be probed for a while, a
 * service that was down): the state is told when the work really ended and when the driver learned it. The job ran,
 * and its allocation is charged, up to the real end; its GPUs were held in the books until the driver learned it.
 */
class EndsLearnedLateTest {
    private static final long H = 3600;
    private static final long M = 60;

    private static Job running(ClusterState s, String id, WorkloadSpec.Builder b) {
        Job j = s.register(b.build());
        s.submit(j, 0);
        s.start(j, on(0, 4), 0);
        return j;
    }

    private static WorkloadSpec.Builder train(String id) {
        return WorkloadSpec.builder(id).allocation("A").gpus(4).duration(Duration.ofHours(10))
                .minRuntime(Duration.ofHours(2)).resumable(Duration.ofMinutes(30));
    }

    @Test
    void givenAJobThatCompletedTenMinutesInAndWasLearnedOfAnHourInItIsChargedAndHasRunTenMinutes() {
        ClusterState s = state();
        Job j = running(s, "a1", train("a1"));
        s.advanceTo(H);
        assertThat(s.totalChargedGpuSeconds(0)).as("charged while the driver believed it ran").isEqualTo(4 * H);

        s.complete(j, 10 * M, H);

        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(4 * 10 * M);
        assertThat(s.windowUsageGpuSeconds(0)).isEqualTo(4 * 10 * M);
        assertThat(j.runGpuSeconds()).isEqualTo(4 * 10 * M);
        assertThat(j.progressSeconds()).isEqualTo(10 * M);
        assertThat(j.endSeconds()).isEqualTo(10 * M);
        assertThat(s.nodes().jobsOn(0)).as("freed when learned").isEmpty();
        s.advanceTo(2 * H);
        assertThat(s.totalChargedGpuSeconds(0)).as("nothing charged after the end").isEqualTo(4 * 10 * M);
    }

    @Test
    void aLostAttemptLearnedLateKeepsAndLosesWorkUpToItsRealEnd() {
        ClusterState s = state();
        Job j = running(s, "a1", train("a1"));
        s.advanceTo(2 * H);

        ClusterState.PreemptionResult r = s.preempt(j, 45 * M, 2 * H, true);

        assertThat(r.requeued()).isTrue();
        assertThat(r.progressKeptSeconds()).isEqualTo(30 * M);
        assertThat(r.lostGpuSeconds()).isEqualTo(4 * 15 * M);
        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(4 * 45 * M);
        assertThat(j.runGpuSeconds()).isEqualTo(4 * 45 * M);
    }

    @Test
    void aCancelledAttemptLearnedLateIsChargedUpToItsEnd() {
        ClusterState s = state();
        Job j = running(s, "a1", train("a1"));
        s.advanceTo(H);

        s.cancel(j, 20 * M, H);

        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(4 * 20 * M);
        assertThat(j.state()).isEqualTo(JobState.CANCELLED);
        assertThat(j.endSeconds()).isEqualTo(20 * M);
    }

    @Test
    void anEndBeforeTheAttemptBeganCountsAsItsStartAndAnEndNotYetComeIsRefused() {
        ClusterState s = state();
        s.advanceTo(H);
        Job j = s.register(train("a1").build());
        s.submit(j, H);
        s.start(j, on(0, 4), H);
        s.advanceTo(2 * H);

        assertThatThrownBy(() -> s.complete(j, 3 * H, 2 * H)).hasMessageContaining("cannot have ended at 10800, after"
                + " now (7200)");
        s.complete(j, 10 * M, 2 * H);

        assertThat(s.totalChargedGpuSeconds(0)).isZero();
        assertThat(j.runGpuSeconds()).isZero();
    }

    @Test
    void workPromotedInPlaceIsRefundedOnlyWhatWasChargedAfterItsPromotion() {
        ClusterState s = state();
        Job j = running(s, "u1", WorkloadSpec.builder("u1").allocation("A").gpus(4).duration(Duration.ofHours(10))
                .minRuntime(Duration.ZERO));
        s.advanceTo(H);
        s.promote(j, Duration.ofHours(1), H);
        s.advanceTo(2 * H);
        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(4 * H);

        s.complete(j, 30 * M, 2 * H); // it ended before its promotion: none of what was charged was used

        assertThat(s.totalChargedGpuSeconds(0)).isZero();
        assertThat(s.windowUsageGpuSeconds(0)).isZero();
    }

    @Test
    void anEndLearnedAfterTheWindowSlidKeepsTheWindowAndTheTotalConsistent() {
        ClusterState s = state();
        Job j = running(s, "a1", train("a1").duration(Duration.ofDays(30)));
        long lookback = s.ledger().windowSeconds();
        s.advanceTo(lookback + 3 * H);
        long end = lookback - 2 * H;

        s.complete(j, end, lookback + 3 * H);

        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(4 * end);
        // the window now begins with the hour from 4 h (hourly buckets): it holds what ran from then to the end
        assertThat(s.windowUsageGpuSeconds(0)).isEqualTo(4 * (end - 4 * H));
        s.advanceTo(lookback * 3);
        assertThat(s.windowUsageGpuSeconds(0)).as("all of it slides out, none goes negative").isZero();
    }
}
