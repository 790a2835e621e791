package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.state.JobState;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Node;
import dev.allot.server.store.WorkloadState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the loop does when the world changes under it: edits of the tree, new nodes and health changes are taken in
 * at the next cycle; a restart or a rebuild keeps every running workload's promised protection and the window's
 * usage; and the policy is asked only when something changed or a protection ends.
 */
class SchedulerLoopChangesTest {
    private static final long HOUR = 3600;
    private static final long MIN = 60;

    @RegisterExtension
    final LoopFixtures loops = new LoopFixtures();

    @Test
    void givenTeamAOnTheWholeNodeWhenTeamCIsCreatedItsWorkWaitsForAsProtectionAsPromisedNotLonger() {
        Fixture f = loops.open("tree", List.of("a", "b"), 8);
        List<String> as = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            as.add(f.submit("a", 1, 10 * HOUR, HOUR, true));
        }
        f.cycle();
        assertThat(f.backend.launches).hasSize(8);

        f.advance(30 * MIN);
        f.store.allocations().putAllocation(new Allocation("c", 1, List.of(), List.of()), "root", f.clock.millis());
        String c = f.submit("c", 1, HOUR, 600, false);
        f.cycle();
        assertThat(f.loop.counters().rebuilds()).isEqualTo(1);
        assertThat(f.loop.refused()).isEmpty();
        assertThat(f.stateOf(c)).as("a's work is protected for its first hour").isEqualTo(WorkloadState.PENDING);

