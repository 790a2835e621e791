package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepCommandTest {
    @TempDir
    Path tmp;

    @Test
    void sweepsTheCrossProductAndWritesTheTableAndCsv() throws IOException {
        Path csv = tmp.resolve("s.csv");
        Cli.Result r = Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation,legacy", "--set", "max-min-runtime=2h,8h",
                "--set", "lookback=1d,3d", "--csv", csv.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("8 runs (4 settings x 2 policies x 1 scenarios)", "max-min-runtime", "wait_p90_debug");
        assertThat(Files.readAllLines(csv)).hasSize(9);
    }

    @Test
    void withPaidBoundTheTableAndCsvAddTheBoundColumnsAndThePaidAtInstantsNeverExceedsIt() throws IOException {
        Path csv = tmp.resolve("b.csv");
        Cli.Result r = Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation,kueue", "--paid-bound", "--csv", csv.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("paid_instants", "paid_bound");
        java.util.List<String> lines = Files.readAllLines(csv);
        java.util.List<String> head = java.util.List.of(lines.get(0).split(","));
        int paid = head.indexOf("paid_instants");
        int bound = head.indexOf("paid_bound");
        assertThat(paid).isPositive();
        assertThat(bound).isEqualTo(paid + 1);
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",");
            assertThat(Double.parseDouble(cells[paid])).as(line).isLessThanOrEqualTo(Double.parseDouble(cells[bound]));
            assertThat(Double.parseDouble(cells[bound])).as(line).isBetween(0.0, 1.0);
        }
        assertThat(Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation").out()).doesNotContain("paid_bound");
    }

    @Test
    void badOptionsAreBadInput() {
        assertThat(Cli.run("sweep", Cli.example("tiny"), "--set", "lookback").exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(Cli.run("sweep", Cli.example("tiny"), "--seeds", "3").err()).contains("use it with --preset");
        assertThat(Cli.run("sweep").err()).contains("give either a scenario folder DIR or --preset NAME");
        assertThat(Cli.run("sweep", "--preset", "huge").err()).contains("valid presets: lab, big");
    }
}
