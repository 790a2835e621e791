package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ShellWordsTest {
    @Test
    void aPlainNameIsPrintedAsItIs() {
        assertThat(ShellWords.quote("lab/nlp/eval-2")).isEqualTo("lab/nlp/eval-2");
    }

    @Test
    void aNameWithBlanksQuotesOrDollarsIsOneSingleQuotedWord() {
        assertThat(ShellWords.quote("my team")).isEqualTo("'my team'");
        assertThat(ShellWords.quote("it's $HOME")).isEqualTo("'it'\\''s $HOME'");
    }

    @Test
    void aRealShellReadsEveryQuotedNameBackAsTheOneWordItWas() throws IOException, InterruptedException {
        for (String name : new String[] {"a b", "it's", "$HOME", "x;rm -rf y", "back\\slash", "`id`", "\"q\"", "*"}) {
            Process p = new ProcessBuilder("sh", "-c", "printf '%s|' " + ShellWords.quote(name)).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).isZero();
            assertThat(out).as(name).isEqualTo(name + "|");
        }
    }
}
