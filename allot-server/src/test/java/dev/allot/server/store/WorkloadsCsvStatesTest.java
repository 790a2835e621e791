package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.report.WorkloadsCsv;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@code allot replay} writes each live workload's state into the workloads CSV that {@code compare} reads, and the
 * reader accepts only {@link WorkloadsCsv#FINAL_STATES}: a state the service gains must be added there, or a replay's
 * own file would be refused.
 */
class WorkloadsCsvStatesTest {
    @Test
    void everyStateAServiceWorkloadCanBeInIsOneTheWorkloadsCsvAccepts() {
        assertThat(WorkloadsCsv.FINAL_STATES).containsAll(Arrays.stream(WorkloadState.values())
                .map(WorkloadState::label).toList());
    }
}