        f.advance(30 * MIN - 1);
        f.cycle();
        assertThat(f.backend.stops).isEmpty();
        f.advance(1);
        f.cycle();
        // The rebuild kept the protection's end (1h after the start), so c preempts at 1h, not 1h30.
        assertThat(f.backend.stops).hasSize(1);
        assertThat(f.stateOf(c)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.story.subList(8, f.story.size())).containsExactly(
                "4: start " + c + "#1 n1[0]",
                "4: stop " + as.get(0) + "#1");
    }

    @Test
    void aShareEditChangesWhoGoesFirstAtTheNextCycle() {
        Fixture f = loops.open("shares", List.of("a", "b"), 8);
        f.submit("a", 4, HOUR, HOUR, false);
        f.submit("b", 4, 2 * HOUR, HOUR, false);
        f.cycle();
        f.advance(2 * HOUR);
        f.cycle();
        // a used 4 GPU-hours, b 8: with equal shares a is the less served; with b's share raised 100x, b is.
        f.store.allocations().putAllocation(new Allocation("b", 100, List.of(), List.of()), "root", f.clock.millis());
        f.loop.topologyChanged(); // as the API does after an edit
        String a = f.submit("a", 8, HOUR, HOUR, false);
        String b = f.submit("b", 8, HOUR, HOUR, false);
        f.cycle();
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.stateOf(a)).isEqualTo(WorkloadState.PENDING);
        assertThat(f.loop.counters().rebuilds()).isEqualTo(1);
    }

    @Test
    void aNodeAddedToTheStoreTakesWorkAtTheNextCycle() {
        Fixture f = loops.open("grow", List.of("a"), 4);
        String first = f.submit("a", 4, HOUR, 600, false);
        String second = f.submit("a", 4, HOUR, 600, false);
        f.cycle();
        assertThat(f.stateOf(second)).isEqualTo(WorkloadState.PENDING);
        f.advance(MIN);
        f.store.nodes().putNode(new Node("n2", 4, true, null, f.clock.millis()));
        f.cycle();
        assertThat(f.story).containsExactly(
                "1: start " + first + "#1 n1[0, 1, 2, 3]",
                "2: start " + second + "#1 n2[0, 1, 2, 3]");
    }

    @Test
    void aNodeMarkedUnhealthyTakesNoNewWorkAndIsDrainedWhenItsWorkIsPastItsMinimumRuntime() {
        Fixture f = loops.open("health", List.of("a"), 4, 4);
        String running = f.submit("a", 4, 10 * HOUR, 10 * MIN, true);
        f.cycle();
        assertThat(f.story).containsExactly("1: start " + running + "#1 n1[0, 1, 2, 3]");

        f.advance(MIN);
        f.store.nodes().setHealth("n1", false, "ECC errors", f.clock.millis());
        String next = f.submit("a", 4, HOUR, 10 * MIN, false);
        f.cycle();
        assertThat(f.story).containsExactly(
                "1: start " + running + "#1 n1[0, 1, 2, 3]",
                "2: start " + next + "#1 n2[0, 1, 2, 3]");

        f.advance(9 * MIN - 1);
        f.cycle();
        assertThat(f.backend.stops).isEmpty();
        f.advance(1);
        f.cycle();
        assertThat(f.backend.stops).extracting(Object::toString).containsExactly(running + "#1");
        f.cycle();
        assertThat(f.attempts(running).get(0).outcome()).isEqualTo(AttemptOutcome.REQUEUED);
        assertThat(f.attempts(running).get(0).reason()).contains("n1 is unhealthy");
        // Healthy again: the requeued work comes back to it.
        f.advance(MIN);
        f.store.nodes().setHealth("n1", true, "repaired", f.clock.millis());
        f.cycle();
        assertThat(f.story.get(f.story.size() - 1)).isEqualTo(
                "6: start " + running + "#2 n1[0, 1, 2, 3]");
    }

    @Test
    void afterARestartTheWindowRemembersWhoUsedWhatAndProtectionEndsWhenPromised() {
        Fixture f = loops.open("seed", List.of("a", "b"), 8);
        String heavy = f.submit("a", 8, 2 * HOUR, HOUR, false);
        f.cycle();
        f.advance(2 * HOUR);
        f.cycle();
        String light = f.submit("b", 8, HOUR, HOUR, false);
        f.cycle();
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(heavy)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(f.stateOf(light)).isEqualTo(WorkloadState.COMPLETED);

        // a used 16 GPU-hours, b 8. Were usage forgotten, the tie would go to 'a' by name.
        f.crash();
        String a = f.submit("a", 8, HOUR, HOUR, false);
        String b = f.submit("b", 8, HOUR, HOUR, false);
        f.cycle();
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.stateOf(a)).isEqualTo(WorkloadState.PENDING);
    }

    /** The shortest turn's stories: the fixture at 20m, c's reclaim of a2 decided, and a2's id. */
    private record TurnStory(Fixture f, String a2) {
    }

    /**
     * One 16-GPU node shared by a, b, c and d (quota 4 each): a runs a1 (8 GPUs, protected 8h) and a2 (4 GPUs,
     * protected 10m), b its quota with b0; at 20m c (30 minutes of work), owed, reclaims a2.
     */
    private TurnStory cReclaimsA2At20Minutes(String name) {
        Fixture f = loops.open(name, List.of("a", "b", "c", "d"), 16);
        f.submit("a", 8, 10 * HOUR, 8 * HOUR, true);
        String a2 = f.submit("a", 4, 10 * HOUR, 10 * MIN, true);
        f.submit("b", 4, 10 * HOUR, 10 * MIN, true);
        f.cycle();
        f.advance(20 * MIN);
        f.submit("c", 4, 30 * MIN, 10 * MIN, true);
        f.cycle();
        f.cycle();
        return new TurnStory(f, a2);
    }

    @Test
    void afterARestartWorkPreemptedBeforeStillRunsItsShortestTurn() {
        // given c's reclaim of a2 at 20m (cReclaimsA2At20Minutes); a2 starts again once c1 is done at 50m
        TurnStory story = cReclaimsA2At20Minutes("turn");
        Fixture f = story.f();
        String a2 = story.a2();
        f.advance(30 * MIN);
        f.cycle();
        f.cycle();
        assertThat(f.stateOf(a2)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.backend.stops).extracting(Object::toString).containsExactly(a2 + "#1");

        // when the service restarts at 55m and b, bursting (it holds its quota), submits b1 at 1h
        f.advance(5 * MIN);
        f.crash();
        f.cycle();
        f.advance(5 * MIN);
        f.submit("b", 4, HOUR, 10 * MIN, true);
        f.cycle();
        // then a2, preempted before the restart, is not taken for b's turn when its protection ends at 1h, nor before
        // its run has lasted the shortest turn (1h, at 1h50m): the restarted core remembers it was preempted; it is
        // taken at the first re-ranking after that (fairshare-recheck, 5m)
        for (int minute = 1; minute < 50; minute++) {
            f.advance(MIN);
            f.cycle();
            assertThat(f.backend.stops).as("at 1h%dm", minute).extracting(Object::toString).containsExactly(a2 + "#1");
        }
        for (int minute = 50; minute <= 55 && f.backend.stops.size() < 2; minute++) {
            f.advance(MIN);
            f.cycle();
        }
        assertThat(f.backend.stops).extracting(Object::toString).containsExactly(a2 + "#1", a2 + "#2");
    }

    @Test
    void afterARestartWorkPreemptedBeforeAndStillWaitingRunsItsShortestTurn() {
        // given c's reclaim of a2 (4 GPUs, protected 10m) at 20m (cReclaimsA2At20Minutes)
        TurnStory story = cReclaimsA2At20Minutes("turn-waiting");
        Fixture f = story.f();
        String a2 = story.a2();
        assertThat(f.backend.stops).extracting(Object::toString).containsExactly(a2 + "#1");

        // when the service restarts at 30m while a2 waits, a2 starts again once c1 is done at 50m, and b, bursting,
        // submits b1 at 1h
        f.advance(10 * MIN);
        f.crash();
        f.cycle();
        assertThat(f.stateOf(a2)).isEqualTo(WorkloadState.REQUEUED);
        f.advance(20 * MIN);
        f.cycle();
        f.cycle();
        assertThat(f.stateOf(a2)).isEqualTo(WorkloadState.RUNNING);
        f.advance(10 * MIN);
        f.submit("b", 4, HOUR, 10 * MIN, true);
        // then the restarted core, which admitted a2 as waiting work, knows from the store that it was preempted
        // before: a2 is not taken for b's turn when its protection ends at 1h, only once its run lasted 1h (1h50m)
        for (int minute = 0; minute < 50; minute++) {
            f.cycle();
            assertThat(f.backend.stops).as("at 1h%dm", minute).extracting(Object::toString).containsExactly(a2 + "#1");
            f.advance(MIN);
        }
        for (int minute = 50; minute <= 55 && f.backend.stops.size() < 2; minute++) {
            f.cycle();
            f.advance(MIN);
        }
        assertThat(f.backend.stops).extracting(Object::toString).containsExactly(a2 + "#1", a2 + "#2");
    }

    @Test
    void anAdoptedAttemptKeepsTheProtectionItStartedWith() {
        Fixture f = loops.open("adopted", List.of("a", "b"), 8);
        String a = f.submit("a", 8, 10 * HOUR, HOUR, true);
        f.cycle();
        f.advance(50 * MIN);
        f.crash();
        String b = f.submit("b", 8, HOUR, HOUR, false);
        f.cycle();
        assertThat(f.stateOf(b)).isEqualTo(WorkloadState.PENDING);
        f.advance(10 * MIN);
        f.cycle();
        // Protected until 1h after its start, not 1h after the restart.
        assertThat(f.backend.stops).extracting(Object::toString).containsExactly(a + "#1");
    }

    @Test
    void thePolicyIsAskedOnlyWhenSomethingChangedOrAProtectionEnds() {
        Fixture f = loops.open("idle", List.of("a", "b"), 8);
        f.submit("a", 8, 10 * HOUR, HOUR, true);
        f.submit("a", 8, 10 * HOUR, HOUR, true);
        f.cycle();
        long asked = f.loop.counters().decisions();
        for (int i = 0; i < 5; i++) {
            f.advance(1);
            f.cycle();
        }
        assertThat(f.loop.counters().decisions()).as("nothing changed").isEqualTo(asked);
        f.submit("b", 1, HOUR, 600, false);
        f.advance(1);
        f.cycle();
        assertThat(f.loop.counters().decisions()).as("a submission").isEqualTo(asked + 1);
        f.advance(HOUR);
        f.cycle();
        assertThat(f.loop.counters().decisions()).as("a protection ended").isEqualTo(asked + 2);
        assertThat(f.backend.stops).hasSize(1);
    }

    @Test
    void aWaitingWorkloadCancelledInTheStoreWithoutAHintIsDroppedAtTheNextCycle() {
        Fixture f = loops.open("hintless", List.of("a"), 4);
        String runs = f.submit("a", 4, 10 * HOUR, HOUR, true);
        String waits = f.submit("a", 4, HOUR, 600, false);
        f.cycle();
        assertThat(f.loop.inspect((s, now) -> s.job(waits).orElseThrow().state()).orElseThrow())
                .isEqualTo(JobState.PENDING);
        f.store.workloads().requestCancel(waits); // straight into the store: no hint, no nudge
        f.advance(1);
        f.cycle();
        assertThat(f.loop.counters().cancellations()).isEqualTo(1);
        assertThat(f.loop.inspect((s, now) -> s.job(waits).orElseThrow().state()).orElseThrow())
                .isEqualTo(JobState.CANCELLED);
        // and a running one is seen at once too, its attempt stopped
        f.store.workloads().requestCancel(runs);
        f.advance(1);
        f.cycle();
        assertThat(f.backend.stops).extracting(Object::toString).containsExactly(runs + "#1");
        assertThat(f.stateOf(waits)).isEqualTo(WorkloadState.CANCELLED);
        assertThat(f.loop.counters().cancellations()).isEqualTo(2);
    }

    @Test
    void noCycleAfterTheLoadReadsEveryWorkloadAgainYetEachChangeIsTakenInOnce() {
        Fixture f = loops.open("feed", List.of("a"), 4);
        String runs = f.submit("a", 4, 10 * HOUR, HOUR, true);
        f.cycle();
        List<String> waiting = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(f.submit("a", 4, HOUR, 600, false));
        }
        f.advance(1);
        f.cycle();
        assertThat(f.loop.inspect((s, now) -> waiting.stream().filter(id -> s.job(id).isPresent()).count())
                .orElseThrow()).as("new submissions admitted from the change feed").isEqualTo(5L);
        // two minutes of quiet cycles, past any periodic read: nothing is admitted twice, nothing cancelled
        for (int i = 0; i < 120; i++) {
            f.advance(1);
            f.cycle();
        }
        assertThat(f.loop.counters().cancellations()).isZero();
        assertThat(f.loop.refused()).isEmpty();
        f.store.workloads().requestCancel(waiting.get(2));
        f.advance(1);
        f.cycle();
        assertThat(f.loop.counters().cancellations()).isEqualTo(1);
        assertThat(f.stateOf(runs)).isEqualTo(WorkloadState.RUNNING);
    }
}
