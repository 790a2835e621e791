package dev.allot.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import dev.allot.sim.input.InputException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
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
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A million-row trace imports without building a workload object per row: the table holds columns, and a
 * workload is built only when asked for. Also imports the real Philly trace the repository ships, gzip-compressed
 * ({@code examples/traces/philly-2017-09-10.csv.gz}), which a file name ending in {@code .gz} is read as.
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

    /** The Philly trace the repository ships (the tests run in the module folder). */
    static final Path SHIPPED_PHILLY = Path.of("").toAbsolutePath().getParent()
            .resolve("examples/traces/philly-2017-09-10.csv.gz");

    @Test
    void theShippedPhillyTraceImportsCompletely() {
        assertThat(SHIPPED_PHILLY).isRegularFile();
        Scenario s = Traces.of("philly", SHIPPED_PHILLY).cluster(TraceImport.uniformCluster(40, 8)).read();
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

    @Test
    void givenAGzipFile_whenImported_thenItReadsAsThePlainFileDoes() throws IOException {
        String csv = "timestamp,duration,num_gpus,gpu_time,cluster\n"
                + "2017-10-03 10:00:00,3600,2,7200,vc-a\n"
                + "2017-10-03 09:00:00,60.5,1,60.5,vc-b\n";
        Path plain = tmp.resolve("jobs.csv");
        Files.writeString(plain, csv);
        Path gz = tmp.resolve("jobs.csv.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(csv.getBytes(StandardCharsets.UTF_8));
        }
        WorkloadTable a = (WorkloadTable) Traces.of("philly", plain).cluster(TraceImport.uniformCluster(1, 8)).read()
                .workloads();
        WorkloadTable b = (WorkloadTable) Traces.of("philly", gz).cluster(TraceImport.uniformCluster(1, 8)).read()
                .workloads();
        assertThat(b.size()).isEqualTo(a.size()).isEqualTo(2);
        for (int i = 0; i < a.size(); i++) {
            assertThat(b.submitSeconds(i)).isEqualTo(a.submitSeconds(i));
            assertThat(b.allocation(i)).isEqualTo(a.allocation(i));
        }
    }

    @Test
    void givenAFileNamedGzThatIsNotGzip_whenImported_thenTheErrorSaysSoNotAStackOfZipWords() throws IOException {
        Path fake = tmp.resolve("jobs.csv.gz");
        Files.writeString(fake, "timestamp,duration,num_gpus,gpu_time,cluster\n");
        assertThatThrownBy(() -> Traces.of("philly", fake).cluster(TraceImport.uniformCluster(1, 8)).read())
                .isInstanceOf(InputException.class)
                .hasMessageContaining("jobs.csv.gz")
                .hasMessageContaining("expected gzip-compressed text (the name ends in .gz), got bytes that are not gzip");
    }

    @Test
    void givenAGzipFileCutShort_whenImported_thenTheErrorSaysTheDataIsDamaged() throws IOException {
        byte[] whole = Files.readAllBytes(SHIPPED_PHILLY);
        Path cut = tmp.resolve("cut.csv.gz");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length / 2));
        assertThatThrownBy(() -> Traces.of("philly", cut).cluster(TraceImport.uniformCluster(40, 8)).read())
                .isInstanceOf(InputException.class)
                .hasMessageContaining("cut.csv.gz")
                .hasMessageContaining("the gzip-compressed data is damaged or cut short");
    }

    @Test
    void givenAGzipFileCutInItsTrailerOrInItsData_whenImported_thenTheErrorSaysSoInWordsNotTheJdksOrNull()
            throws IOException {
        // a trace whose download stopped 4 bytes short said 'damaged or cut short (null)', and one cut in the
        // middle quoted the JDK: '(Unexpected end of ZLIB input stream)'
        byte[] whole = Files.readAllBytes(SHIPPED_PHILLY);
        for (int keep : new int[] {whole.length - 4, whole.length / 2}) {
            Path cut = tmp.resolve("cut-" + keep + ".csv.gz");
            Files.write(cut, java.util.Arrays.copyOf(whole, keep));
            assertThatThrownBy(() -> Traces.of("philly", cut).cluster(TraceImport.uniformCluster(40, 8)).read())
                    .isInstanceOf(InputException.class)
                    .hasMessage(cut.getFileName() + ": the gzip-compressed data is damaged or cut short: the file ends"
                            + " before its compressed data does, as a download or copy that stopped early does;"
                            + " fetch or compress the file again");
        }
    }

    @Test
    void givenAGzipFileNamedWithoutGz_whenImported_thenTheErrorSaysItIsGzipAndHowToReadIt() throws IOException {
        // it said 'expected UTF-8 text, got a byte sequence that is not UTF-8 (0x8b); the file looks binary or is in
        // another encoding'
        Path gz = tmp.resolve("jobs.csv");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write("timestamp,duration,num_gpus,gpu_time,cluster\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThatThrownBy(() -> Traces.of("philly", gz).cluster(TraceImport.uniformCluster(1, 8)).read())
                .isInstanceOf(InputException.class)
                .hasMessage("jobs.csv: expected UTF-8 text, got gzip-compressed bytes; name the file with .gz at the"
                        + " end (it is then read through gzip) or decompress it");
    }
}
