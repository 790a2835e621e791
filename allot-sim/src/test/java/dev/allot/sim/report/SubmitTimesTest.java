package dev.allot.sim.report;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code simulate --submit-times}: each workload is seen at the second the live service saw it. */
class SubmitTimesTest {
    private final Scenario scenario = given().nodes(1, 8).allocations(t -> t.leaf("a", 1))
            .workload(w("x").in("a").at("0s").runs("10s"))
            .workload(w("y").in("a").at("1s").runs("10s"))
            .scenario();

    private static WorkloadsCsv.Row submitted(String id, double at) {
        return new WorkloadsCsv.Row("allocation", id, "a", at, -1, -1, -1, 0, "pending");
    }

    @Test
    void submissionTimesAreRoundedDownToTheSecondAndTheWorkloadsSortedAgain() {
        Scenario late = SubmitTimes.apply(scenario, List.of(submitted("x", 2.04), submitted("y", 1.999)), "live.csv");
        assertThat(late.workloads()).extracting(WorkloadSpec::id, WorkloadSpec::submitSeconds)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("y", 1L), org.assertj.core.groups.Tuple.tuple("x", 2L));
        assertThat(late.workloads().get(1).duration()).isEqualTo(scenario.workloads().get(0).duration());
    }

    @Test
    void aFileOfAnotherScenarioIsRefusedNamingTheWorkloads() {
        assertThatThrownBy(() -> SubmitTimes.apply(scenario, List.of(submitted("x", 0)), "live.csv"))
                .hasMessage("live.csv: field 'id': lacks 1 workload of the scenario: y; expected a run of this"
                        + " scenario");
        assertThatThrownBy(() -> SubmitTimes.apply(scenario, List.of(submitted("x", 0), submitted("y", 1),
                submitted("z", 1)), "live.csv"))
                .hasMessage("live.csv: field 'id': holds 1 workload the scenario does not: z; expected a run of"
                        + " this scenario");
    }
}
