package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
}
