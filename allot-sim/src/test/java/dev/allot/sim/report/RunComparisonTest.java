package dev.allot.sim.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.sim.input.InputException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code allot compare} computes, on runs small enough to work out by hand. */
class RunComparisonTest {
    private static WorkloadsCsv.Row row(String policy, String id, double submit, double start, int preemptions,
                                        String state) {
        return new WorkloadsCsv.Row(policy, id, "a", submit, start, start < 0 ? -1 : start + 10,
                start < 0 ? -1 : start - submit, preemptions, state);
    }

    @Test
    void startErrorsAreNearestRankPercentilesOfTheAbsoluteDifferenceOverWorkloadsStartedInBoth() {
        List<WorkloadsCsv.Row> sim = new ArrayList<>();
        List<WorkloadsCsv.Row> live = new ArrayList<>();
        // ten workloads submitted at 0, started at i in the simulator and i + (i / 10) late (one early) live
        for (int i = 1; i <= 10; i++) {
            sim.add(row("allocation", "w" + i, 0, i, 0, "completed"));
            live.add(row("live", "w" + i, 0, i == 10 ? i - 2.0 : i + i / 10.0, 0, "completed"));
        }
        sim.add(row("allocation", "never", 0, -1, 0, "pending"));
        live.add(row("live", "never", 0, 30, 0, "completed"));
        live.add(row("live", "extra", 0, 1, 0, "completed"));
        List<RunComparison.Side> sides = RunComparison.choose("sim.csv", sim, "live.csv", live, null);
        RunComparison.Result r = RunComparison.compare(sides.get(0), sides.get(1));
        assertThat(r.inBoth()).isEqualTo(11);
        assertThat(r.onlyInB()).containsExactly("extra");
        // |errors| 0.1 .. 0.9 and 2.0: median (5th of 10) 0.5, p90 (9th) 0.9, max 2.0; signed median 0.4
        assertThat(r.absoluteStartError().count()).isEqualTo(10);
        assertThat(r.absoluteStartError().p50Seconds()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.absoluteStartError().p90Seconds()).isCloseTo(0.9, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.absoluteStartError().maxSeconds()).isEqualTo(2.0);
        assertThat(r.medianSignedStartErrorSeconds()).isCloseTo(0.4, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.waitsA().count()).isEqualTo(10);
        assertThat(r.waitsB().count()).isEqualTo(11);
        assertThat(r.waitsB().maxSeconds()).isEqualTo(30);
        assertThat(r.stateDifferences()).containsExactly(new RunComparison.StateDifference("never", "pending",
                "completed"));
        String text = RunComparison.render(r);
        assertThat(text).contains("|error| median 0.50 s, p90 0.90 s, max 2.00 s (signed median +0.40 s)")
                .contains("only in B: extra").contains("final states differ for 1 workload:")
                .containsPattern("  never +pending +completed");
    }

    @Test
    void preemptionsAreCountedPerRunAndWorkloadsWithDifferentCountsAreCounted() {
        List<WorkloadsCsv.Row> a = List.of(row("p", "x", 0, 1, 2, "completed"), row("p", "y", 0, 1, 0, "preempted"));
        List<WorkloadsCsv.Row> b = List.of(row("q", "x", 0, 1, 1, "completed"), row("q", "y", 0, 1, 0, "preempted"));
        RunComparison.Result r = RunComparison.compare(new RunComparison.Side("a", "p", a),
                new RunComparison.Side("b", "q", b));
        assertThat(r.preemptionsA()).isEqualTo(2);
        assertThat(r.preemptionsB()).isEqualTo(1);
        assertThat(r.differentPreemptionCounts()).isEqualTo(1);
        assertThat(r.stateDifferences()).isEmpty();
        assertThat(RunComparison.render(r)).contains("final states: the same for every workload in both (completed 1,"
                + " preempted 1)").contains("1 workload was preempted a different number of times");
    }

