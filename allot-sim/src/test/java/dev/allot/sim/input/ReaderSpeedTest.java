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
 * A 100,000-row workloads file must read in well under a couple of seconds. The bound is loose because the test
 * machine is shared; the time is printed so that regressions show up before the bound trips.
 */
class ReaderSpeedTest {
    private static final int ROWS = 100_000;
    private static final long CSV_BOUND_MILLIS = 2_000;
    /** JSON lines cost a parser per line, and are the less common format: a looser bound. */
    private static final long JSONL_BOUND_MILLIS = 3_000;

    @TempDir
    Path tmp;

    @Test
    void hundredThousandCsvRows() {
        Scenario basic = Folders.read(Folders.copy("basic", tmp));
        List<WorkloadSpec> workloads = ScenarioWriterTest.randomWorkloads(new SplittableRandom(1), ROWS,
                basic.tree().leafNames());
        Path dir = tmp.resolve("big-csv");
        ScenarioWriter.write(dir, ScenarioWriterTest.GROUPS, List.of(), basic.tree(), workloads, PolicyConfig.defaults());

        Folders.read(dir); // warm up the JIT
        long t0 = System.nanoTime();
        Scenario s = Folders.read(dir);
        long millis = (System.nanoTime() - t0) / 1_000_000;

        System.out.println("read " + ROWS + " CSV rows in " + millis + " ms");
        assertThat(s.workloads()).hasSize(ROWS);
        assertThat(millis).isLessThan(CSV_BOUND_MILLIS);
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

        Folders.read(dir);
        long t0 = System.nanoTime();
        Scenario s = Folders.read(dir);
        long millis = (System.nanoTime() - t0) / 1_000_000;

        System.out.println("read " + ROWS + " JSON lines in " + millis + " ms");
        assertThat(s.workloads()).isEqualTo(Scenario.sorted(workloads));
        assertThat(millis).isLessThan(JSONL_BOUND_MILLIS);
    }
}
