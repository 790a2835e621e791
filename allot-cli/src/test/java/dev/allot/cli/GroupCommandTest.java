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

    @Test
    void givenASubcommandOfAGroupWithAWordItDoesNotTake_whenRun_thenItIsRefusedBeforeAnythingIsAsked() {
        // 'budget usage --since 2 hours' showed a 2-second window: the word 'hours' was dropped without a word
        String[][] cases = {
                {"budget", "usage", "--since", "2", "hours"},
                {"budget", "set", "lab/nlp/eval", "extra", "--share", "2"},
                {"policy", "show", "extra"},
                {"brakes", "show", "extra"},
                {"campaign", "list", "extra"},
                {"token", "list", "extra"},
                {"user", "list", "extra"},
        };
        for (String[] c : cases) {
            String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(c),
                    java.util.stream.Stream.of("--server", "http://127.0.0.1:9", "--token", "sk-secret"))
                    .toArray(String[]::new);
            Cli.Result r = Cli.run(args);
            String command = "allot " + c[0] + " " + c[1];
            assertThat(r.exit()).as(command).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).as(command).startsWith("allot: unexpected word ")
                    .contains("'" + (c[0].equals("budget") && c[1].equals("usage") ? "hours" : "extra") + "'")
                    .contains("Try '" + command + " --help' for the options.")
                    .doesNotContain("cannot reach").doesNotContain("sk-secret");
        }
        // a token given as a stray word is masked like any echoed token
        Cli.Result masked = Cli.run("token", "list", "--token", "sk-secret", "sk-secret", "--server",
                "http://127.0.0.1:9");
        assertThat(masked.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(masked.err()).contains("'****'").doesNotContain("sk-secret");
        // and a token given to a misspelt option, which picocli quotes whole, is masked by its shape
        Cli.Result typo = Cli.run("token", "list", "--tokn=allot_oPhXP1GA798IRMAzZs9g8i--1bKRADNenRHLY_Cjd-8");
        assertThat(typo.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(typo.err()).contains("--tokn=****").doesNotContain("oPhXP1GA");
    }
}
