package dev.allot.core.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.state.Job;
import java.util.List;
import org.junit.jupiter.api.Test;

class VictimSearchTest {
    private final RunningJobs fixture = RunningJobs.threeNodes();
    private final List<Job> running = fixture.running;

    @Test
    void anyPackingTakesTheFewestPreferredVictimsThenDropsTheUnneeded() {
        fixture.run("a", 0, 2);
        fixture.run("b", 0, 6);
        fixture.run("c", 1, 8);
        fixture.run("d", 2, 4);
        // preference order as given: a, b, c, d; 4 GPUs are free, 10 are needed
        List<Job> v = VictimSearch.find(fixture.work(), 10, 0, null, running);
        // greedy takes a (2), b (6) -> 12 free; dropping a still leaves 10: minimal set is {b}
        assertThat(RunningJobs.ids(v)).containsExactly("b");
    }

    @Test
    void aGangPreemptsOnTheNodesWhoseWorstVictimIsMostPreferred() {
        fixture.run("a", 0, 4);
        fixture.run("b", 0, 4);
        fixture.run("c", 1, 8);
        fixture.run("d", 2, 8);
        // two whole nodes needed; node 1 needs {a, b} (worst rank 1), node 2 needs {c} (rank 2), node 3 {d} (rank 3)
        List<Job> v = VictimSearch.find(fixture.work(), 16, 8, null, running);
        assertThat(RunningJobs.ids(v)).containsExactly("a", "b", "c");
    }

    @Test
    void noSetOfCandidatesMakesRoomMeansNull() {
        fixture.run("a", 0, 8);
        fixture.run("b", 1, 8);
        fixture.run("c", 2, 8);
        assertThat(VictimSearch.find(fixture.work(), 16, 8, null, running.subList(0, 1))).isNull();
        assertThat(VictimSearch.find(fixture.work(), 9, 0, null, running.subList(0, 1))).isNull();
    }
}
