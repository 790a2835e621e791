package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Options named as other tools name them get Allot's name in the refusal (exit 2 all the same). */
class FamiliarOptionsTest {
    @Test
    void serveWithHostIsRefusedAndPointedToBind() {
        Cli.Result r = Cli.run("serve", "--host", "0.0.0.0");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("Unknown options: '--host', '0.0.0.0'")
                .contains("Hint: 'allot serve' calls it --bind, not --host.");
    }

    @Test
    void aClientCommandWithUrlIsPointedToServer() {
        Cli.Result r = Cli.run("queue", "--url=http://127.0.0.1:8080");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("Hint: 'allot queue' calls it --server, not --url.");
    }

    @Test
    void noHintWherePicocliAlreadySuggestsTheOptionOrTheCommandHasNone() {
        Cli.Result suggested = Cli.run("serve", "--data=/tmp/x");
        assertThat(suggested.err()).contains("Possible solutions: --data-dir").doesNotContain("Hint:");
        Cli.Result none = Cli.run("report", "--host", "x"); // report has no --bind
        assertThat(none.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(none.err()).doesNotContain("Hint:");
    }
}
