package dev.allot.core.state;

import static dev.allot.core.state.TwoTeams.on;
import static dev.allot.core.state.TwoTeams.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Unallocated work promoted to allocated in place ({@link ClusterState#promote}): a waiting job moves to its
 * allocation's allocated queue; a running one keeps its attempt, placement and progress, and is charged and protected
 * from the promotion on, exactly as an allocated attempt started then.
 */
class ClusterStatePromoteTest {
    private static final long H = 3600;
    private static final int A = 0;
    private static final int B = 1;

    /** A shard of 20h on 4 GPUs in allocation A, unallocated, checkpointing every 30 minutes. */
    private static WorkloadSpec shard(String id) {
        return WorkloadSpec.builder(id).allocation("A").gpus(4).duration(Duration.ofHours(20)).minRuntime(Duration.ZERO)
                .priority(Priority.HIGH).resumable(Duration.ofMinutes(30)).submitAt(0).build();
    }

    private static Job runningShard(ClusterState s, String id, int node, long startedAt) {
        Job j = s.register(shard(id));
        s.submit(j, startedAt);
        s.start(j, on(node, 4), startedAt);
        return j;
    }

    @Test
    void givenAShardRunningUnallocatedPromotedAt3hItIsAllocatedAndProtectedUntil5hInTheSameAttempt() {
        ClusterState s = state();
        Job j = runningShard(s, "shard-0", 0, 0);
        Placement placement = j.placement();
        s.advanceTo(3 * H);
        assertThat(s.windowUsageGpuSeconds(A)).isZero();

        s.promote(j, Duration.ofHours(2), 3 * H);

        assertThat(j.allocated()).isTrue();
        assertThat(j.spec().minRuntime()).isEqualTo(Duration.ofHours(2));
        assertThat(j.minRuntimeSeconds()).isEqualTo(2 * H);
        assertThat(j.minRuntimeCapped()).isFalse();
        assertThat(j.promotedAtSeconds()).isEqualTo(3 * H);
        assertThat(j.protectedUntilSeconds()).isEqualTo(5 * H);
        assertThat(j.isProtected(3 * H)).isTrue();
        // the same attempt where it ran
        assertThat(j.state()).isEqualTo(JobState.RUNNING);
        assertThat(j.attempts()).isEqualTo(1);
        assertThat(j.attemptStartSeconds()).isZero();
        assertThat(j.placement()).isSameAs(placement);
        assertThat(j.preemptions()).isZero();
        // in the allocated books, out of the unallocated ones
        assertThat(s.running().allocated(A)).containsExactly(j);
        assertThat(s.running().unallocated()).isEmpty();
        assertThat(s.running().unallocatedGpus()).isZero();
        assertThat(s.running().count()).isEqualTo(1);
        assertThat(s.protections().protectedGpus(A)).isEqualTo(4);
        assertThat(s.committedGpuSeconds(A)).isEqualTo(4 * 2 * H);
        assertThat(s.nodes().protectedJobsOn(0)).isEqualTo(1);
        assertThat(s.nodes().latestProtectionEnd(0)).isEqualTo(5 * H);
        assertThat(s.protections().nextEndSeconds()).isEqualTo(5 * H);
        assertThat(s.ledger().runningGpus(A)).isEqualTo(4);
        assertThat(s.nodes().free().free(0)).isEqualTo(4);
    }

    @Test
    void givenAShardPromotedAt3hItIsChargedFrom3hOnlyAndItsProtectionEndsAt5h() {
        ClusterState s = state();
        Job j = runningShard(s, "shard-0", 0, 0);
        s.promote(j, Duration.ofHours(2), 3 * H);
        long ended = s.protections().endedCount();

        s.advanceTo(4 * H);
        assertThat(s.windowUsageGpuSeconds(A)).isEqualTo(4 * H);
        assertThat(s.totalChargedGpuSeconds(A)).isEqualTo(4 * H);
        assertThat(s.windowUsageGpuSeconds(B)).isZero();
        assertThat(s.protections().endedCount()).isEqualTo(ended);

        s.advanceTo(5 * H);
        assertThat(s.protections().endedCount()).isEqualTo(ended + 1);
        assertThat(j.isProtected(5 * H)).isFalse();
        assertThat(s.protections().protectedGpus(A)).isZero();
        assertThat(s.protections().unprotectedGpus(A, Priority.HIGH)).isEqualTo(4);
        assertThat(s.protections().unprotectedGpus(A)).isEqualTo(4);
        assertThat(s.committedGpuSeconds(A)).isZero();
        assertThat(s.nodes().protectedJobsOn(0)).isZero();

        s.advanceTo(7 * H);
        assertThat(s.totalChargedGpuSeconds(A)).isEqualTo(4 * 4 * H);
    }

    @Test
    void givenAPromotedShardPreemptedAfterItsProtectionItKeepsTheProgressOfTheWholeAttemptAndWaitsAllocated() {
        ClusterState s = state();
        Job j = runningShard(s, "shard-0", 0, 0);
        s.promote(j, Duration.ofHours(2), 3 * H);

        ClusterState.PreemptionResult r = s.preempt(j, 6 * H + 15 * 60);

        // checkpoints every 30m from the attempt's start at 0, the unallocated hours included
        assertThat(r.requeued()).isTrue();
        assertThat(r.progressKeptSeconds()).isEqualTo(6 * H);
        assertThat(r.lostGpuSeconds()).isEqualTo(4 * 15 * 60);
        assertThat(j.state()).isEqualTo(JobState.PENDING);
        assertThat(j.remainingSeconds()).isEqualTo(14 * H);
        assertThat(s.pending().count(A, true)).isEqualTo(1);
        assertThat(s.pending().count(A, false)).isZero();
        assertThat(s.pending().bestHead(A, true)).isSameAs(j);
        assertThat(s.running().allocated(A)).isEmpty();
        assertThat(s.protections().unprotectedGpus(A)).isZero();
        assertThat(s.ledger().runningGpus(A)).isZero();
        assertThat(s.totalChargedGpuSeconds(A)).isEqualTo(4 * (3 * H + 15 * 60));
        assertThat(j.runGpuSeconds()).isEqualTo(4 * (6 * H + 15 * 60));

        // its next attempt is allocated from its start: protected for its minimum runtime and charged
        s.start(j, on(1, 4), 7 * H);
        assertThat(j.protectedUntilSeconds()).isEqualTo(9 * H);
        assertThat(s.protections().protectedGpus(A)).isEqualTo(4);
        s.advanceTo(8 * H);
        assertThat(s.totalChargedGpuSeconds(A)).isEqualTo(4 * (4 * H + 15 * 60));
    }

    @Test
    void givenAPromotedShardPreemptedInsideItsProtectionTheOldExpiryDoesNotEndItsNextAttemptsProtection() {
        ClusterState s = state();
        Job j = runningShard(s, "shard-0", 0, 0);
        s.promote(j, Duration.ofHours(2), H); // protected until 3h
        s.preempt(j, 2 * H);
        s.start(j, on(0, 4), 2 * H + 1); // protected until 4h + 1s
        long ended = s.protections().endedCount();

        s.advanceTo(3 * H);
        assertThat(j.isProtected(3 * H)).isTrue();
        assertThat(s.protections().protectedGpus(A)).isEqualTo(4);
        assertThat(s.protections().endedCount()).isEqualTo(ended);

        s.advanceTo(4 * H + 1);
        assertThat(s.protections().protectedGpus(A)).isZero();
        assertThat(s.protections().endedCount()).isEqualTo(ended + 1);
    }

    @Test
    void givenAPromotionAskingMoreThanTheSchedulersMaximumTheMinimumRuntimeIsCapped() {
        ClusterState s = state(); // at most 8h
        Job j = runningShard(s, "shard-0", 0, 0);

        s.promote(j, Duration.ofHours(12), H);

        assertThat(j.minRuntimeSeconds()).isEqualTo(8 * H);
        assertThat(j.minRuntimeCapped()).isTrue();
        assertThat(j.spec().minRuntime()).isEqualTo(Duration.ofHours(12));
        assertThat(j.protectedUntilSeconds()).isEqualTo(9 * H);
        assertThat(s.committedGpuSeconds(A)).isEqualTo(4 * 8 * H);
    }

    @Test
    void givenAShardWaitingUnallocatedPromotedItWaitsInTheAllocatedQueueAndIsProtectedFromItsStart() {
        ClusterState s = state();
        Job j = s.register(shard("shard-0"));
        s.submit(j, 0);
        assertThat(s.pending().count(A, false)).isEqualTo(1);

        s.promote(j, Duration.ofHours(2), 10);

        assertThat(j.state()).isEqualTo(JobState.PENDING);
        assertThat(j.allocated()).isTrue();
        assertThat(j.promotedAtSeconds()).isEqualTo(10);
        assertThat(s.pending().count(A, true)).isEqualTo(1);
        assertThat(s.pending().count(A, false)).isZero();
        assertThat(s.pending().gpus(A, true)).isEqualTo(4);
        assertThat(s.pending().bestHead(A, true)).isSameAs(j);
        assertThat(s.pending().bestHead(A, false)).isNull();
        assertThat(s.pending().total()).isEqualTo(1);

        s.start(j, on(0, 4), H);
        assertThat(s.running().allocated(A)).containsExactly(j);
        assertThat(j.protectedUntilSeconds()).isEqualTo(3 * H);
        s.advanceTo(2 * H);
        assertThat(s.totalChargedGpuSeconds(A)).isEqualTo(4 * H);
    }

    @Test
    void givenFourShardsRunningUnallocatedPromotingTheSecondLeavesTheOthersBooksRight() {
        ClusterState s = state();
        Job a = runningShard(s, "a", 0, 0);
        Job b = runningShard(s, "b", 0, 0);
        Job c = runningShard(s, "c", 1, 0);
        Job d = runningShard(s, "d", 1, 0);

        s.promote(b, Duration.ofHours(1), H);

        assertThat(s.running().unallocated()).containsExactlyInAnyOrder(a, c, d);
        assertThat(s.running().unallocatedGpus()).isEqualTo(12);
        // the last one listed took b's place: ending it, then the others, empties the list
        s.complete(d, 2 * H);
        assertThat(s.running().unallocated()).containsExactlyInAnyOrder(a, c);
        s.complete(a, 2 * H);
        s.complete(c, 2 * H);
        assertThat(s.running().unallocated()).isEmpty();
        assertThat(s.running().unallocatedGpus()).isZero();
        assertThat(s.running().allocated(A)).containsExactly(b);
        s.complete(b, 3 * H);
        assertThat(s.running().allocated(A)).isEmpty();
        assertThat(s.running().count()).isZero();
        assertThat(s.totalChargedGpuSeconds(A)).isEqualTo(4 * 2 * H);
        assertThat(s.nodes().free().totalFree()).isEqualTo(16);
    }

    @Test
    void givenAWholeNodeShardPromotedItsNodeCannotBeFreedWhileProtectedAndThenOnlyByPreemptingItsAllocation() {
        ClusterState s = state();
        Job j = s.register(WorkloadSpec.builder("whole").allocation("A").gpus(8).gpusPerNode(8)
                .duration(Duration.ofHours(20)).minRuntime(Duration.ZERO).resumable().build());
        s.submit(j, 0);
        s.start(j, on(0, 8), 0);
        boolean[] onlyB = {false, true};
        assertThat(s.nodes().wholeNodes().allows(0, onlyB)).isTrue(); // unallocated work on it may always be preempted

        s.promote(j, Duration.ofHours(2), H);
        assertThat(s.nodes().wholeNodes().contains(0)).isFalse();
        assertThat(s.nodes().byLatestProtectionEnd().last()).isZero();

        s.advanceTo(3 * H);
        assertThat(s.nodes().wholeNodes().contains(0)).isTrue();
        assertThat(s.nodes().wholeNodes().allows(0, onlyB)).isFalse();
        assertThat(s.nodes().wholeNodes().allows(0, new boolean[] {true, false})).isTrue();
    }

    @Test
    void promotingAnAllocatedJobIsRefusedAndChangesNothing() {
        ClusterState s = state();
        Job j = s.register(WorkloadSpec.builder("alloc").allocation("A").gpus(4).minRuntime(Duration.ofHours(1)).build());
        s.submit(j, 0);
        s.start(j, on(0, 4), 0);

        assertThatThrownBy(() -> s.promote(j, Duration.ofHours(2), 10))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot promote alloc: it is allocated already");
        assertThat(j.minRuntimeSeconds()).isEqualTo(H);
        assertThat(j.promotedAtSeconds()).isEqualTo(-1);
        assertThat(s.running().allocated(A)).containsExactly(j);
        assertThat(s.protections().protectedGpus(A)).isEqualTo(4);
    }

    @Test
    void promotingToAZeroOrNegativeMinimumRuntimeIsRefusedAndTheShardStaysUnallocated() {
        ClusterState s = state();
        Job j = runningShard(s, "shard-0", 0, 0);

        assertThatThrownBy(() -> s.promote(j, Duration.ZERO, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a promotion needs a minimum runtime above zero, not PT0S");
        assertThatThrownBy(() -> s.promote(j, Duration.ofMinutes(-5), 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(j.allocated()).isFalse();
        assertThat(j.promotedAtSeconds()).isEqualTo(-1);
        assertThat(s.running().unallocated()).containsExactly(j);
        assertThat(s.running().unallocatedGpus()).isEqualTo(4);
        assertThat(s.protections().protectedGpus(A)).isZero();
    }

    @Test
    void promotingWorkThatIsNotWaitingNorRunningIsRefused() {
        ClusterState s = state();
        Job fresh = s.register(shard("fresh"));
        assertThatThrownBy(() -> s.promote(fresh, Duration.ofHours(1), 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot promote fresh: it is NEW");

        Job done = runningShard(s, "done", 0, 0);
        s.complete(done, H);
        assertThatThrownBy(() -> s.promote(done, Duration.ofHours(1), H))
                .hasMessage("cannot promote done: it is COMPLETED");
        assertThat(done.allocated()).isFalse();
        assertThat(s.pending().total()).isZero();
    }

    @Test
    void aPromotionAtAnEarlierTimeThanTheStatesIsRefused() {
        ClusterState s = state();
        Job j = runningShard(s, "shard-0", 0, 0);
        s.advanceTo(2 * H);

        assertThatThrownBy(() -> s.promote(j, Duration.ofHours(1), H)).hasMessage("time went back from 7200 to 3600");
        assertThat(j.allocated()).isFalse();
    }

    @Test
    void withMinRuntimeChangesTheMinimumRuntimeOnly() {
        WorkloadSpec spec = shard("shard-0");

        WorkloadSpec promoted = spec.withMinRuntime(Duration.ofHours(3));

        assertThat(promoted.minRuntime()).isEqualTo(Duration.ofHours(3));
        assertThat(promoted.allocated()).isTrue();
        assertThat(promoted).usingRecursiveComparison().ignoringFields("minRuntime").isEqualTo(spec);
    }
}
