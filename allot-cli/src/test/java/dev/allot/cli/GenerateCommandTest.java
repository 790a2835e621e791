package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code allot generate} says it wrote. */
class GenerateCommandTest {
    @TempDir
    Path tmp;

    /**
     * It printed "22879 workloads {debug=17920, eval=1075, ...}", a Java map's text without thousands separators,
     * where simulate's summary of the same scenario says "22,879 (debug 17,920, eval 1,075, ...)".
     */
    @Test
    void givenAGeneratedScenario_whenGenerateSaysWhatItWrote_thenItCountsTheWorkloadsInSimulatesWords() {
        Path dir = tmp.resolve("lab");
        Cli.Result g = Cli.run("generate", dir.toString(), "--days", "2");
        assertThat(g.exit()).as(g.err()).isZero();
        Cli.Result s = Cli.run("simulate", dir.toString(), "--policy", "allocation");
        assertThat(s.exit()).as(s.err()).isZero();
        Matcher m = Pattern.compile("(?m)^workloads +(.+?); ").matcher(s.out());
        assertThat(m.find()).as(s.out()).isTrue();
        String simulates = m.group(1);
        assertThat(simulates).matches("\\d{1,3}(,\\d{3})* \\((\\w+ \\d{1,3}(,\\d{3})*(, )?)+\\)");
        assertThat(g.out()).endsWith("; workloads " + simulates + "\n")
                .startsWith("wrote " + dir + ": preset lab, seed 42, ")
                .doesNotContain("{").doesNotContain("=");
    }

    /**
     * A folder holding only notes.txt was refused as "not empty; pass --force to overwrite its scenario files", though
     * it had none; with --force, a workloads.jsonl and a policy.yaml the new scenario does not have were deleted
     * without a word (the output said only "wrote ...").
     */
    @Test
    void givenAFolderWithoutScenarioFiles_whenGenerating_thenItIsTakenAndWithForceEachRemovedFileIsNamed()
            throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("t"));
        Files.writeString(dir.resolve("notes.txt"), "mine");
        Cli.Result first = Cli.run("generate", dir.toString(), "--days", "1");
        assertThat(first.exit()).as(first.err()).isZero();
        assertThat(first.out()).startsWith("wrote " + dir + ": ").doesNotContain("removed");
        assertThat(dir.resolve("notes.txt")).hasContent("mine");

        Files.writeString(dir.resolve("workloads.jsonl"), "");
        Cli.Result refused = Cli.run("generate", dir.toString(), "--days", "1");
        assertThat(refused.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(refused.err()).isEqualTo("allot: " + dir + " already holds scenario files (cluster.yaml,"
                + " allocations.yaml, workloads.csv, workloads.jsonl); pass --force to overwrite them\n");

        Files.writeString(dir.resolve("policy.yaml"), "lookback: 3d\n");
        Cli.Result forced = Cli.run("generate", dir.toString(), "--days", "1", "--force");
        assertThat(forced.exit()).as(forced.err()).isZero();
        String[] lines = forced.out().split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).startsWith("wrote " + dir + ": ");
        assertThat(lines[1]).isEqualTo("removed " + dir.resolve("workloads.jsonl") + ": a scenario has one source of"
                + " workloads, here workloads.csv");
        assertThat(lines[2]).isEqualTo("removed " + dir.resolve("policy.yaml") + ": the generated scenario runs on the"
                + " default settings");
        assertThat(dir.resolve("workloads.jsonl")).doesNotExist();
        assertThat(dir.resolve("notes.txt")).hasContent("mine");
    }
}
