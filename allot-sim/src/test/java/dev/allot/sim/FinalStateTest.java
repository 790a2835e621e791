package dev.allot.sim;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The final state each workload's record (and {@code --workloads-out}) gives when the run stops with work left. */
class FinalStateTest {

    @Test
    void givenTheRunStopsWhileOneRunsAndOneWaits_thenTheyAreRunningAndPending() {
        // one GPU: 'long' runs far past the guard (maxOvertimeSeconds, 1h here), 'next' waits behind it
        Scenario s = given().nodes(1, 1).allocations(t -> t.leaf("A", 1))
                .workload(w("long").in("A").gpus(1).runs("30d").minRuntime("8h").at("0s"))
                .workload(w("next").in("A").gpus(1).runs("1h").minRuntime("1h").at("0s"))
                .scenario();
        SimulationResult r = new Simulator(s, PolicyRegistry.standard(), "legacy",
                new Simulator.Options(false, SimulationListener.NONE, 3600, null)).run();
        Map<String, String> states = r.workloads().stream()
                .collect(Collectors.toMap(WorkloadRecord::id, WorkloadRecord::finalState));

        assertThat(states.get("long")).as("it said 'pending' of work that had started and was running")
                .isEqualTo("running");
        assertThat(states.get("next")).isEqualTo("pending");
    }
}
