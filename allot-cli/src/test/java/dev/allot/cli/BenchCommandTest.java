package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code allot bench}'s checks of its options, before anything is measured (ExamplesTest runs a whole bench). */
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
}
