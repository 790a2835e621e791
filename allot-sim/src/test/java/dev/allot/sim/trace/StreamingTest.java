package dev.allot.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A million-row trace imports without building a workload object per row: the table holds columns, and a
 * workload is built only when asked for. Also imports the real Philly trace when the shared copy is there.
 */
class StreamingTest {
    private static final int ROWS = 1_000_000;
    private static final long BASE = Instant.parse("2017-09-01T00:00:00Z").getEpochSecond();
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    @TempDir
    Path tmp;

    @Test
    void aMillionRowTraceImportsWithoutAWorkloadObjectPerRow() throws IOException {
        Path file = tmp.resolve("million.csv");
        Random random = new Random(42);
        long minSubmit = Long.MAX_VALUE;
        long maxSubmit = -1;
        int minLine = 0;
        int maxLine = 0;
        int[] gpus = {1, 1, 1, 1, 2, 4, 8};
        int firstGpus = 0;
        int lastGpus = 0;
        String lastCluster = null;
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("timestamp,duration,num_gpus,gpu_time,cluster\n");
            for (int i = 0; i < ROWS; i++) {
                int line = i + 2;
                long submit = BASE + random.nextInt(60 * 86_400); // not in submission order, with ties
                int g = gpus[random.nextInt(gpus.length)];
                String cluster = "vc" + random.nextInt(15);
                w.write(UTC.format(Instant.ofEpochSecond(submit)));
                w.write(',');
                w.write(Integer.toString(1 + line % 100_000));
                w.write(".0,");
                w.write(Integer.toString(g));
                w.write(",0,");
                w.write(cluster);
                w.write('\n');
                if (submit < minSubmit) { // the earliest row, first line among ties
                    minSubmit = submit;
                    minLine = line;
                    firstGpus = g;
                }
                if (submit >= maxSubmit) { // the latest row, last line among ties
                    maxSubmit = submit;
                    maxLine = line;
                    lastGpus = g;
                    lastCluster = cluster;
                }
            }
        }

        long t0 = System.nanoTime();
        Scenario s = Traces.of("philly", file).cluster(TraceImport.uniformCluster(40, 8)).read();
        long millis = (System.nanoTime() - t0) / 1_000_000;
        WorkloadTable t = (WorkloadTable) s.workloads();
        System.out.printf("imported %,d rows in %,d ms%n", t.size(), millis);

        assertThat(t.size()).isEqualTo(ROWS);
        assertThat(t.created()).as("workloads built by the import").isZero();
        assertThat(s.tree().leafCount()).isEqualTo(15);
        assertThat(t.created()).as("workloads built by the scenario").isZero();

        WorkloadSpec first = t.get(0);
        assertThat(first.id()).isEqualTo(String.format("philly-%07d", minLine));
        assertThat(first.submitSeconds()).isZero();
        assertThat(first.gpus()).isEqualTo(firstGpus);
        assertThat(first.duration()).isEqualTo(Duration.ofSeconds(1 + minLine % 100_000));
        WorkloadSpec last = t.get(ROWS - 1);
        assertThat(last.id()).isEqualTo(String.format("philly-%07d", maxLine));
        assertThat(last.submitSeconds()).isEqualTo(maxSubmit - minSubmit);
        assertThat(last.gpus()).isEqualTo(lastGpus);
        assertThat(last.allocation()).isEqualTo(lastCluster);
        assertThat(t.created()).isEqualTo(2);
        int unsorted = -1;
        for (int i = 1; i < ROWS && unsorted < 0; i++) {
            if (t.submitSeconds(i - 1) > t.submitSeconds(i)) {
                unsorted = i;
            }
        }
        assertThat(unsorted).as("first index out of submission order").isEqualTo(-1);
        assertThat(t.created()).isEqualTo(2);
    }

    @Test
    void theSharedPhillyTraceImportsCompletely() {
        Path shared = Path.of("").toAbsolutePath().getParent().resolve("../shared/traces/philly-2017-09-10.csv")
                .normalize();
        assumeTrue(Files.isRegularFile(shared), "no shared Philly trace at " + shared);
        Scenario s = Traces.of("philly", shared).cluster(TraceImport.uniformCluster(40, 8)).read();
        WorkloadTable t = (WorkloadTable) s.workloads();
        assertThat(t.size()).isEqualTo(52_849);
        assertThat(t.summary().rejected()).isZero();
        assertThat(t.created()).isZero();
        Set<String> clusters = new HashSet<>();
        for (int i = 0; i < t.size(); i++) {
            clusters.add(t.allocation(i));
        }
        // The shared README says 15 virtual clusters; the file itself names 12.
        assertThat(clusters).hasSize(12).containsExactlyInAnyOrder(s.tree().leafNames().toArray(String[]::new));
        assertThat(t.summary().timeZeroEpoch()).isEqualTo(Instant.parse("2017-09-04T10:30:41Z").getEpochSecond());
        assertThat(t.submitSeconds(t.size() - 1))
                .isEqualTo(Instant.parse("2017-10-31T23:52:11Z").getEpochSecond() - t.summary().timeZeroEpoch());
    }
}
