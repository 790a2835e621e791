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

/**
 * The stopping phase (issue 21, preemption ping-pong): a victim that takes seconds to stop still holds its GPUs; the
 * start that waits for them is protected but neither runs, nor is charged, nor spends its minimum runtime until it
 * launches.
 */
class StoppingPhaseTest {
    private static final long MIN_RUNTIME = 3;

    /** One node of 4 GPUs, allocations A and B; each workload takes the whole node, protected for 3 s. */
    private static ClusterState state() {
        ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("n1", 4), NodeSpec.of("n2", 4)), List.of());
        AllocationTree tree = AllocationTree.builder("lab").leaf("A", 1).leaf("B", 1).build();
        return new ClusterState(cluster, tree, SchedulerConfig.defaults(), 0);
    }

    private static Job workload(ClusterState s, String id, String allocation, long submit) {
        Job j = s.register(WorkloadSpec.builder(id).allocation(allocation).gpus(4).submitAt(submit)
                .duration(Duration.ofHours(1)).minRuntime(Duration.ofSeconds(MIN_RUNTIME)).resumable().build());
        s.submit(j, submit);
        return j;
    }

    private static Placement node(int n) {
        return new Placement(new int[] {n}, new int[] {4});
    }

    /** {@code victim} started at 0 on {@code n} and preempted at {@code at}: its attempt stopping, holding the node. */
    private static StoppingAttempt preemptedWhileStopping(ClusterState s, Job victim, int n, long at) {
        s.start(victim, node(n), 0);
        s.advanceTo(at);
        s.preempt(victim, at);
        return s.holdUntilStopped(victim, node(n), at);
    }

    @Test
    void givenAVictimTakingThreeSecondsToStopThenTheStartWaitingForItIsProtectedFromItsLaunch() {
        // given a runs on node 0 past its protection, and b preempts it at 10; a takes 3 s to stop
        ClusterState s = state();
        Job a = workload(s, "a", "A", 0);
        Job b = workload(s, "b", "B", 0);
        s.start(a, node(0), 0);
        s.advanceTo(10);
        assertThat(a.isProtected(10)).isFalse();
        s.preempt(a, 10);
        StoppingAttempt stop = s.holdUntilStopped(a, node(0), 10);

        // then b cannot run at once on a's GPUs: it waits, holding them, protected, not charged
        assertThat(s.fitsNow(b, node(0))).isFalse();
        assertThatThrownBy(() -> s.start(b, node(0), 10)).hasMessageContaining("still hold its GPUs");
        s.startWhenStopped(b, node(0), 10);
        assertThat(b.state()).isEqualTo(JobState.RUNNING);
        assertThat(b.awaitingLaunch()).isTrue();
        assertThat(s.stopPhase().waiting()).containsExactly(b);
        assertThat(s.nodes().free().free(0)).isZero();
        assertThat(s.stopPhase().heldGpus(0)).isEqualTo(4);
        assertThat(s.canLaunch(b)).isFalse();

        // when time passes beyond its minimum runtime while a is still stopping
        s.advanceTo(10 + MIN_RUNTIME + 1);
        // then b's protection has not begun: still protected, whole, and nothing charged or run
        assertThat(b.isProtected(s.now())).isTrue();
        assertThat(s.protections().protectedGpus(1)).isEqualTo(4);
        assertThat(s.committedGpuSeconds(1)).isEqualTo(4 * MIN_RUNTIME);
        assertThat(b.protectedUntilSeconds()).isEqualTo(s.now() + MIN_RUNTIME);
        assertThat(s.totalChargedGpuSeconds(1)).isZero();
        assertThat(b.firstStartSeconds()).isEqualTo(-1);
        assertThat(s.protections().endedCount()).isEqualTo(1); // a's, at 3; b's has not begun
        assertThat(s.protections().nextEndSeconds()).isGreaterThan(s.now());

        // when a has stopped at 15 and b launches then
        s.stopped(stop, 15);
        assertThat(s.canLaunch(b)).isTrue();
        s.launch(b, 15);
        // then its minimum runtime counts from its launch, as its charging and progress do
        assertThat(b.awaitingLaunch()).isFalse();
        assertThat(b.attemptStartSeconds()).isEqualTo(15);
        assertThat(b.firstStartSeconds()).isEqualTo(15);
        assertThat(b.protectedUntilSeconds()).isEqualTo(15 + MIN_RUNTIME);
        assertThat(s.nodes().latestProtectionEnd(0)).isEqualTo(15 + MIN_RUNTIME);
        s.advanceTo(17);
        assertThat(b.isProtected(17)).as("a requeued a finds it still protected").isTrue();
        assertThat(s.totalChargedGpuSeconds(1)).isEqualTo(4 * 2);
        s.advanceTo(15 + MIN_RUNTIME);
        assertThat(b.isProtected(s.now())).isFalse();
        assertThat(s.protections().endedCount()).isEqualTo(2);
        assertThat(s.protections().unprotectedGpus(1)).isEqualTo(4);
    }

    @Test
    void givenAnIdleNodeThenAStartRunsAtOnceThereWhileTheStoppingNodeStaysHeld() {
        ClusterState s = state();
        Job a = workload(s, "a", "A", 0);
        Job b = workload(s, "b", "B", 0);
        preemptedWhileStopping(s, a, 0, 5);
        // then b fits on the idle node 1 and runs at once, protected from now
        assertThat(s.fitsNow(b, node(1))).isTrue();
        s.start(b, node(1), 5);
        assertThat(b.awaitingLaunch()).isFalse();
        assertThat(b.protectedUntilSeconds()).isEqualTo(5 + MIN_RUNTIME);
        // and the requeued a may not run again, anywhere, while its own previous attempt is stopping
        assertThat(s.nodes().free().free(0)).isEqualTo(4);
        assertThat(s.fitsNow(a, node(0))).isFalse();
    }

    @Test
    void givenARequeuedVictimThenItsNextStartWaitsForItsOwnStopEvenOnIdleGpus() {
        ClusterState s = state();
        Job a = workload(s, "a", "A", 0);
        StoppingAttempt stop = preemptedWhileStopping(s, a, 0, 5);
        assertThat(s.fitsNow(a, node(1))).isFalse();
        s.startWhenStopped(a, node(1), 5);
        assertThat(s.canLaunch(a)).isFalse();
        s.stopped(stop, 8);
        s.launch(a, 8);
        assertThat(a.attemptStartSeconds()).isEqualTo(8);
        assertThat(a.attempts()).isEqualTo(2);
    }

    @Test
    void givenAWaitingStartPreemptedBeforeItLaunchesThenNothingWasRunLostOrCharged() {
        ClusterState s = state();
        Job a = workload(s, "a", "A", 0);
        Job b = workload(s, "b", "B", 0);
        preemptedWhileStopping(s, a, 0, 5);
        s.startWhenStopped(b, node(0), 5);
        s.advanceTo(9);
        ClusterState.PreemptionResult r = s.preempt(b, 9);
        assertThat(r.requeued()).isTrue();
        assertThat(r.lostGpuSeconds()).isZero();
        assertThat(b.progressSeconds()).isZero();
        assertThat(b.runGpuSeconds()).isZero();
        assertThat(s.totalChargedGpuSeconds(1)).isZero();
        assertThat(s.protections().protectedGpus(1)).isZero();
        assertThat(s.committedGpuSeconds(1)).isZero();
        assertThat(s.stopPhase().waiting()).isEmpty();
        assertThat(s.nodes().free().free(0)).isEqualTo(4);
        assertThat(s.nodes().latestProtectionEnd(0)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void aStopIsReleasedOnceAndOnlyByTheStateThatHoldsIt() {
        ClusterState s = state();
        Job a = workload(s, "a", "A", 0);
        s.start(a, node(0), 0);
        assertThatThrownBy(() -> s.holdUntilStopped(a, node(0), 1)).hasMessageContaining("it is running");
        s.preempt(a, 1);
        StoppingAttempt stop = s.holdUntilStopped(a, node(0), 1);
        assertThat(s.stopPhase().stopping()).containsExactly(stop);
        s.stopped(stop, 2);
        assertThat(s.stopPhase().stopping()).isEmpty();
        assertThat(s.stopPhase().heldGpus(0)).isZero();
        assertThatThrownBy(() -> s.stopped(stop, 3)).hasMessageContaining("stopped already");
        ClusterState other = state();
        Job c = workload(other, "c", "A", 0);
        StoppingAttempt elsewhere = preemptedWhileStopping(other, c, 1, 1);
        assertThatThrownBy(() -> s.stopped(elsewhere, 3)).hasMessageContaining("this state does not hold it");
        assertThatThrownBy(() -> s.launch(a, 3)).hasMessageContaining("cannot launch a");
    }

    @Test
    void aForkPlaysAFutureWhereTheStopsAreOverAndTheWaitingStartsLaunched() {
        ClusterState s = state();
        Job a = workload(s, "a", "A", 0);
        Job b = workload(s, "b", "B", 0);
        preemptedWhileStopping(s, a, 0, 5);
        s.startWhenStopped(b, node(0), 5);
        s.advanceTo(7);
        ClusterState f = s.fork(s.tree(), Job::durationSeconds);
        Job fb = f.job("b").orElseThrow();
        assertThat(fb.awaitingLaunch()).isFalse();
        assertThat(fb.attemptStartSeconds()).isEqualTo(7);
        assertThat(fb.protectedUntilSeconds()).isEqualTo(7 + MIN_RUNTIME);
        assertThat(f.stopPhase().stopping()).isEmpty();
        assertThat(b.awaitingLaunch()).as("the original is as it was").isTrue();
        assertThat(s.stopPhase().stopping()).hasSize(1);
    }
}
