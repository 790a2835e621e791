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

    @Test
    void aWordWithAControlCharacterIsPrintedWithoutItAndBashReadsItBack() throws IOException, InterruptedException {
        // 'allot show' printed a command's escape sequences as they were, to the terminal of whoever looked
        assertThat(ShellWords.quote("a\u001b[2Jb\nc")).isEqualTo("$'a\\x1b[2Jb\\nc'");
        for (String word : new String[] {"a\u001b[2Jb\nc", "it's\r\\", "\u009b31m1", "\t\u0000x", "\u001b1f"}) {
            String quoted = ShellWords.quote(word);
            assertThat(quoted.chars().noneMatch(Character::isISOControl)).as(quoted).isTrue();
            if (word.indexOf('\0') >= 0) {
                continue; // no shell word holds a NUL
            }
            Process p = new ProcessBuilder("bash", "-c", "printf '%s|' " + quoted).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).isZero();
            assertThat(out).as(quoted).isEqualTo(word + "|");
        }
    }

    @Test
    void showPrintsACommandWithControlCharactersEscaped() {
        com.fasterxml.jackson.databind.node.ArrayNode command = com.fasterxml.jackson.databind.node.JsonNodeFactory
                .instance.arrayNode().add("echo").add("a\u001b]0;owned\u0007b");
        assertThat(ClientCommand.shellWords(command)).isEqualTo("echo $'a\\x1b]0;owned\\x07b'");
    }

    @Test
    void aFieldPrintedByTheClientHasItsControlCharactersEscaped() {
        com.fasterxml.jackson.databind.node.ObjectNode w = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode().put("kind", "x\u001b[31mRED\nfake-line").put("user", "ana");
        assertThat(ClientCommand.text(w, "kind")).isEqualTo("x\\u001b[31mRED\\nfake-line");
        assertThat(ClientCommand.text(w, "user")).isEqualTo("ana");
        assertThat(ClientCommand.text(w, "none")).isEqualTo("-");
    }
}
