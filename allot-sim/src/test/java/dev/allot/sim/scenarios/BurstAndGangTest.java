package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/** Bursting beyond an entitlement, giving it back, and whole-node gangs. */
class BurstAndGangTest {

    @Test
    void aLoneTeamBurstsToTheWholeClusterAndGivesBackItsShareWhenOthersReturn() {
        // given a 4x8-GPU cluster shared 50/50, and A alone submits four 8-GPU resumable runs
        Run run = given().nodes(4, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("20h").minRuntime("2h").checkpointEvery("30m").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("20h").minRuntime("2h").checkpointEvery("30m").at("0s"))
                .workload(w("a3").in("A").gpus(8).runs("20h").minRuntime("2h").checkpointEvery("30m").at("0s"))
                .workload(w("a4").in("A").gpus(8).runs("20h").minRuntime("2h").checkpointEvery("30m").at("0s"))
                // when B comes back at 5h with two 8-GPU runs
                .workload(w("b1").in("B").gpus(8).runs("10h").minRuntime("2h").at("5h"))
                .workload(w("b2").in("B").gpus(8).runs("10h").minRuntime("2h").at("5h"))
                .run("allocation");
        // then A had all 32 GPUs, and gives back exactly B's half at once (its runs are past their minimum runtime)
        assertThat(run.story()).startsWith(
                "0s start a1 on n1:8",
                "0s start a2 on n2:8",
                "0s start a3 on n3:8",
                "0s start a4 on n4:8",
                "5h preempt a1 by b1 fair_share requeued lost=0s",
                "5h start b1 on n1:8",
                "5h preempt a2 by b2 fair_share requeued lost=0s",
                "5h start b2 on n2:8");
        // and A does not take the GPUs back while B is below its share: the next event is B finishing
        assertThat(run.story().get(8)).isEqualTo("15h complete b1");
    }

    @Test
    void a16GpuWholeNodeGangStartsAllOrNothing() {
        // given three 8-GPU nodes, one of them half used by a protected job
        Run run = given().nodes(3, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("s1").in("A").gpus(4).runs("5h").minRuntime("5h").at("0s"))
                .workload(w("g1").in("B").gang(16, 8).runs("2h").minRuntime("1h").at("1m"))
                .workload(w("g2").in("B").gang(16, 8).runs("2h").minRuntime("1h").at("2m"))
                .run("allocation");
        // then g1 takes the two whole free nodes; g2 never starts on the 4 GPUs left, only when two nodes are whole
        assertThat(run.story()).containsExactly(
                "0s start s1 on n1:4",
                "1m start g1 on n2:8,n3:8",
                "2h1m complete g1",
                "2h1m start g2 on n2:8,n3:8",
                "4h1m complete g2",
                "5h complete s1");
    }

    @Test
    void aGangPreemptsWholeNodesAndOnlyAsManyVictimsAsItNeeds() {
        // given B fills three nodes with six 4-GPU jobs past their minimum runtime, A is owed its share
        Run run = given().nodes(3, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workloads(java.util.stream.IntStream.rangeClosed(1, 6)
                        .mapToObj(i -> w("b" + i).in("B").gpus(4).runs("10h").minRuntime("1h").resumable().at("0s")).toList())
                .workload(w("g").in("A").gang(8, 8).runs("1h").minRuntime("1h").at("2h"))
                .run("allocation");
        // then A's one-node gang preempts exactly the two jobs sharing one node
        assertThat(run.story()).filteredOn(l -> l.startsWith("2h ")).containsExactly(
                "2h preempt b1 by g fair_share requeued lost=0s",
                "2h preempt b2 by g fair_share requeued lost=0s",
                "2h start g on n1:8");
    }

    @Test
    void aReservationKeepsAStreamOfSmallJobsFromStarvingALargeGang() {
        // given two nodes kept busy by 1-hour protected single-GPU jobs of B, arriving every 30 minutes
        java.util.List<dev.allot.sim.ScenarioBuilder.W> small = new java.util.ArrayList<>();
        for (int i = 0; i < 48; i++) {
            small.add(w(String.format("b%02d", i)).in("B").gpus(4).runs("1h").minRuntime("1h").at(i * 30 + "m"));
        }
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workloads(small)
                // when A, under-served, wants both nodes as one gang
                .workload(w("gang").in("A").gang(16, 8).runs("2h").minRuntime("2h").at("45m"))
                .run("allocation");
        // then it starts within two hours (once the jobs already running pass their minimum runtime),
        // rather than waiting for a moment when the stream happens to leave both nodes empty
        assertThat(run.workload("gang").firstStartSeconds()).isBetween(45 * 60L, 2 * 3600L + 45 * 60L);
    }
}
