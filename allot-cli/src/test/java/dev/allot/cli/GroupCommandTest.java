package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The groups of subcommands alone print their usage; given words without a subcommand, they name what they need. */
class GroupCommandTest {

    private static final Map<String, String> EXAMPLES =
            Map.of("user", "list", "token", "list", "brakes", "show", "budget", "show");

    @Test
    void givenAGroupAlone_whenRun_thenItPrintsItsUsageAndSucceeds() {
        EXAMPLES.forEach((group, example) -> {
            Cli.Result r = Cli.run(group);
            assertThat(r.exit()).as(group).isZero();
            assertThat(r.out()).as(group).contains("Usage: allot " + group + " ").contains("\n  " + example + " ");
            assertThat(r.err()).as(group).isEmpty();
        });
    }

    @Test
    void givenAGroupWithWordsButNoSubcommand_whenRun_thenItNamesTheGroupAndAnExampleAndNeverEchoesTheWords() {
        EXAMPLES.forEach((group, example) -> {
            Cli.Result r = Cli.run(group, "--server", "http://127.0.0.1:9", "--token", "sk-secret");
            assertThat(r.exit()).as(group).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).as(group).startsWith("allot: 'allot " + group + "' needs a subcommand before its"
                    + " options, e.g. 'allot " + group + " " + example + " --server URL'\n")
                    .contains("Usage: allot " + group + " ")
                    .doesNotContain("sk-secret");
        });
    }
}
