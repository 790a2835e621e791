package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

class SweepCommandTest {
    @TempDir
    Path tmp;

    @Test
    void sweepsTheCrossProductAndWritesTheTableAndCsv() throws IOException {
        Path csv = tmp.resolve("s.csv");
        Cli.Result r = Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation,legacy", "--set", "max-min-runtime=2h,8h",
                "--set", "lookback=1d,3d", "--csv", csv.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("8 runs (4 settings x 2 policies x 1 scenario)", "max-min-runtime", "wait_p90_debug");
        assertThat(Files.readAllLines(csv)).hasSize(9);
    }

    @Test
    void withPaidBoundTheTableAndCsvAddTheBoundColumnsAndThePaidAtInstantsNeverExceedsIt() throws IOException {
        Path csv = tmp.resolve("b.csv");
        Cli.Result r = Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation,kueue", "--paid-bound", "--csv", csv.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("paid_instants", "paid_bound", "worst_instants", "paid_bound_worst95")
                .as("it said '1 settings x ... x 1 scenarios'").contains("2 runs (1 setting x 2 policies x 1 scenario)");
        java.util.List<String> lines = Files.readAllLines(csv);
        java.util.List<String> head = java.util.List.of(lines.get(0).split(","));
        int paid = head.indexOf("paid_instants");
        int bound = head.indexOf("paid_bound");
        assertThat(paid).isPositive();
        assertThat(bound).isEqualTo(paid + 1);
        int worst = head.indexOf("worst_instants");
        int fair = head.indexOf("paid_bound_worst95");
        assertThat(fair).isEqualTo(worst + 1).isEqualTo(bound + 2);
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            assertThat(Double.parseDouble(cells[paid])).as(line).isLessThanOrEqualTo(Double.parseDouble(cells[bound]));
            assertThat(Double.parseDouble(cells[bound])).as(line).isBetween(0.0, 1.0);
            assertThat(Double.parseDouble(cells[worst])).as(line).isBetween(0.0, 1.0);
            if (!cells[fair].isEmpty()) { // empty: no schedule pays every allocation 95%
                assertThat(Double.parseDouble(cells[fair])).as("paying everyone 95%% never pays more: " + line)
                        .isLessThanOrEqualTo(Double.parseDouble(cells[bound]));
            }
        }
        assertThat(Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation").out()).doesNotContain("paid_bound");
    }

