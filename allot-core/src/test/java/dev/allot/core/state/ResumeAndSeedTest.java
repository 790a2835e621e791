package dev.allot.core.state;

import static dev.allot.core.state.TwoTeams.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A service that restarts (or rebuilds its state after an edit of the tree) adopts running work at the time it
 * started and seeds the usage of the window: the minimum runtime a workload was promised is neither extended nor
 * shortened, and fair share remembers who used what.
 */
class ResumeAndSeedTest {
    private static final long H = 3600;

    private static WorkloadSpec.Builder train(String id, String allocation) {
        return WorkloadSpec.builder(id).allocation(allocation).gpus(4).duration(Duration.ofHours(10))
                .minRuntime(Duration.ofHours(2)).resumable(Duration.ofMinutes(30));
    }

    @Test
    void givenWorkStartedAnHourBeforeTheRestartItsProtectionEndsAnHourAfter() {
        ClusterState s = TwoTeams.at(10 * H);
        Job j = s.register(train("a1", "A").build());
        s.submit(j, 10 * H);
        s.resume(j, on(0, 4), 9 * H, 10 * H);

        assertThat(j.attemptStartSeconds()).isEqualTo(9 * H);
        assertThat(j.protectedUntilSeconds()).isEqualTo(11 * H);
        assertThat(s.nodes().latestProtectionEnd(0)).isEqualTo(11 * H);
        assertThat(s.committedGpuSeconds(0)).isEqualTo(4 * H);
        assertThat(j.isProtected(11 * H - 1)).isTrue();
        s.advanceTo(11 * H);
        assertThat(j.isProtected(11 * H)).isFalse();
        assertThat(s.protections().protectedGpus(0)).isZero();
        assertThat(s.protections().unprotectedGpus(0)).isEqualTo(4);
        // charged only from the resume on: the hour before is the owner's to seed
        assertThat(s.windowUsageGpuSeconds(0)).isEqualTo(4 * H);
        // progress counts from the real start: preempted at 11h30 it keeps 2h30 (checkpoints every 30m)
        ClusterState.PreemptionResult r = s.preempt(j, 11 * H + 30 * 60);
        assertThat(r.progressKeptSeconds()).isEqualTo(2 * H + 30 * 60);
    }

    @Test
    void givenWorkWhoseProtectionEndedBeforeTheRestartItIsUnprotectedAtOnce() {
        ClusterState s = TwoTeams.at(10 * H);
        Job j = s.register(train("a1", "A").build());
        s.submit(j, 10 * H);
        s.resume(j, on(1, 4), 5 * H, 10 * H);

        assertThat(j.isProtected(10 * H)).isFalse();
        assertThat(s.protections().protectedGpus(0)).isZero();
        assertThat(s.protections().unprotectedGpus(0)).isEqualTo(4);
        assertThat(s.committedGpuSeconds(0)).isZero();
        assertThat(s.nodes().protectedJobsOn(1)).isZero();
        assertThat(s.nodes().free().free(1)).isEqualTo(4);
    }

    @Test
    void resumeAcceptsAnUnhealthyNodeSoThatAdoptedWorkDrainsFromIt() {
        ClusterState s = TwoTeams.at(10 * H);
        s.setHealthy(0, false, 10 * H);
        Job j = s.register(train("a1", "A").build());
        s.submit(j, 10 * H);
        assertThatThrownBy(() -> s.start(j, on(0, 4), 10 * H)).hasMessageContaining("unhealthy");
        s.resume(j, on(0, 4), 9 * H, 10 * H);
        assertThat(s.nodes().nextUnhealthyBusy(0)).isEqualTo(0);
        assertThatThrownBy(() -> s.resume(s.register(train("a2", "A").build()), on(1, 4), 11 * H, 10 * H))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void seededUsageLandsInTheWindowAndOlderUsageOnlyInTheTotal() {
        long now = 200 * H; // the default window is 168 one-hour buckets
        ClusterState s = TwoTeams.at(now);
        s.seedUsage(0, 8, now - 2 * H - 1800, now - H);   // 1.5 h x 8 GPUs inside the window
        s.seedUsage(1, 2, now - 300 * H, now - 180 * H);  // all before the window
        s.seedUsage(1, 1, now - 168 * H, now - 166 * H);  // straddles the window's start
        assertThat(s.windowUsageGpuSeconds(0)).isEqualTo(8 * (H + 1800));
        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(8 * (H + 1800));
        assertThat(s.windowUsageGpuSeconds(1)).isEqualTo(H);
        assertThat(s.totalChargedGpuSeconds(1)).isEqualTo(2 * 120 * H + 2 * H);
        assertThatThrownBy(() -> s.seedUsage(0, 1, now, now + 1)).hasMessageContaining("after now");
        // the seeded hours leave the window as time goes on
        s.advanceTo(now + 3 * H);
        assertThat(s.windowUsageGpuSeconds(1)).isZero();
        assertThat(s.windowUsageGpuSeconds(0)).isEqualTo(8 * (H + 1800));
        s.advanceTo(now + 167 * H);
        assertThat(s.windowUsageGpuSeconds(0)).isZero();
    }
}