    @Test
    void aFileOfSeveralPoliciesGivesThePolicyTheOtherHoldsAloneOrTheOneAskedFor() {
        List<WorkloadsCsv.Row> sim = List.of(row("allocation", "x", 0, 1, 0, "completed"),
                row("legacy", "x", 0, 5, 0, "completed"));
        List<WorkloadsCsv.Row> live = List.of(row("allocation", "x", 0, 1.5, 0, "completed"));
        assertThat(RunComparison.choose("sim.csv", sim, "live.csv", live, null).get(0).rows())
                .extracting(WorkloadsCsv.Row::policy).containsExactly("allocation");
        assertThat(RunComparison.choose("sim.csv", sim, "live.csv", live, "legacy").get(0).rows())
                .extracting(WorkloadsCsv.Row::firstStartSeconds).containsExactly(5.0);
        assertThatThrownBy(() -> RunComparison.choose("sim.csv", sim, "sim2.csv", sim, null))
                .isInstanceOf(InputException.class)
                .hasMessage("sim.csv: field 'policy': holds the rows of policies allocation, legacy; choose one with"
                        + " --policy NAME");
        assertThatThrownBy(() -> RunComparison.choose("sim.csv", sim, "live.csv", live, "kueue"))
                .hasMessage("sim.csv: field 'policy': holds the rows of policies allocation, legacy, not 'kueue';"
                        + " choose one with --policy NAME");
        assertThatThrownBy(() -> RunComparison.choose("sim.csv", sim, "empty.csv", List.of(), null))
                .hasMessageStartingWith("empty.csv: no workload rows");
        RunComparison.Side other = new RunComparison.Side("other.csv", "p", List.of(row("p", "z", 0, 1, 0, "completed")));
        assertThatThrownBy(() -> RunComparison.compare(new RunComparison.Side("live.csv", "p", live), other))
                .hasMessage("other.csv: field 'id': no workload id is also in live.csv; expected two runs of the same"
                        + " workloads (e.g. the first ids: x and z)");
    }

    @Test
    void givenAPolicyNeitherFileHolds_whenCompared_thenItIsRefusedInsteadOfComparingTheOnlyPolicyOfEach() {
        // 'allot compare sim.csv live.csv --policy kueue' of two allocation runs compared them as if the option had
        // not been given
        List<WorkloadsCsv.Row> sim = List.of(row("allocation", "x", 0, 1, 0, "completed"));
        List<WorkloadsCsv.Row> live = List.of(row("allocation", "x", 0, 1.5, 0, "completed"));
        assertThatThrownBy(() -> RunComparison.choose("sim.csv", sim, "live.csv", live, "kueue"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--policy 'kueue': neither file holds its rows (sim.csv: allocation; live.csv: allocation);"
                        + " name a policy one of them holds, or leave --policy out");
        assertThat(RunComparison.choose("sim.csv", sim, "live.csv", live, "allocation").get(1).policy())
                .isEqualTo("allocation");
    }
    @Test
    void longErrorsAndWaitsReadAsDurationsAndTheWaitsHeaderSaysEachRunCountsItsOwnStarts() {
        // it printed "max 33724.00 s" and headed both columns "waits of the workloads in both that started" over
        // counts that differed (A 1, B 2): each column is over the workloads that started in its own run
        List<WorkloadsCsv.Row> a = List.of(row("p", "x", 0, 0.25, 0, "completed"), row("p", "y", 0, -1, 0, "pending"));
        List<WorkloadsCsv.Row> b = List.of(row("q", "x", 0, 33724.25, 0, "completed"),
                row("q", "y", 0, 90, 0, "completed"));
        RunComparison.Result r = RunComparison.compare(new RunComparison.Side("a.csv", "p", a),
                new RunComparison.Side("b.csv", "q", b));
        assertThat(RunComparison.render(r)).contains("""
                start time, B minus A, over 1 workloads started in both: |error| median 9h22m4s, p90 9h22m4s, max \
                9h22m4s (signed median +9h22m4s)
                waits of the workloads in both files, each run over those that started in it:
                                 A        B
                started          1        2
                p50          0.3 s    1m30s
                p90          0.3 s  9h22m4s
                p99          0.3 s  9h22m4s
                max          0.3 s  9h22m4s
                preemptions      0        0
                """);
    }
}
