package dev.allot.core.state;

import static dev.allot.core.state.TwoTeams.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterStateTest {
    private static final long H = 3600;

    private static ClusterState state() {
        ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("n1", 8), NodeSpec.of("n2", 8)), List.of());
        AllocationTree tree = AllocationTree.builder("lab").child("prog", 1).leaf("A", 1).leaf("B", 1).up().build();
        return new ClusterState(cluster, tree, SchedulerConfig.defaults(), 0);
    }

    @Test
    void registrationNamesTheValidAllocationsAndTheClusterSize() {
        ClusterState s = state();
        assertThatThrownBy(() -> s.register(WorkloadSpec.builder("x").allocation("C").build()))
                .hasMessageContaining("unknown allocation 'C'; valid allocations: A, B");
        assertThatThrownBy(() -> s.register(WorkloadSpec.builder("x").allocation("prog").build()))
                .hasMessageContaining("'prog' is not a leaf");
        assertThatThrownBy(() -> s.register(WorkloadSpec.builder("x").allocation("A").gpus(24).gpusPerNode(8).build()))
                .hasMessageContaining("24 GPUs as 3 whole nodes of 8: field 'gpusPerNode': expected a shape the cluster can hold:"
                        + " it has 2 nodes with at least 8 GPUs (16 GPUs on 2 nodes in all");
    }

    @Test
    void aForkGivesAJobRunningPastItsDurationTheWorkItHasDone() {
        // given a job declared to run 1 h that a live service has run for 2 h
        ClusterState s = state();
        Job j = s.register(WorkloadSpec.builder("a1").allocation("A").gpus(8).duration(Duration.ofHours(1)).build());
        s.submit(j, 0);
        s.start(j, on(0, 8), 0);
        s.advanceTo(2 * H);
        // then a fork with its declared duration needs no more of it (due to end at once), and the original is as it was
        Job forked = s.fork(s.tree(), Job::durationSeconds).job("a1").orElseThrow();
        assertThat(forked.durationSeconds()).isEqualTo(2 * H);
        assertThat(forked.state()).isEqualTo(JobState.RUNNING);
        assertThat(j.durationSeconds()).isEqualTo(H);
        assertThat(s.fork(s.tree(), x -> 3 * H).job("a1").orElseThrow().durationSeconds()).isEqualTo(3 * H);
    }

    @Test
    void protectionChargesAndCountersFollowTheJob() {
        ClusterState s = state();
        Job j = s.register(WorkloadSpec.builder("a1").allocation("A").gpus(8).duration(Duration.ofHours(5))
                .minRuntime(Duration.ofHours(2)).priority(Priority.HIGH).resumable(Duration.ofMinutes(30)).build());
        s.submit(j, 0);
        s.start(j, on(0, 8), 0);
        assertThat(s.protections().protectedGpus(0)).isEqualTo(8);
        assertThat(s.committedGpuSeconds(0)).isEqualTo(8 * 2 * H);
        s.advanceTo(H);
        assertThat(s.committedGpuSeconds(0)).isEqualTo(8 * H);
        assertThat(j.isProtected(H)).isTrue();
        s.advanceTo(2 * H);
        assertThat(j.isProtected(2 * H)).isFalse();
        assertThat(s.protections().protectedGpus(0)).isZero();
        assertThat(s.protections().unprotectedGpus(0, Priority.HIGH)).isEqualTo(8);
        ClusterState.PreemptionResult r = s.preempt(j, 2 * H + 45 * 60);
        assertThat(r.requeued()).isTrue();
        assertThat(r.progressKeptSeconds()).isEqualTo(2 * H + 30 * 60);
        assertThat(r.lostGpuSeconds()).isEqualTo(8 * 15 * 60);
        assertThat(s.protections().unprotectedGpus(0, Priority.HIGH)).isZero();
        assertThat(s.totalChargedGpuSeconds(0)).isEqualTo(8 * (2 * H + 45 * 60));
        assertThat(j.state()).isEqualTo(JobState.PENDING);
        assertThat(j.remainingSeconds()).isEqualTo(2 * H + 30 * 60);
    }

    @Test
    void unallocatedWorkIsNeverCharged() {
        ClusterState s = state();
        Job u = s.register(WorkloadSpec.builder("u").allocation("B").gpus(4).minRuntime(Duration.ZERO).build());
        s.submit(u, 0);
        s.start(u, on(1, 4), 0);
        s.complete(u, H);
        assertThat(s.totalChargedGpuSeconds(1)).isZero();
        assertThat(u.state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void aGpuCannotBeGivenTwiceNorWorkStartedOnAnUnhealthyNode() {
        ClusterState s = state();
        Job a = s.register(WorkloadSpec.builder("a").allocation("A").gpus(6).build());
        Job b = s.register(WorkloadSpec.builder("b").allocation("A").gpus(4).build());
        s.submit(a, 0);
        s.submit(b, 0);
        s.start(a, on(0, 6), 0);
        assertThatThrownBy(() -> s.start(b, on(0, 4), 0)).hasMessageContaining("only 2 free");
        s.setHealthy(1, false, 0);
        assertThatThrownBy(() -> s.start(b, on(1, 4), 0)).hasMessageContaining("unhealthy node n2");
        assertThatThrownBy(() -> s.start(a, on(1, 4), 0)).hasMessageContaining("it is RUNNING");
    }

    @Test
    void aNodeIsDrainedWhenItsLastJobLeaves() {
        ClusterState s = state();
        Job a = s.register(WorkloadSpec.builder("a").allocation("A").gpus(8).gpusPerNode(8).build());
        s.submit(a, 0);
        s.start(a, on(0, 8), 0);
        s.setHealthy(0, false, 10);
        s.setHealthy(1, false, 10);
        assertThat(s.nodes().takeDrainNotices()).containsExactly(1);
        assertThat(s.nodes().status(0)).isEqualTo(NodeBooks.Status.DRAINING);
        assertThat(s.nodes().nextUnhealthyBusy(0)).isZero();
        s.complete(a, 20);
        assertThat(s.nodes().takeDrainNotices()).containsExactly(0);
        assertThat(s.nodes().status(0)).isEqualTo(NodeBooks.Status.DRAINED);
        assertThat(s.nodes().nextUnhealthyBusy(0)).isEqualTo(-1);
    }

    @Test
    void resumableWorkWithoutAKnownCheckpointLosesEverythingSinceItsStartOrItsLastProgressReport() {
        // given a resumable workload of 4 GPUs whose checkpoints the scheduler never learns of (the live service)
        ClusterState s = state();
        Job a = s.register(WorkloadSpec.builder("a").allocation("A").gpus(4).duration(Duration.ofHours(5))
                .resumableWithoutKnownCheckpoints().build());
        s.submit(a, 0);
        s.start(a, on(0, 4), 0);
        // when it is preempted after 2h having reported nothing, then it lost all 2h x 4 GPUs and keeps nothing
        assertThat(a.workLostIfPreemptedAtGpuSeconds(2 * H)).isEqualTo(4 * 2 * H);
        ClusterState.PreemptionResult r = s.preempt(a, 2 * H);
        assertThat(r.requeued()).isTrue();
        assertThat(r.progressKeptSeconds()).isZero();
        assertThat(r.lostGpuSeconds()).isEqualTo(4 * 2 * H);
        // when its next attempt reports progress 1h30 in and is preempted 2h in, then it lost the last 30m only
        s.start(a, on(0, 4), 3 * H);
        s.advanceTo(3 * H + 90 * 60);
        s.recordProgress(a, 3 * H + 90 * 60);
        r = s.preempt(a, 5 * H);
        assertThat(r.progressKeptSeconds()).isEqualTo(90 * 60);
        assertThat(r.lostGpuSeconds()).isEqualTo(4 * 30 * 60);
        assertThat(a.lostGpuSeconds()).isEqualTo(4 * 2 * H + 4 * 30 * 60);
    }

    @Test
    void aProgressReportAfterTheLastModelledCheckpointKeepsTheWorkUpToTheReport() {
        // given the simulator's model: a checkpoint every 30m; a progress report at 50m of a 55m run
        ClusterState s = state();
        Job a = s.register(WorkloadSpec.builder("a").allocation("A").gpus(2).duration(Duration.ofHours(5))
                .resumable(Duration.ofMinutes(30)).build());
        s.submit(a, 0);
        s.start(a, on(0, 2), 0);
        assertThat(a.workLostIfPreemptedAtGpuSeconds(55 * 60)).isEqualTo(2 * 25 * 60); // since the 30m checkpoint
        s.advanceTo(50 * 60);
        s.recordProgress(a, 50 * 60);
        assertThat(s.preempt(a, 55 * 60).lostGpuSeconds()).isEqualTo(2 * 5 * 60);
    }

    @Test
    void aPreemptedNonResumableJobEndsAndLosesItsRun() {
        ClusterState s = state();
        Job a = s.register(WorkloadSpec.builder("a").allocation("A").gpus(2).duration(Duration.ofHours(3)).build());
        s.submit(a, 0);
        s.start(a, on(0, 2), 0);
        ClusterState.PreemptionResult r = s.preempt(a, H);
        assertThat(r.requeued()).isFalse();
        assertThat(r.lostGpuSeconds()).isEqualTo(2 * H);
        assertThat(a.state()).isEqualTo(JobState.PREEMPTED);
        assertThat(s.pending().total()).isZero();
    }

    @Test
    void aPolicyThatRequeuesEverythingSendsANonResumableJobBackToStartOver() {
        ClusterState s = state();
        Job a = s.register(WorkloadSpec.builder("a").allocation("A").gpus(2).duration(Duration.ofHours(3)).build());
        s.submit(a, 0);
        s.start(a, on(0, 2), 0);
        ClusterState.PreemptionResult r = s.preempt(a, H, true);
        assertThat(r.requeued()).isTrue();
        assertThat(r.progressKeptSeconds()).isZero();
        assertThat(r.lostGpuSeconds()).isEqualTo(2 * H);
        assertThat(a.state()).isEqualTo(JobState.PENDING);
        assertThat(a.remainingSeconds()).isEqualTo(3 * H);
        assertThat(s.pending().total()).isEqualTo(1);
    }
}