    /**
     * A bad value anywhere in the grid, or an unknown policy, fails before the progress bar (printed on System.err,
     * captured here) appears, with the text simulate gives for the same setting.
     */
    @Test
    @ResourceLock(Resources.SYSTEM_ERR)
    void badSettingValuesAndPoliciesFailBeforeTheProgressBarWithSimulatesText() {
        String simulate = Cli.run("simulate", Cli.example("tiny"), "--set", "lookback=nope").err();
        assertThat(simulate).startsWith("allot: setting 'lookback': malformed duration 'nope'");
        String[][] cases = {
                {Cli.example("tiny"), "--set", "lookback=1d,nope", "--set", "max-min-runtime=2h,8h"},
                {"--preset", "big", "--seeds", "3", "--set", "lookback=1d,nope"}};
        for (String[] args : cases) {
            Bar bar = capture(() -> Cli.run(concat("sweep", args)));
            assertThat(bar.result().exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(bar.result().err()).isEqualTo(simulate);
            assertThat(bar.result().out()).isEmpty();
            assertThat(bar.systemErr()).as(String.join(" ", args)).isEmpty();
        }
        Bar policy = capture(() -> Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation,nope"));
        assertThat(policy.result().err()).isEqualTo(Cli.run("simulate", Cli.example("tiny"), "--policy",
                "allocation,nope").err()).contains("unknown policy 'nope'");
        assertThat(policy.systemErr()).isEmpty();
        Bar setting = capture(() -> Cli.run("sweep", Cli.example("tiny"), "--set", "allocation.nope=1"));
        assertThat(setting.result().err()).isEqualTo(Cli.run("simulate", Cli.example("tiny"), "--set",
                "allocation.nope=1").err()).contains("unknown setting 'nope'");
        assertThat(setting.systemErr()).isEmpty();
    }

    private record Bar(Cli.Result result, String systemErr) {
    }

    private static Bar capture(java.util.function.Supplier<Cli.Result> run) {
        PrintStream saved = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            Cli.Result r = run.get();
            return new Bar(r, bytes.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(saved);
        }
    }

    private static String[] concat(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    @Test
    void lenientSaysWhichRowsItSkippedAsSimulateDoes() throws IOException {
        Path dir = SkippedRowsFixture.tinyWithBadRows(tmp, 1);
        Cli.Result r = Cli.run("sweep", dir.toString(), "--lenient", "--policy", "allocation");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("skipped 1 workload row (--lenient):\n"
                + "  workloads.csv:17:5: field 'gpus': expected a whole number >= 1, got 'many'\n");
    }

    @Test
    void lenientThatSkipsEveryRowIsRefusedAsSimulateRefusesIt() throws IOException {
        Path dir = SkippedRowsFixture.tinyWithOnlyBadRows(tmp, 7);
        Cli.Result r = Cli.run("sweep", dir.toString(), "--lenient", "--policy", "allocation");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo(SkippedRowsFixture.ALL_SEVEN_REJECTED);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aPolicyNamedTwiceIsRefusedAsSimulateRefusesIt() {
        Cli.Result r = Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation, allocation");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --policy names 'allocation' twice; each policy runs once, e.g. --policy"
                + " allocation,legacy\n");
        assertThat(r.err()).isEqualTo(Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation,allocation").err());
        assertThat(r.out()).isEmpty();
    }

    @Test
    void badOptionsAreBadInput() {
        assertThat(Cli.run("sweep", Cli.example("tiny"), "--set", "lookback").exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(Cli.run("sweep", Cli.example("tiny"), "--seeds", "3").err()).contains("use it with --preset");
        assertThat(Cli.run("sweep").err()).contains("give either a scenario folder DIR or --preset NAME");
        assertThat(Cli.run("sweep", "--preset", "huge").err()).contains("valid presets: lab, big");
    }

    @Test
    void givenAPresetAndDays_whenSwept_thenItRunsAndDaysWithoutAPresetIsRefused() throws IOException {
        // sweep had no --days (generate and forecast accuracy have): "Unknown option: '--days'"
        Path csv = tmp.resolve("d.csv");
        Cli.Result r = Cli.run("sweep", "--preset", "lab", "--days", "1", "--policy", "allocation", "--csv", csv.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("1 run (1 setting x 1 policy x 1 scenario)");
        java.util.List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(2);

        Cli.Result folder = Cli.run("sweep", Cli.example("tiny"), "--days", "2");
        assertThat(folder.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(folder.err()).isEqualTo("allot: --days applies to a generated scenario: give it with --preset\n");
        assertThat(Cli.run("sweep", "--preset", "lab", "--days", "0").err())
                .isEqualTo("allot: --days expects a whole number of days >= 1, got 0\n");
    }

    @Test
    void aValueListedTwiceOrThreadsBelowOneIsRefusedBeforeAnythingRuns() {
        // lookback=1d,1d ran twice and printed one row 'runs 2' with a spread of 0, as if over two seeds
        Cli.Result r = Cli.run("sweep", Cli.example("tiny"), "--set", "lookback=1d,3d,1d");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --set lookback lists '1d' twice; each value runs once, e.g. --set"
                + " lookback=1d,3d\n");
        assertThat(r.out()).isEmpty();

        // --threads 0 and -3 ran on one thread without a word
        Cli.Result t = Cli.run("sweep", Cli.example("tiny"), "--threads", "0");
        assertThat(t.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(t.err()).isEqualTo("allot: --threads expects a whole number >= 1, got 0\n");
        assertThat(t.out()).isEmpty();
    }

    @Test
    void givenMoreSeedsThanASweepRuns_whenRun_thenItIsRefusedNamingTheLimitBeforeAnythingRuns() {
        // --seeds 99999999 spent a minute filling the heap and failed 'out of memory'
        Cli.Result r = Cli.run("sweep", "--preset", "lab", "--days", "1", "--seeds", "10001", "--set", "lookback=nope");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --seeds expects at most 10,000 (each seed is a generated scenario"
                + " simulated once per setting and policy), got 10,001\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void givenMoreThreadsThanRuns_thenTheSummarySaysTheThreadsThatRan() {
        // it said '1 run (1 setting x 1 policy x 1 scenario) on 64 threads'
        Cli.Result r = Cli.run("sweep", Cli.example("tiny"), "--threads", "64");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("1 run (1 setting x 1 policy x 1 scenario) on 1 thread\n");
    }
}
