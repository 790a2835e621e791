package dev.allot.server.sched;

import dev.allot.server.testing.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.WorkloadState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Scenarios of the real-time loop on a SQLite store, driving the core's allocation policy, with a simulated backend
 * and a clock moved by hand: {@code runOnce()} after every move, and the story (which attempts start and stop in
 * which cycle) checked exactly.
 */
class SchedulerLoopTest {
    private static final long HOUR = 3600;

    @RegisterExtension
    final LoopFixtures loops = new LoopFixtures();

    @Test
    void startsAWorkloadOnDistinctGpusAndCompletesIt() {
        Fixture f = loops.open("one", List.of("a"), 8);
        String w = f.submit("a", 4, HOUR, 900, false);

        f.cycle();
        assertThat(f.story).containsExactly("1: start " + w + "#1 n1[0, 1, 2, 3]");
        Launch launch = f.backend.launches.get(0);
        assertThat(launch.command()).containsExactly("train.py");
        assertThat(launch.environment()).containsEntry("SEED", "1");
        assertThat(launch.gpus()).isEqualTo(4);
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.attempts(w)).singleElement().satisfies(a -> {
            assertThat(a.open()).isTrue();
            // the backend is told the attempt's start as stored (it passes it on as ALLOT_ATTEMPT_STARTED_AT)
            assertThat(launch.startedAtMillis()).isEqualTo(a.startedAtMillis()).isEqualTo(f.clock.millis());
            assertThat(a.placement()).containsExactly(new Launch.NodeGpus("n1", List.of(0, 1, 2, 3)));
        });

