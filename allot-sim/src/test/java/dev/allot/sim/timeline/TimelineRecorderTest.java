package dev.allot.sim.timeline;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimelineRecorderTest {
    private static GpuTimeline record(Scenario s, String policy) {
        TimelineRecorder recorder = new TimelineRecorder();
        SimulationResult r = new Simulator(s, PolicyRegistry.standard(), policy,
                Simulator.Options.defaults().withCheck(true).withListener(recorder)).run();
        return recorder.finish(r.run().endSeconds());
    }

    private static List<String> bars(GpuTimeline t) {
        List<String> out = new ArrayList<>();
        for (int b = 0; b < t.size(); b++) {
            out.add(t.workloadId(b) + " n" + t.node(b) + "/" + t.lane(b) + " " + t.startSeconds(b) + "-"
                    + t.endSeconds(b) + " " + t.end(b)
                    + (t.preemptibleFromSeconds(b) == Long.MAX_VALUE ? "" : " preemptible@" + t.preemptibleFromSeconds(b)));
        }
        return out;
    }

    @Test
    void givenTwoNodesOfFourAWholeNodeGangTakesTheLanesOfTheUnallocatedRunItPreempted() {
        // a1 (A, 2 GPUs) runs on lanes 0-1 of n0 and u1 (unallocated) on all of n1; at 10m B's whole-node gang b1
        // preempts u1 and takes the same four lanes. Bars come in the order runs end; each says from when its run
        // was preemptible (at once when unallocated, after the minimum runtime otherwise)
        Scenario s = given().nodes(2, 4)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(2).runs("2h").minRuntime("1h").at("0s"))
                .workload(w("u1").in("B").unallocated().gpus(4).runs("5h").at("0s"))
                .workload(w("b1").in("B").gang(4, 4).runs("1h").minRuntime("30m").at("10m"))
                .scenario();
        GpuTimeline t = record(s, "allocation");
        assertThat(t.gpuCount()).isEqualTo(8);
        assertThat(bars(t)).containsExactly(
                "u1 n1/0 0-600 PREEMPTED preemptible@0",
                "u1 n1/1 0-600 PREEMPTED preemptible@0",
                "u1 n1/2 0-600 PREEMPTED preemptible@0",
                "u1 n1/3 0-600 PREEMPTED preemptible@0",
                "b1 n1/0 600-4200 COMPLETED preemptible@2400",
                "b1 n1/1 600-4200 COMPLETED preemptible@2400",
                "b1 n1/2 600-4200 COMPLETED preemptible@2400",
                "b1 n1/3 600-4200 COMPLETED preemptible@2400",
                "a1 n0/0 0-7200 COMPLETED preemptible@3600",
                "a1 n0/1 0-7200 COMPLETED preemptible@3600");
    }

    @Test
    void onTheLabNoGpuLaneIsEverHeldTwiceAndBarsAddUpToEveryRun() {
        Scenario s = ScenarioGenerator.generate(GeneratorSpec.preset("lab").withDays(3), 7).toScenario("lab-3d");
        for (String policy : List.of("allocation", "kueue")) {
            GpuTimeline t = record(s, policy);
            // per GPU row, bars sorted by start never overlap
            List<List<long[]>> rows = new ArrayList<>();
            for (int r = 0; r < t.gpuCount(); r++) {
                rows.add(new ArrayList<>());
            }
            for (int b = 0; b < t.size(); b++) {
                assertThat(t.endSeconds(b)).isGreaterThanOrEqualTo(t.startSeconds(b));
                rows.get(t.gpuRow(b)).add(new long[] {t.startSeconds(b), t.endSeconds(b)});
            }
            for (List<long[]> row : rows) {
                row.sort((x, y) -> Long.compare(x[0], y[0]) != 0 ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
                for (int i = 1; i < row.size(); i++) {
                    assertThat(row.get(i)[0]).as(policy).isGreaterThanOrEqualTo(row.get(i - 1)[1]);
                }
            }
            assertThat(t.size()).as(policy).isGreaterThan(1000);
        }
    }

    @Test
    void anUnhealthyNodeIsShadedFromItsFailureAndDrainedFromWhenItsLastRunLeftUntilItIsRepaired() {
        // n1 fails at 1h while a1 is inside its 2h minimum runtime: a1 leaves at 2h (drained), n1 is back at 5h
        Scenario s = given().nodes(2, 4)
                .allocations(t -> t.leaf("A", 100))
                .workload(w("a1").in("A").gang(4, 4).runs("10h").minRuntime("2h").resumable().at("0s"))
                .workload(w("a2").in("A").gang(4, 4).runs("10h").minRuntime("2h").at("0s"))
                .unhealthy("n2", "1h")
                .healthy("n2", "5h")
                .scenario();
        GpuTimeline t = record(s, "allocation");
        assertThat(t.nodePeriods()).containsExactly(
                new GpuTimeline.NodePeriod(1, GpuTimeline.NodeState.DRAINED, 7200, 18000),
                new GpuTimeline.NodePeriod(1, GpuTimeline.NodeState.UNHEALTHY, 3600, 18000));
        // drained the second its protection ended: never preemptible while it ran, so nothing of its bar is hatched
        assertThat(bars(t)).contains("a2 n1/0 0-7200 PREEMPTED");
    }
}
