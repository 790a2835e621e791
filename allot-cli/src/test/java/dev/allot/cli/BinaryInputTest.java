package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot simulate} given a file that is not text (here 4 KiB of NUL bytes) where workloads or a trace belong:
 * it exits as for bad input, naming the file, the line and what was expected, instead of simulating 0 workloads.
 */
class BinaryInputTest {
    @TempDir
    Path tmp;

    @Test
    void aScenarioWhoseWorkloadsAreNulBytesIsBadInput() throws IOException {
        // given a copy of examples/tiny whose workloads.csv is NUL bytes
        Path dir = Files.createDirectories(tmp.resolve("tiny"));
        for (String f : new String[] {"cluster.yaml", "allocations.yaml"}) {
            Files.copy(Path.of(Cli.example("tiny")).resolve(f), dir.resolve(f));
        }
        Files.write(dir.resolve("workloads.csv"), new byte[4096]);

        Cli.Result r = Cli.run("simulate", dir.toString());

        assertThat(r.exit()).as(r.out()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("workloads.csv:1:1: expected text, got a NUL character");
        assertThat(r.err()).doesNotContain("Exception", "\tat ");
    }

    @Test
    void eachTraceFormatRefusesAFileOfNulBytes() throws IOException {
        Path nul = Files.write(tmp.resolve("nul.txt"), new byte[4096]);
        for (String format : new String[] {"philly", "alibaba-openb", "swf", "tiresias", "native"}) {
            Path file = Files.copy(nul, tmp.resolve(format + (format.equals("native") ? ".csv" : ".trace")));

            Cli.Result r = Cli.run("simulate", "--trace", format + ":" + file, "--nodes", "2x8");

            assertThat(r.exit()).as("%s: %s", format, r.out()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).as(format).contains(file.getFileName() + ":1:1: expected text, got a NUL character");
        }
    }
}