        f.advance(HOUR - 1);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.RUNNING);
        f.advance(1);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.attempts(w)).singleElement().satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.COMPLETED));
        assertThat(f.backend.observe()).isEmpty();
        SchedulerLoop.Counters c = f.loop.counters();
        assertThat(c.cycles()).isEqualTo(3);
        assertThat(c.starts()).isEqualTo(1);
        assertThat(c.completions()).isEqualTo(1);
        assertThat(c.preemptions()).isZero();
    }

    @Test
    void aStartIsDecidedAtTheClockAfterTheEndThatMadeRoomForItNotAtTheCyclesStart() {
        Fixture f = loops.open("late-listing", List.of("a"), 8);
        String w1 = f.submit("a", 8, 10, 0, false);
        String w2 = f.submit("a", 8, 10, 0, false);
        f.cycle();
        long started = f.clock.millis();
        // The next cycle begins 0.9 s into second 9; its listing of the backend takes 0.3 s, and w1's 10 s end at
        // second 10 while it lists: w2 starts on w1's GPUs in second 10, not stamped before the end it waited for.
        f.clock.advance(Duration.ofMillis(9_900));
        f.backend.whileNextObserving = () -> f.clock.advance(Duration.ofMillis(300));
        f.cycle();

        assertThat(f.stateOf(w1)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.attempts(w2)).singleElement().satisfies(a -> {
            assertThat(a.startedAtMillis()).isEqualTo(started + 10_200).isEqualTo(f.clock.millis());
            assertThat(f.backend.launches.get(1).startedAtMillis()).isEqualTo(a.startedAtMillis());
        });
    }

    /**
     * Given 2 x 8 GPUs held by two 8-GPU workloads that end in one second but are seen a cycle apart, a waiting
     * 16-GPU workload and, behind it, an unallocated 8-GPU one: deciding on the first end alone starts the unallocated
     * one on its GPUs, which the 16-GPU one then preempts at the second end; with a settle time the loop waits for the
     * cycle that sees no further end and starts the 16-GPU one on both, preempting nothing.
     */
    @Test
    void withASettleTimeEndsSeenACycleApartAreDecidedOnTogether() {
        for (boolean settle : new boolean[] {false, true}) {
            Fixture f = loops.open("settle-" + settle, List.of("a"), 8, 8);
            if (settle) {
                f.loop.settleEnds(Duration.ofMillis(500));
            }
            String w1 = f.submit("a", 8, 10, 60, false);
            f.cycle();
            f.clock.advance(Duration.ofMillis(300));
            String w2 = f.submit("a", 8, 10, 60, false);
            f.cycle();
            f.clock.advance(Duration.ofMillis(100));
            String big = f.submit("a", 16, HOUR, 60, false);
            String small = f.submit("a", 8, HOUR, 0, false);
            f.cycle();
            assertThat(f.stateOf(big)).isEqualTo(WorkloadState.PENDING);

            f.clock.advance(Duration.ofMillis(9_700)); // 10.1 s: w1 has ended, w2 ends at 10.3 s
            f.cycle();
            assertThat(f.stateOf(w1)).isEqualTo(WorkloadState.COMPLETED);
            assertThat(f.stateOf(small)).isEqualTo(settle ? WorkloadState.PENDING : WorkloadState.RUNNING);
            f.clock.advance(Duration.ofMillis(300)); // 10.4 s: w2 has ended
            f.cycle();
            assertThat(f.stateOf(w2)).isEqualTo(WorkloadState.COMPLETED);
            f.clock.advance(Duration.ofMillis(100)); // a cycle that sees no further end
            f.cycle();
            f.clock.advance(Duration.ofMillis(100));
            f.cycle();

            assertThat(f.stateOf(big)).as("settle %s: %s", settle, f.story).isEqualTo(WorkloadState.RUNNING);
            assertThat(f.loop.counters().preemptions()).as("settle %s: %s", settle, f.story).isEqualTo(settle ? 0 : 1);
        }
    }

    @Test
    void twoWholeNodeWorkloadsRunOneAfterTheOther() {
        Fixture f = loops.open("two", List.of("a"), 8);
        String w1 = f.submit("a", 8, HOUR, 900, false);
        String w2 = f.submit("a", 8, HOUR, 900, false);

        f.cycle();
        f.advance(HOUR);
        f.cycle();
        f.advance(HOUR);
        f.cycle();

        assertThat(f.story).containsExactly(
                "1: start " + w1 + "#1 n1[0, 1, 2, 3, 4, 5, 6, 7]",
                "2: start " + w2 + "#1 n1[0, 1, 2, 3, 4, 5, 6, 7]");
        assertThat(f.stateOf(w1)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.stateOf(w2)).isEqualTo(WorkloadState.COMPLETED);
    }

    @Test
    void aCancelledPendingWorkloadNeverStartsAndACancelledRunningOneIsStopped() {
        Fixture f = loops.open("cancel", List.of("a"), 8);
        String running = f.submit("a", 8, HOUR, 900, false);
        String waiting = f.submit("a", 8, HOUR, 900, false);
        f.cycle();

        f.cancel(waiting);
        f.advance(60);
        f.cycle();
        assertThat(f.stateOf(waiting)).isEqualTo(WorkloadState.CANCELLED);

        f.cancel(running);
        assertThat(f.stateOf(running)).isEqualTo(WorkloadState.RUNNING);
        f.advance(60);
        f.cycle();
        f.advance(2 * HOUR);
        f.cycle();

        assertThat(f.story).containsExactly(
                "1: start " + running + "#1 n1[0, 1, 2, 3, 4, 5, 6, 7]",
                "3: stop " + running + "#1");
        assertThat(f.stateOf(running)).isEqualTo(WorkloadState.CANCELLED);
        assertThat(f.attempts(running)).singleElement()
                .satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.CANCELLED));
        assertThat(f.attempts(waiting)).isEmpty();
        assertThat(f.loop.counters().cancellations()).isEqualTo(2);
    }

    /** Team a fills the node with resumable work past its minimum runtime; under-served team b submits. */
    private static List<String> fairShareStory(Fixture f) {
        String a = f.submit("a", 8, 10 * HOUR, 900, true);
        f.cycle();
        f.advance(HOUR);
        String b = f.submit("b", 8, HOUR, 900, true);
        f.cycle();
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.stateOf(a)).isEqualTo(WorkloadState.REQUEUED);
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.stateOf(a)).isEqualTo(WorkloadState.RUNNING);
        return f.story;
    }

    @Test
    void fairSharePreemptsTheOverServedTeamAndItsWorkRunsAgainLater() {
        Fixture f = loops.open("fair", List.of("a", "b"), 8);
        List<String> story = fairShareStory(f);

        assertThat(story).containsExactly(
                "1: start w-1#1 n1[0, 1, 2, 3, 4, 5, 6, 7]",
                "2: start w-2#1 n1[0, 1, 2, 3, 4, 5, 6, 7]",
                "2: stop w-1#1",
                "3: start w-1#2 n1[0, 1, 2, 3, 4, 5, 6, 7]");
        Attempt first = f.attempts("w-1").get(0);
        assertThat(first.outcome()).isEqualTo(AttemptOutcome.REQUEUED);
        assertThat(first.preemptor()).isEqualTo("w-2");
        assertThat(first.reason()).isNotBlank();
        assertThat(f.loop.counters().preemptions()).isEqualTo(1);
        // It never reported a checkpoint or progress the service knows of: its hour on 8 GPUs counts as lost, and the
        // resumed attempt is given its whole 10 hours (it may have to redo them).
        assertThat(first.lostGpuSeconds()).isEqualTo(8.0 * HOUR);
        assertThat(f.backend.launches.get(2).duration()).isEqualTo(Duration.ofHours(10));
    }

    @Test
    void sameInputsTellTheSameStory() {
        List<String> first = fairShareStory(loops.open("d1", List.of("a", "b"), 8));
        List<String> second = fairShareStory(loops.open("d2", List.of("a", "b"), 8));
        assertThat(second).isEqualTo(first);
    }

    @Test
    void aStartWaitsForTheFenceOfAStoppingAttempt() {
        Fixture f = loops.open("fence", List.of("a", "b"), 8);
        f.backend.holdStops = true;
        String a = f.submit("a", 8, 10 * HOUR, 900, true);
        f.cycle();
        f.advance(HOUR);
        String b = f.submit("b", 8, HOUR, 900, true);
        f.cycle();
        assertThat(f.loop.deferredLaunches()).containsExactly(b);
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.PENDING);
        assertThat(f.stateOf(a)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.attempts(a).get(0).phase().label()).isEqualTo("stopping");

        f.advance(20);
        f.cycle();
        assertThat(f.loop.deferredLaunches()).containsExactly(b);

        f.backend.release();
        f.advance(5);
        f.cycle();
        assertThat(f.loop.deferredLaunches()).isEmpty();
        assertThat(f.stateOf(a)).isEqualTo(WorkloadState.REQUEUED);
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.RUNNING);

        assertThat(f.story).containsExactly(
                "1: start " + a + "#1 n1[0, 1, 2, 3, 4, 5, 6, 7]",
                "2: stop " + a + "#1",
                "4: start " + b + "#1 n1[0, 1, 2, 3, 4, 5, 6, 7]");
        assertThat(f.loop.counters().deferrals()).isEqualTo(1);
    }

    @Test
    void aStartPrefersGpusFreeForGoodOverFencedOnes() {
        Fixture f = loops.open("prefer", List.of("a"), 8);
        f.backend.holdStops = true;
        String stays = f.submit("a", 4, 10 * HOUR, 900, false);
        String ends = f.submit("a", 4, HOUR, 900, false);
        f.cycle();
        f.cancel(stays);
        f.cycle();
        f.advance(HOUR);
        String next = f.submit("a", 4, HOUR, 900, false);
        f.cycle();
        // GPUs 0-3 are still held by the cancelled attempt; 4-7 are free for good: the new work takes those at once.
        assertThat(f.loop.deferredLaunches()).isEmpty();
        assertThat(f.story).containsExactly(
                "1: start " + stays + "#1 n1[0, 1, 2, 3]",
                "1: start " + ends + "#1 n1[4, 5, 6, 7]",
                "2: stop " + stays + "#1",
                "3: start " + next + "#1 n1[4, 5, 6, 7]");
        assertThat(f.stateOf(stays)).isEqualTo(WorkloadState.RUNNING);
        f.backend.release();
        f.cycle();
        assertThat(f.stateOf(stays)).isEqualTo(WorkloadState.CANCELLED);
    }

    @Test
    void aDeferredStartThatIsCancelledNeverLaunchesAndThePreemptedWorkResumesBehindItsOwnFence() {
        Fixture f = loops.open("cancel-deferred", List.of("a", "b"), 8);
        f.backend.holdStops = true;
        String a = f.submit("a", 8, 10 * HOUR, 900, true);
        f.cycle();
        f.advance(HOUR);
        String b = f.submit("b", 8, HOUR, 900, true);
        f.cycle();
        assertThat(f.loop.deferredLaunches()).containsExactly(b);

        f.cancel(b);
        f.advance(10);
        f.cycle();
        // b is gone; a may run again, but only once its own first attempt has ended.
        assertThat(f.loop.deferredLaunches()).containsExactly(a);
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.CANCELLED);

        f.backend.release();
        f.advance(10);
        f.cycle();
        assertThat(f.loop.deferredLaunches()).isEmpty();
        assertThat(f.story).containsExactly(
                "1: start " + a + "#1 n1[0, 1, 2, 3, 4, 5, 6, 7]",
                "2: stop " + a + "#1",
                "4: start " + a + "#2 n1[0, 1, 2, 3, 4, 5, 6, 7]");
        assertThat(f.attempts(b)).isEmpty();
        assertThat(f.attempts(a)).extracting(Attempt::outcome).containsExactly(AttemptOutcome.REQUEUED, null);
        assertThat(f.stateOf(a)).isEqualTo(WorkloadState.RUNNING);
    }

    @Test
    void startRunsCyclesOnADaemonThreadUntilClosed() throws InterruptedException {
        Fixture f = loops.open("thread", List.of("a"), 8);
        String w = f.submit("a", 4, HOUR, 900, false);
        f.loop.start(Duration.ofMillis(5));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (f.loop.counters().cycles() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        f.loop.close();
        long after = f.loop.counters().cycles();
        assertThat(after).isGreaterThanOrEqualTo(3);
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.RUNNING);
        Thread.sleep(50);
        assertThat(f.loop.counters().cycles()).isEqualTo(after);
    }

    @Test
    void aCommandThatCannotStartOrExitsNonZeroFailsItsWorkload() {
        Fixture f = loops.open("fail", List.of("a"), 8);
        String noProgram = f.submit("a", 4, HOUR, 900, false);
        String crashes = f.submit("a", 4, HOUR, 900, false);
        f.backend.failToStart.add(noProgram);
        f.backend.exitCode.put(crashes, 3);

        f.cycle();
        f.cycle();
        assertThat(f.stateOf(noProgram)).isEqualTo(WorkloadState.FAILED);
        assertThat(f.attempts(noProgram).get(0).reasonInFull()).contains("failed to start").contains("no such program");
        assertThat(f.stateOf(crashes)).isEqualTo(WorkloadState.RUNNING);
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(crashes)).isEqualTo(WorkloadState.FAILED);
        assertThat(f.attempts(crashes).get(0).reason()).contains("code 3");
        assertThat(f.loop.counters().failures()).isEqualTo(2);
        // Nothing was started again.
        assertThat(f.backend.launches).hasSize(2);
    }

    @Test
    void anUnknownStatusIsNeverAnEnd() {
        Fixture f = loops.open("unknown", List.of("a"), 8);
        String w = f.submit("a", 4, HOUR, 900, false);
        f.cycle();
        f.backend.unknown.add(w);
        f.advance(2 * HOUR);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.attempts(w)).singleElement().satisfies(a -> assertThat(a.open()).isTrue());
        f.backend.unknown.clear();
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
    }

    @Test
    void aGangGetsLanesOnEachOfItsNodesAndUnhealthyNodesGetNoWork() {
        Fixture f = loops.open("gang", List.of("a"), 4, 4, 4);
        f.store.nodes().setHealth("n1", false, "fan failure", f.clock.millis());
        String gang = f.submit("a", 8, 4, HOUR, 900, false);
        String more = f.submit("a", 2, HOUR, 900, false);
        f.cycle();
        assertThat(f.story).containsExactly(
                "1: start " + gang + "#1 n2[0, 1, 2, 3] n3[0, 1, 2, 3]");
        assertThat(f.stateOf(more)).isEqualTo(WorkloadState.PENDING);
    }

    /**
     * One random step of the random runs: maybe a submission (of a random team, size, duration and contract, which
     * may fail to start or exit non-zero), maybe a cancellation, stops held or let through.
     */
    private static void randomStep(Fixture f, java.util.Random r, List<String> ids) {
        String[] teams = {"a", "b", "c"};
        int[] sizes = {1, 2, 4, 8};
        if (r.nextInt(3) == 0) {
            String id = f.submit(teams[r.nextInt(3)], sizes[r.nextInt(sizes.length)], (1 + r.nextInt(8)) * 600L,
                    r.nextInt(4) == 0 ? 0 : 300, r.nextBoolean());
            ids.add(id);
            int fate = r.nextInt(20);
            if (fate == 0) {
                f.backend.failToStart.add(id);
            } else if (fate == 1) {
                f.backend.exitCode.put(id, 1);
            }
        }
        if (!ids.isEmpty() && r.nextInt(10) == 0) {
            f.cancel(ids.get(r.nextInt(ids.size())));
        }
        if (r.nextInt(4) == 0) {
            f.backend.holdStops = !f.backend.holdStops;
        }
        if (r.nextInt(3) == 0) {
            f.backend.release();
        }
    }

    /** A seeded random run: submissions, cancellations, stops held and released; checked after every cycle. */
    private static List<String> randomRun(Fixture f, long seed) {
        java.util.Random r = new java.util.Random(seed);
        List<String> ids = new ArrayList<>();
        for (int step = 0; step < 150; step++) {
            randomStep(f, r, ids);
            f.advance(r.nextInt(900));
            f.cycle();
        }
        f.backend.holdStops = false;
        f.backend.release();
        for (int i = 0; i < 200; i++) {
            f.advance(3600);
            f.cycle();
        }
        for (String id : ids) {
            assertThat(f.stateOf(id)).as(id).isIn(WorkloadState.COMPLETED, WorkloadState.CANCELLED,
                    WorkloadState.PREEMPTED, WorkloadState.FAILED);
        }
        assertThat(f.store.attempts().openAttempts()).isEmpty();
        assertThat(f.loop.deferredLaunches()).isEmpty();
        return f.story;
    }

    @Test
    void aRandomRunNeverGivesAGpuTwiceEndsEverythingAndRepeatsExactly() {
        List<String> first = randomRun(loops.open("r1", List.of("a", "b", "c"), 8, 8), 42);
        List<String> second = randomRun(loops.open("r2", List.of("a", "b", "c"), 8, 8), 42);
        assertThat(second).isEqualTo(first);
        assertThat(first.stream().filter(e -> e.contains(": stop ")).count()).isPositive();
        assertThat(loops.opened().get(0).loop.counters().deferrals()).isPositive();
        assertThat(loops.opened().get(0).loop.counters().preemptions()).isPositive();
        assertThat(loops.opened().get(0).loop.counters().failures()).isPositive();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 14, 15, 19})
    void randomRunsKeepTheirInvariants(long seed) {
        randomRun(loops.open("s" + seed, List.of("a", "b", "c"), 8, 8), seed);
    }

    @Test
    void nothingHappensUntilTheStoreHasNodesAndAllocations() {
        Fixture f = loops.open("empty", List.of());
        f.cycle();
        assertThat(f.story).isEmpty();
        assertThat(f.loop.counters().cycles()).isEqualTo(1);
    }

    @Test
    void anAttemptBegunInTheStoreButNeverStartedIsLaunchedAtLoadWithTheSameKeyAndWaitingWorkGetsOtherGpus() {
        Fixture f = loops.open("load", List.of("a"), 8);
        String was = f.submit("a", 4, HOUR, 900, false);
        // A crash between the store's beginAttempt and the backend's start.
        AttemptKey before = f.store.attempts().beginAttempt(was, List.of(new Launch.NodeGpus("n1", List.of(4, 5, 6, 7))),
                f.clock.millis());
        String waits = f.submit("a", 4, HOUR, 900, false);
        f.cycle();
        assertThat(f.loop.counters().foundRunningAtLoad()).isEqualTo(1);
        assertThat(f.loop.counters().adoptedAtLoad()).isEqualTo(1);
        assertThat(f.story).containsExactly(
                "1: start " + was + "#1 n1[4, 5, 6, 7]",
                "1: start " + waits + "#1 n1[0, 1, 2, 3]");
        assertThat(f.backend.launches.get(0).attempt()).isEqualTo(before);
        assertThat(f.backend.launches.get(0).command()).containsExactly("train.py");
        assertThat(f.backend.launches.get(0).environment()).containsEntry("SEED", "1");
        assertThat(f.backend.launches.get(0).duration()).isEqualTo(Duration.ofHours(1));
        f.cycle();
        assertThat(f.attempts(was)).singleElement().satisfies(a -> assertThat(a.phase().label()).isEqualTo("running"));
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(was)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.stateOf(waits)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.attempts(was)).hasSize(1);
    }

    @Test
    void aStartLostOnTheWayToTheBackendIsLaunchedOnceByTheNextLoopWithTheSameAttemptNumber() {
        Fixture f = loops.open("dropped", List.of("a"), 8);
        String w = f.submit("a", 8, HOUR, 900, false);
        f.backend.dropNextStart = true;
        f.cycle();
        assertThat(f.backend.launches).isEmpty();
        assertThat(f.attempts(w)).singleElement().satisfies(a -> assertThat(a.phase().label()).isEqualTo("launching"));
        f.crash();
        f.advance(60);
        f.cycle();
        f.cycle();
        assertThat(f.story).containsExactly("2: restart", "2: start " + w + "#1 n1[0, 1, 2, 3, 4, 5, 6, 7]");
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.attempts(w)).singleElement().satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.COMPLETED));
    }

    @Test
    void aLoopThatCrashesIsAdoptedWithoutASecondLaunchAndNewWorkGetsOtherGpus() {
        Fixture f = loops.open("adopt", List.of("a"), 8);
        String brief = f.submit("a", 4, 600, 300, false);
        String stays = f.submit("a", 4, HOUR, 900, false);
        f.cycle();
        f.advance(600);
        f.cycle();
        assertThat(f.stateOf(brief)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.attempts(stays)).singleElement().satisfies(a -> assertThat(a.phase().label()).isEqualTo("running"));

        f.crash();
        f.advance(60);
        String fits = f.submit("a", 4, HOUR, 900, false);
        String waits = f.submit("a", 4, HOUR, 900, false);
        f.cycle();
        assertThat(f.loop.counters().adoptedAtLoad()).isEqualTo(1);
        assertThat(f.stateOf(waits)).isEqualTo(WorkloadState.PENDING);
        f.advance(HOUR - 661);
        f.cycle();
        assertThat(f.stateOf(stays)).isEqualTo(WorkloadState.RUNNING);
        f.advance(1);
        f.cycle();
        // The adopted attempt completes normally and its GPUs go to the work that waited.
        assertThat(f.stateOf(stays)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.attempts(stays)).singleElement().satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.COMPLETED));
        assertThat(f.story).containsExactly(
                "1: start " + brief + "#1 n1[0, 1, 2, 3]",
                "1: start " + stays + "#1 n1[4, 5, 6, 7]",
                "3: restart",
                "3: start " + fits + "#1 n1[0, 1, 2, 3]",
                "5: start " + waits + "#1 n1[4, 5, 6, 7]");
    }

    @Test
    void givenWorkKilledBySigintWhileTheLoopWasDown_whenItsBackendsWorkDiesWithTheService_thenItIsLostNotFailed() {
        for (boolean diesWithService : new boolean[] {true, false}) {
            Fixture f = loops.open("sigint-" + diesWithService, List.of("a"), 8);
            f.backend.diesWithService = diesWithService;
            String resumable = f.submit("a", 4, 900, 60, true);
            String not = f.submit("a", 4, 900, 60, false);
            f.cycle();
            f.advance(10);
            f.cycle();
            f.crash();
            f.advance(900); // both end while the loop is down, killed by SIGINT
            f.backend.exitCode.put(resumable, 130);
            f.backend.exitCode.put(not, 130);
            f.cycle();

            Attempt r = f.attempts(resumable).get(0);
            Attempt n = f.attempts(not).get(0);
            if (diesWithService) {
                assertThat(r.outcome()).as(r.reason()).isEqualTo(AttemptOutcome.LOST);
                assertThat(r.reason()).startsWith("its process died while the service was down, killed by SIGINT"
                        + " (exit code 130) without a stop being asked for");
                assertThat(f.stateOf(resumable)).isIn(WorkloadState.REQUEUED, WorkloadState.RUNNING);
                assertThat(n.outcome()).isEqualTo(AttemptOutcome.LOST);
                assertThat(f.stateOf(not)).isEqualTo(WorkloadState.FAILED);
            } else {
                // Work another system runs (Slurm) ended of its own accord: its exit code is its answer.
                assertThat(r.outcome()).as(r.reason()).isEqualTo(AttemptOutcome.FAILED);
                assertThat(f.stateOf(resumable)).isEqualTo(WorkloadState.FAILED);
                assertThat(f.stateOf(not)).isEqualTo(WorkloadState.FAILED);
            }
        }
    }

    @Test
    void givenAnAdoptedAttemptSeenRunning_whenItIsKilledLater_thenItEndedOnTheServicesWatchAndFails() {
        Fixture f = loops.open("seen", List.of("a"), 8);
        f.backend.diesWithService = true;
        String w = f.submit("a", 4, 900, 60, true);
        f.cycle();
        f.crash();
        f.advance(10);
        f.cycle(); // adopted, seen running
        f.advance(900);
        f.backend.exitCode.put(w, 137);
        f.cycle();

        assertThat(f.attempts(w).get(0).outcome()).isEqualTo(AttemptOutcome.FAILED);
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.FAILED);
    }

    @Test
    void aRunningAttemptTheBackendDoesNotKnowIsLostAndResumableWorkStartsAgainAsAttemptTwo() {
        Fixture f = loops.open("lost", List.of("a"), 8);
        String resumable = f.submit("a", 4, HOUR, 900, true);
        String not = f.submit("a", 4, HOUR, 900, false);
        f.cycle();
        f.advance(60);
        f.cycle();
        f.crashWithTheBackend();
        f.advance(60);
        f.cycle();
        assertThat(f.attempts(resumable)).extracting(Attempt::outcome).containsExactly(AttemptOutcome.LOST, null);
        assertThat(f.attempts(resumable).get(0).reason()).contains("did not know it");
        assertThat(f.stateOf(resumable)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.attempts(not)).extracting(Attempt::outcome).containsExactly(AttemptOutcome.LOST);
        assertThat(f.stateOf(not)).isEqualTo(WorkloadState.FAILED);
        assertThat(f.story).containsExactly(
                "1: start " + resumable + "#1 n1[0, 1, 2, 3]",
                "1: start " + not + "#1 n1[4, 5, 6, 7]",
                "3: restart",
                "3: start " + resumable + "#2 n1[0, 1, 2, 3]");
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(resumable)).isEqualTo(WorkloadState.COMPLETED);
    }

    @Test
    void aStoppingAttemptIsAdoptedFencedAndItsStopIsSentAgain() {
        Fixture f = loops.open("stopping", List.of("a", "b"), 8);
        f.backend.holdStops = true;
        String a = f.submit("a", 8, 10 * HOUR, 900, true);
        f.cycle();
        f.advance(HOUR);
        String b = f.submit("b", 8, HOUR, 900, true);
        f.cycle();
        assertThat(f.attempts(a).get(0).phase().label()).isEqualTo("stopping");

        f.crash();
        f.advance(10);
        f.cycle();
        // Nothing starts on the GPUs the stopping attempt still holds; its stop is sent again.
        assertThat(f.backend.stops).containsExactly(new AttemptKey(a, 1), new AttemptKey(a, 1));
        assertThat(f.backend.graces).as("the restart gives what is left of the grace period")
                .containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(20));
        assertThat(f.loop.deferredLaunches()).hasSize(1);
        assertThat(f.backend.launches).hasSize(1);
        assertThat(f.attempts(a).get(0).open()).isTrue();

        f.backend.release();
        f.advance(5);
        f.cycle();
        assertThat(f.attempts(a).get(0).outcome()).isEqualTo(AttemptOutcome.REQUEUED);
        assertThat(f.loop.deferredLaunches()).isEmpty();
        assertThat(f.backend.launches).hasSize(2);
        for (int i = 0; i < 30; i++) {
            f.advance(HOUR);
            f.cycle();
        }
        assertThat(f.stateOf(a)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.store.attempts().openAttempts()).isEmpty();
    }

    @Test
    void aCancelledStoppingAttemptIsAdoptedFencedAndEndsCancelled() {
        Fixture f = loops.open("stopping-cancel", List.of("a"), 8);
        f.backend.holdStops = true;
        String w = f.submit("a", 8, 10 * HOUR, 900, true);
        f.cycle();
        f.cancel(w);
        f.cycle();
        f.crash();
        String next = f.submit("a", 8, HOUR, 900, true);
        f.cycle();
        assertThat(f.loop.deferredLaunches()).containsExactly(next);
        f.backend.release();
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.CANCELLED);
        assertThat(f.attempts(w)).singleElement().satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.CANCELLED));
        assertThat(f.stateOf(next)).isEqualTo(WorkloadState.RUNNING);
    }

    @Test
    void anAdoptedAttemptTheBackendCannotTellAboutStaysLiveAndHoldsItsGpus() {
        Fixture f = loops.open("adopt-unknown", List.of("a"), 8);
        String w = f.submit("a", 8, HOUR, 900, false);
        f.cycle();
        f.backend.unknown.add(w);
        f.crash();
        f.advance(2 * HOUR);
        String next = f.submit("a", 8, HOUR, 900, false);
        f.cycle();
        f.cycle();
        assertThat(f.attempts(w)).singleElement().satisfies(a -> assertThat(a.open()).isTrue());
        assertThat(f.stateOf(next)).isEqualTo(WorkloadState.PENDING);
        f.backend.unknown.clear();
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.stateOf(next)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.backend.launches).hasSize(2);
    }

    /** Like {@link #randomRun}, with the loop crashing at random cycles and a new one adopting its work. */
    private static void randomRunWithCrashes(Fixture f, long seed) {
        java.util.Random r = new java.util.Random(seed);
        List<String> ids = new ArrayList<>();
        int crashes = 0;
        int adopted = 0;
        for (int step = 0; step < 150; step++) {
            randomStep(f, r, ids);
            if (r.nextInt(8) == 0) {
                f.backend.dropNextStart = r.nextBoolean();
            }
            if (r.nextInt(6) == 0) {
                adopted += f.loop.counters().adoptedAtLoad();
                f.crash();
                crashes++;
            }
            f.advance(r.nextInt(900));
            f.cycle();
        }
        f.backend.holdStops = false;
        f.backend.dropNextStart = false;
        f.backend.release();
        adopted += f.loop.counters().adoptedAtLoad();
        f.crash();
        for (int i = 0; i < 200; i++) {
            f.advance(3600);
            f.cycle();
        }
        assertThat(crashes).isPositive();
        adopted += f.loop.counters().adoptedAtLoad();
        assertThat(adopted).as("attempts adopted over the run").isPositive();
        for (String id : ids) {
            assertThat(f.stateOf(id)).as(id).isIn(WorkloadState.COMPLETED, WorkloadState.CANCELLED,
                    WorkloadState.PREEMPTED, WorkloadState.FAILED);
        }
        assertThat(f.store.attempts().openAttempts()).isEmpty();
        assertThat(f.loop.deferredLaunches()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 7, 14, 15, 19, 42})
    void randomRunsWithCrashesNeverGiveAGpuTwiceNorStartAnAttemptTwice(long seed) {
        randomRunWithCrashes(loops.open("c" + seed, List.of("a", "b", "c"), 8, 8), seed);
    }

    @Test
    void aWorkloadTheCoreCannotHoldIsRefusedAndLeftInTheStore() {
        Fixture f = loops.open("refuse", List.of("a"), 8);
        String big = f.submit("a", 16, HOUR, 900, false);
        f.cycle();
        assertThat(f.loop.refused()).containsKey(big);
        assertThat(f.stateOf(big)).isEqualTo(WorkloadState.PENDING);
        assertThat(f.backend.launches).isEmpty();
    }
}
