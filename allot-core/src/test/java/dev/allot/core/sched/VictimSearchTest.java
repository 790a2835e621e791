package dev.allot.core.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.state.Job;
import java.util.List;
import org.junit.jupiter.api.Test;

class VictimSearchTest {
    private final RunningJobs fixture = RunningJobs.threeNodes();
    private final List<Job> running = fixture.running;

    private Job run(String id, int node, int gpus) {
        return fixture.run(id, node, gpus);
    }

    private CycleWork work() {
        return fixture.work();
    }

    private static List<String> ids(List<Job> jobs) {
        return RunningJobs.ids(jobs);
    }

    @Test
    void anyPackingTakesTheFewestPreferredVictimsThenDropsTheUnneeded() {
        run("a", 0, 2);
        run("b", 0, 6);
        run("c", 1, 8);
        run("d", 2, 4);
        // preference order as given: a, b, c, d; 4 GPUs are free, 10 are needed
        List<Job> v = VictimSearch.find(work(), 10, 0, null, running);
        // greedy takes a (2), b (6) -> 12 free; dropping a still leaves 10: minimal set is {b}
        assertThat(ids(v)).containsExactly("b");
    }

    @Test
    void aGangPreemptsOnTheNodesWhoseWorstVictimIsMostPreferred() {
        run("a", 0, 4);
        run("b", 0, 4);
        run("c", 1, 8);
        run("d", 2, 8);
        // two whole nodes needed; node 1 needs {a, b} (worst rank 1), node 2 needs {c} (rank 2), node 3 {d} (rank 3)
        List<Job> v = VictimSearch.find(work(), 16, 8, null, running);
        assertThat(ids(v)).containsExactly("a", "b", "c");
    }

    @Test
    void noSetOfCandidatesMakesRoomMeansNull() {
        run("a", 0, 8);
        run("b", 1, 8);
        run("c", 2, 8);
        assertThat(VictimSearch.find(work(), 16, 8, null, running.subList(0, 1))).isNull();
        assertThat(VictimSearch.find(work(), 9, 0, null, running.subList(0, 1))).isNull();
    }
}
