package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code allot bench}: the checks of its options, before anything is measured, and the shape of its table. */
class BenchCommandTest {
    @Test
    void aPolicyNamedTwiceIsRefusedBeforeAnythingRuns() {
        Cli.Result r = Cli.run("bench", "--scenario", Cli.example("tiny"), "--policy", "legacy,allocation,legacy",
                "--warmup", "0", "--rounds", "1");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --policy names 'legacy' twice; each policy runs once, e.g. --policy"
                + " allocation,legacy\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void anUnknownPolicyIsRefusedBeforeAnythingRuns() {
        Cli.Result r = Cli.run("bench", "--scenario", Cli.example("tiny"), "--policy", "allocation,nope");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: unknown policy 'nope'; valid policies: ");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void zeroRoundsOrNegativeWarmupIsRefusedNamingTheOptionBeforeAnythingRuns() {
        Cli.Result r = Cli.run("bench", "--scenario", Cli.example("tiny"), "--rounds", "0");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --rounds expects a whole number >= 1 (timed rounds), got 0\n");
        assertThat(r.out()).isEmpty();

        r = Cli.run("bench", "--scenario", Cli.example("tiny"), "--warmup", "-1");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --warmup expects a whole number >= 0 (untimed rounds), got -1\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void givenTraceOnlyOptionsWithoutATrace_whenBenched_thenTheyAreRefusedNamingThemBeforeAnythingRuns() {
        // '--nodes 4x8' without --trace was ignored: the default presets, lab and big, ran for minutes instead
        Cli.Result r = Cli.run("bench", "--scenario", Cli.example("tiny"), "--nodes", "4x8", "--contract",
                "min-runtime=2h", "--warmup", "0", "--rounds", "1");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --nodes, --contract only apply with --trace; a preset makes its own"
                + " cluster and allocations, a --scenario folder gives them in its files\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void givenASeedWithOnlyAScenarioFolder_whenBenched_thenItIsRefusedBeforeAnythingRuns() {
        // '--scenario DIR --seed 7' ran the folder as if the seed had not been given
        Cli.Result r = Cli.run("bench", "--scenario", Cli.example("tiny"), "--seed", "7", "--warmup", "0", "--rounds",
                "1");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --seed chooses a generated scenario's seed: give it with --preset\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void anUnknownPresetIsRefusedBeforeTheHeader() {
        Cli.Result r = Cli.run("bench", "--preset", "lab,nope", "--rounds", "1");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: unknown generator preset 'nope'; valid presets: lab, big\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aMissingScenarioFolderIsRefusedBeforeTheHeader() {
        Cli.Result r = Cli.run("bench", "--scenario", "/nonexistent/scenario", "--rounds", "1");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --scenario /nonexistent/scenario: no such folder; expected a scenario"
                + " folder (cluster.yaml, allocations.yaml, workloads.csv), such as examples/tiny\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aTraceThatDoesNotImportIsRefusedBeforeTheHeader(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        // given a trace file that is not a Philly trace
        java.nio.file.Path bad = java.nio.file.Files.writeString(dir.resolve("bad.csv"), "not,a,trace\n1,2,3\n");

        // when benched, then the error is the whole answer: it came after the JVM line and the table's header
        Cli.Result r = Cli.run("bench", "--trace", "philly:" + bad, "--nodes", "4x8", "--warmup", "0", "--rounds", "1");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: ").contains("bad.csv");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void givenTwoScenarios_whenBenched_thenTheTableIsHeaderAndRowsOnlyAndTheReadTimesFollowIt() {
        // "examples/tiny  read in 0.13 s" stood between the header and the rows, and between two scenarios' rows
        String tiny = Cli.example("tiny");
        Cli.Result r = Cli.run("bench", "--scenario", tiny, "--scenario", tiny, "--policy", "allocation,legacy",
                "--warmup", "0", "--rounds", "1");
        assertThat(r.exit()).as(r.err()).isZero();
        java.util.List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(2 + 4 + 1 + 2);
        assertThat(lines.get(0)).startsWith("java ");
        assertThat(lines.get(1)).startsWith("scenario ").endsWith("cpu s");
        for (int i = 2; i < 6; i++) {
            assertThat(lines.get(i)).as("row %d", i).matches("tiny +(allocation|legacy) +12 +.*");
        }
        assertThat(lines.get(6)).isEmpty();
        assertThat(lines.get(7)).matches(java.util.regex.Pattern.quote(tiny) + " +read in \\d+\\.\\d\\d s");
        assertThat(lines.get(8)).matches(java.util.regex.Pattern.quote(tiny) + " +read in \\d+\\.\\d\\d s");
    }
}
