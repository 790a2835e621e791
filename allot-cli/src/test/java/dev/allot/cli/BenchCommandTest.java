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
}
