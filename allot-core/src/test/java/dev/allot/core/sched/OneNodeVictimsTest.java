package dev.allot.core.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one-node victim search and placement by a node cost, and the cycle's view of protection ends. */
class OneNodeVictimsTest {
    private final RunningJobs fixture = RunningJobs.threeNodes();
    private final ClusterState s = fixture.state;
    private final List<Job> running = fixture.running;

    @Test
    void givenThreeNodesEachFreeableTheCheapestNodeWinsNotTheMostPreferredVictim() {
        fixture.run("a", 0, 8);
        fixture.run("b", 1, 8);
        fixture.run("c", 2, 8);
        // preference a, b, c; node n2 costs nothing (say it is pinned anyway), the others 100
        List<Job> v = OneNodeVictims.find(fixture.work(), 4, null, running, j -> 0, 0, n -> n == 1 ? 0 : 100, j -> 0);
        assertThat(RunningJobs.ids(v)).containsExactly("b");
    }

    @Test
    void theVictimsOwnCostCountsWithTheNodes() {
        fixture.run("a", 0, 8);
        fixture.run("b", 1, 8);
        Map<String, Long> lost = Map.of("a", 10L, "b", 500L);
        // n2 is cheaper as a node (0 vs 100) but its victim loses 500: n1 costs 110 in all, n2 500
        List<Job> v = OneNodeVictims.find(fixture.work(), 8, null, running, j -> 0, 0, n -> n == 1 ? 0 : 100,
                j -> lost.get(j.id()));
        assertThat(RunningJobs.ids(v)).containsExactly("a");
    }

    @Test
    void aLowerGroupBeatsACheaperNodeAndGroupsAboveTheLimitAreNeverTaken() {
        fixture.run("u", 0, 8); // group 0, expensive node
        fixture.run("r", 1, 8); // group 1, free node
        List<Job> sorted = List.of(running.get(0), running.get(1));
        List<Job> v = OneNodeVictims.find(fixture.work(), 8, null, sorted, j -> j.id().equals("u") ? 0 : 1, 1,
                n -> n == 1 ? 0 : 1_000, j -> 0);
        assertThat(RunningJobs.ids(v)).containsExactly("u");
        // when only group 0 may be taken and its node is excluded, nothing is found
        BitSet excluded = new BitSet();
        excluded.set(0);
        assertThat(OneNodeVictims.find(fixture.work(), 8, excluded, sorted, j -> j.id().equals("u") ? 0 : 1, 0,
                n -> 0, j -> 0)).isNull();
    }

    @Test
    void onlyVictimsOnTheChosenNodeAreTakenAndOnlyAsManyAsNeeded() {
        fixture.run("a", 0, 2);
        fixture.run("b", 1, 4);
        fixture.run("c", 0, 2);
        fixture.run("d", 0, 4);
        // n1 has 0 free: 4 GPUs there need a and c (2 + 2); n2 has 4 free already: the cheapest node wins
        List<Job> v = OneNodeVictims.find(fixture.work(), 4, null, running, j -> 0, 0, n -> n == 0 ? 0 : 50, j -> 0);
        assertThat(RunningJobs.ids(v)).containsExactly("a", "c");
        // nothing fits on one node when the work is larger than any node
        assertThat(OneNodeVictims.find(fixture.work(), 9, null, running, j -> 0, 0, n -> 0, j -> 0)).isNull();
    }

    @Test
    void findOnOneNodeTakesTheLowestCostThenTheBestFit() {
        fixture.run("a", 0, 6); // n1: 2 free
        fixture.run("b", 1, 4); // n2: 4 free; n3: 8 free
        CycleWork w = fixture.work();
        assertThat(Placer.findOnOneNode(w.free(), 2, null, n -> 0).node(0)).isEqualTo(0); // best fit
        assertThat(Placer.findOnOneNode(w.free(), 2, null, n -> n == 2 ? 0 : 1).node(0)).isEqualTo(2);
        assertThat(Placer.findOnOneNode(w.free(), 5, null, n -> 0).node(0)).isEqualTo(2);
        assertThat(Placer.findOnOneNode(w.free(), 9, null, n -> 0)).isNull();
    }

    @Test
    void theCycleCountsProtectionsItStartedInTheLatestProtectionEnd() {
        Job p = s.register(WorkloadSpec.builder("p").allocation("A").gpus(1).minRuntime(Duration.ofHours(2)).build());
        s.submit(p, 0);
        CycleWork w = fixture.work();
        assertThat(w.latestProtectionEnd(1)).isEqualTo(s.nodes().latestProtectionEnd(1));
        w.start(p, new Placement(new int[] {1}, new int[] {1}), "test");
        assertThat(w.latestProtectionEnd(1)).isEqualTo(2 * 3600);
        assertThat(w.latestProtectionEnd(0)).isEqualTo(s.nodes().latestProtectionEnd(0));
        w.begin(0); // a new cycle forgets what the last one planned
        assertThat(w.latestProtectionEnd(1)).isEqualTo(s.nodes().latestProtectionEnd(1));
    }
}
