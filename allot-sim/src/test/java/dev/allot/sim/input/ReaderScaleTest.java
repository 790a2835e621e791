package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Durations;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 100,000-row workloads file reads back exactly, in both formats. Reading speed is measured by
 * {@code allot bench}, not asserted here.
 */
class ReaderScaleTest {
    private static final int ROWS = 100_000;

    @TempDir
    Path tmp;

    @Test
    void hundredThousandCsvRows() {
        Scenario basic = Folders.read(Folders.copy("basic", tmp));
        List<WorkloadSpec> workloads = ScenarioWriterTest.randomWorkloads(new SplittableRandom(1), ROWS,
                basic.tree().leafNames());
        Path dir = tmp.resolve("big-csv");
        ScenarioWriter.write(dir, ScenarioWriterTest.GROUPS, List.of(), basic.tree(), workloads, PolicyConfig.defaults());

        Scenario s = Folders.read(dir);
        assertThat(s.workloads()).isEqualTo(Scenario.sorted(workloads));
    }

    @Test
    void hundredThousandJsonLines() {
        Scenario basic = Folders.read(Folders.copy("basic", tmp));
        List<WorkloadSpec> workloads = ScenarioWriterTest.randomWorkloads(new SplittableRandom(2), ROWS,
                basic.tree().leafNames());
        Path dir = Folders.copy("jsonl", tmp);
        StringBuilder sb = new StringBuilder();
        for (WorkloadSpec w : workloads) {
            sb.append("{\"id\": \"").append(w.id()).append("\", \"submit\": ").append(w.submitSeconds())
                    .append(", \"allocation\": \"").append(w.allocation()).append("\", \"user\": \"").append(w.user())
                    .append("\", \"gpus\": ").append(w.gpus()).append(", \"gpus_per_node\": ").append(w.gpusPerNode())
                    .append(", \"duration\": \"").append(Durations.format(w.duration()))
                    .append("\", \"min_runtime\": ").append(w.minRuntime().getSeconds())
                    .append(", \"resumable\": ").append(w.resumable())
                    .append(", \"priority\": \"").append(w.priority().label())
                    .append("\", \"checkpoint_every\": ")
                    .append(w.checkpointEvery() == null ? "null" : "\"" + Durations.format(w.checkpointEvery()) + "\"")
                    .append(", \"kind\": \"").append(w.kind()).append("\"}\n");
        }
        Folders.write(dir, "workloads.jsonl", sb.toString());

        Scenario s = Folders.read(dir);
        assertThat(s.workloads()).isEqualTo(Scenario.sorted(workloads));
    }
}
