package dev.allot.core.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ClusterState#demote}: waiting allocated work becomes unallocated, the reverse of a waiting promotion. */
class ClusterStateDemoteTest {
    private static final long H = 3600;

    private static ClusterState state() {
        ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("n1", 8)), List.of());
        AllocationTree tree = AllocationTree.builder("lab").leaf("A", 1).leaf("B", 1).build();
        return new ClusterState(cluster, tree, SchedulerConfig.defaults(), 0);
    }

    private static WorkloadSpec shard(String id, Duration minRuntime) {
        return WorkloadSpec.builder(id).allocation("A").gpus(1).duration(Duration.ofHours(10)).minRuntime(minRuntime)
                .resumable(Duration.ofMinutes(5)).build();
    }

    @Test
    void aWaitingAllocatedJobMovesToTheUnallocatedQueueKeepingItsProgress() {
        ClusterState s = state();
        Job j = s.register(shard("s1", Duration.ofHours(8)));
        s.submit(j, 0);
        s.start(j, new Placement(new int[] {0}, new int[] {1}), 0);
        s.advanceTo(9 * H);
        s.preempt(j, 9 * H + 7 * 60); // keeps 9h05m, loses 2 minutes
        assertThat(s.pending().count(0, true)).isEqualTo(1);

        s.demote(j, 9 * H + 7 * 60);

        assertThat(j.allocated()).isFalse();
        assertThat(j.spec().minRuntime()).isZero();
        assertThat(j.minRuntimeSeconds()).isZero();
        assertThat(j.promotedAtSeconds()).isEqualTo(-1);
        assertThat(j.progressSeconds()).isEqualTo(9 * H + 5 * 60);
        assertThat(j.state()).isEqualTo(JobState.PENDING);
        assertThat(s.pending().count(0, true)).isZero();
        assertThat(s.pending().count(0, false)).isEqualTo(1);
        assertThat(s.pending().bestHead(0, false)).isSameAs(j);
        // nothing ran since the preemption: the charge is the allocated attempt's, no more
        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(9 * H + 7 * 60);
    }

    @Test
    void aDemotedJobRunsUnallocatedAndMayBePromotedAgain() {
        ClusterState s = state();
        Job j = s.register(shard("s1", Duration.ofHours(2)));
        s.submit(j, 0);
        s.demote(j, 0);
        s.start(j, new Placement(new int[] {0}, new int[] {1}), 0);
        assertThat(s.running().unallocatedGpus()).isEqualTo(1);
        assertThat(s.protections().protectedGpus(0)).isZero();
        s.promote(j, Duration.ofHours(2), H);
        assertThat(j.allocated()).isTrue();
        assertThat(j.promotedAtSeconds()).isEqualTo(H);
        assertThat(j.protectedUntilSeconds()).isEqualTo(3 * H);
        s.complete(j, 2 * H);
        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(H); // charged from the promotion only
    }

    @Test
    void onlyWaitingAllocatedWorkCanBeDemoted() {
        ClusterState s = state();
        Job running = s.register(shard("r", Duration.ofHours(2)));
        s.submit(running, 0);
        s.start(running, new Placement(new int[] {0}, new int[] {1}), 0);
        assertThatThrownBy(() -> s.demote(running, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot demote r: it is RUNNING; only waiting work changes to unallocated");
        Job free = s.register(shard("u", Duration.ZERO));
        s.submit(free, 0);
        assertThatThrownBy(() -> s.demote(free, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot demote u: it is unallocated already");
        Job fresh = s.register(shard("n", Duration.ofHours(1)));
        assertThatThrownBy(() -> s.demote(fresh, 0)).hasMessageContaining("it is NEW");
    }
}
