package dev.allot.core.state;

import static dev.allot.core.state.TwoTeams.on;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Starts that wait to launch are kept whole as the clock moves (their attempt start and protection end move with
 * it), and the state skips those already kept whole at the current time, as a driver calls it hundreds of times in
 * one second. The skip must change nothing: the same story, told once with a single call per step and once with
 * hundreds of calls at each second (the service's intake), leaves every book the same, and the same as counted by
 * hand, through each change that moves a waiting start's protection: a promotion while it waits, a neighbour on its
 * node that stops (the node's latest protection end is recomputed), time that moves by one second, and the launch.
 */
class WaitingStartsKeptWholeTest {
    private static final int A = 0;
    private static final int B = 1;

    /** Node 0 of 4 GPUs, node 1 of 12; allocations A and B. */
    private static ClusterState state() {
        ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("n0", 4), NodeSpec.of("n1", 12)), List.of());
        AllocationTree tree = AllocationTree.builder("lab").leaf("A", 1).leaf("B", 1).build();
        return new ClusterState(cluster, tree, SchedulerConfig.defaults(), 0);
    }

    private static Job workload(ClusterState s, String id, String allocation, int gpus, long minRuntime) {
        Job j = s.register(WorkloadSpec.builder(id).allocation(allocation).gpus(gpus).submitAt(0)
                .duration(Duration.ofHours(1)).minRuntime(Duration.ofSeconds(minRuntime)).resumable().build());
        s.submit(j, 0);
        return j;
    }

    /** What the policy reads of the protections and the nodes, and what the waiting starts carry. */
    private static List<Long> books(ClusterState s) {
        List<Long> b = new ArrayList<>();
        for (int leaf : new int[] {A, B}) {
            b.add(s.committedGpuSeconds(leaf));
            b.add(s.protections().protectedGpus(leaf));
            b.add(s.protections().unprotectedGpus(leaf));
            b.add(s.windowUsageGpuSeconds(leaf));
        }
        for (int n = 0; n < s.nodes().count(); n++) {
            b.add(s.nodes().latestProtectionEnd(n));
        }
        for (int n : s.nodes().byLatestProtectionEnd()) {
            b.add((long) n);
        }
        for (Job j : s.jobs()) {
            b.add(j.attemptStartSeconds());
            b.add(j.protectedUntilSeconds());
        }
        b.add(s.protections().endedCount());
        b.add(s.protections().nextEndSeconds());
        return b;
    }

    /** The story's cast, with r, x and v running from 0 (see {@link #tell}). */
    private record Cast(ClusterState s, Job r, Job x, Job v, Job w1, Job w2) {
        static Cast running() {
            ClusterState s = state();
            Cast c = new Cast(s, workload(s, "r", "A", 4, 100), workload(s, "x", "A", 4, 1000),
                    workload(s, "v", "B", 8, 0), workload(s, "w1", "A", 4, 50), workload(s, "w2", "B", 4, 0));
            s.start(c.r(), on(0, 4), 0);
            s.start(c.x(), on(1, 4), 0);
            s.start(c.v(), on(1, 8), 0);
            return c;
        }
    }

    /**
     * The story: x (A, 4 GPUs, protected 1000 s) and v (B, 8 GPUs) run on node 1 from 0; r (A) runs on node 0. At 10
     * v is preempted and takes until 25 to stop; w1 (A, protected 50 s) and w2 (B, unallocated) wait for its GPUs.
     * w2 is promoted (30 s) at 10 while it waits; x is preempted at 20; both launch at 25. {@code busy} runs at each
     * second the story visits: nothing for the plain telling, hundreds of calls for the busy one.
     */
    private static List<List<Long>> tell(Consumer<ClusterState> busy) {
        Cast c = Cast.running();
        ClusterState s = c.s();
        Job w1 = c.w1();
        Job w2 = c.w2();
        List<List<Long>> seen = new ArrayList<>();
        // After each step: the busy calls at that second, then what the books show.
        Runnable look = () -> {
            busy.accept(s);
            seen.add(books(s));
        };
        busy.accept(s);
        s.advanceTo(10);
        s.preempt(c.v(), 10);
        StoppingAttempt stop = s.holdUntilStopped(c.v(), on(1, 8), 10);
        s.startWhenStopped(w1, on(1, 4), 10);
        busy.accept(s);
        s.startWhenStopped(w2, on(1, 4), 10);
        look.run();
        s.promote(w2, Duration.ofSeconds(30), 10);
        look.run();
        for (long t = 11; t <= 20; t++) {
            s.advanceTo(t);
            look.run();
        }
        s.preempt(c.x(), 20);
        look.run();
        s.advanceTo(21);
        look.run();
        s.stopped(stop, 25);
        look.run();
        s.launch(w1, 25);
        look.run();
        s.launch(w2, 25);
        look.run();
        s.advanceTo(60);
        look.run();
        return seen;
    }

    /** Hundreds of calls at the current second, each advancing the clock to it, as the service's intake makes. */
    private static void intake(ClusterState s) {
        for (int i = 0; i < 300; i++) {
            s.advanceTo(s.now());
            s.fitsNow(s.jobs().get(0), on(0, 4));
        }
    }

    @Test
    void givenManyCallsInOneSecondThenTheBooksAreThoseOfOneCallPerStep() {
        List<List<Long>> plain = tell(s -> { });
        List<List<Long>> busy = tell(WaitingStartsKeptWholeTest::intake);

        assertThat(busy).isEqualTo(plain);
    }

    @Test
    void givenStartsThatWaitThenTheirProtectionMovesWithTheClockThroughEveryChange() {
        Cast c = Cast.running();
        ClusterState s = c.s();
        Job w1 = c.w1();
        Job w2 = c.w2();
        s.advanceTo(10);
        s.preempt(c.v(), 10);
        StoppingAttempt stop = s.holdUntilStopped(c.v(), on(1, 8), 10);
        s.startWhenStopped(w1, on(1, 4), 10);
        s.startWhenStopped(w2, on(1, 4), 10);
        intake(s);
        // w2 waits unallocated: its protection is its attempt start, the clock
        assertThat(w2.protectedUntilSeconds()).isEqualTo(10);
        s.promote(w2, Duration.ofSeconds(30), 10);
        intake(s);
        assertThat(w2.protectedUntilSeconds()).isEqualTo(40);
        assertThat(s.committedGpuSeconds(B)).isEqualTo(4 * 30);

        // one second later both move; A commits r's 88 s left, x's 988 s and w1's whole 50 s
        s.advanceTo(12);
        intake(s);
        assertThat(w1.attemptStartSeconds()).isEqualTo(12);
        assertThat(w1.protectedUntilSeconds()).isEqualTo(62);
        assertThat(w2.protectedUntilSeconds()).isEqualTo(42);
        assertThat(s.committedGpuSeconds(A)).isEqualTo(4 * 88 + 4 * 988 + 4 * 50);
        assertThat(s.committedGpuSeconds(B)).isEqualTo(4 * 30);
        assertThat(s.nodes().latestProtectionEnd(1)).isEqualTo(1000);

        // x leaves node 1 at 20: its latest protection end is the waiting starts' again, and moves on at 21
        s.preempt(c.x(), 20);
        intake(s);
        assertThat(s.nodes().latestProtectionEnd(1)).isEqualTo(70);
        s.advanceTo(21);
        intake(s);
        assertThat(s.nodes().latestProtectionEnd(1)).isEqualTo(71);
        assertThat(s.committedGpuSeconds(A)).isEqualTo(4 * 79 + 4 * 50);

        // launched at 25: protected from then, no longer moving
        s.stopped(stop, 25);
        s.launch(w1, 25);
        s.launch(w2, 25);
        s.advanceTo(30);
        intake(s);
        assertThat(w1.protectedUntilSeconds()).isEqualTo(75);
        assertThat(w2.protectedUntilSeconds()).isEqualTo(55);
        assertThat(s.nodes().latestProtectionEnd(1)).isEqualTo(75);
        assertThat(s.committedGpuSeconds(B)).isEqualTo(4 * 25);
    }
}
