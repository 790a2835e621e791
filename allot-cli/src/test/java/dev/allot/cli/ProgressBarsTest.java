package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import me.tongfei.progressbar.ProgressBar;
import org.junit.jupiter.api.Test;

/** The sweep's progress on standard error: redrawn in place on a terminal, whole lines in a log. */
class ProgressBarsTest {

    private static String run(boolean interactive) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (ProgressBar bar = ProgressBars.open("sweep", 5, interactive, err)) {
            for (int i = 0; i < 5; i++) {
                bar.step();
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void givenNoTerminal_whenASweepRuns_thenItsProgressIsWholeLinesWithoutCarriageReturnsEndingAtTheTotal() {
        // in a log (CI, '2> file') a second's worth of bars ran together on one line, joined by carriage returns
        String log = run(false);

        assertThat(log).doesNotContain("\r").endsWith("\n");
        List<String> lines = log.lines().toList();
        assertThat(lines).allSatisfy(l -> assertThat(l).startsWith("sweep"));
        assertThat(lines.get(lines.size() - 1)).contains("5/5");
        assertThat(lines).as("the last state once").doesNotHaveDuplicates();
    }

    @Test
    void givenNoTerminal_whenASweepRuns_thenItsProgressIsPlainLinesWithNoBarDrawnAndNoneBeforeTheFirstStep() {
        // in a log it wrote "sweep   0% [                  ] 0/5 (0:00:00 / ?)": a terminal's drawing, from the start
        assertThat(run(false)).matches("sweep: 5/5 done \\(100%\\), \\d+s elapsed\n");
    }

    @Test
    void givenATerminal_whenASweepRuns_thenTheBarIsRedrawnInPlace() {
        assertThat(run(true)).contains("\r").contains("5/5");
    }
}
