package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.backend.Launch;
import dev.allot.server.store.User;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code allot logs ID}: prints an attempt's output as written, except control characters that would drive the
 * reader's terminal; says on standard error what was left out; and tells plainly why there is none (the server's
 * words: not started yet, or kept elsewhere). The output of a real process is read in allot-server's
 * {@code OutputApiTest}.
 */
class LogsCommandTest {
    static final String X = "lab/nlp/pretrain";

    @RegisterExtension
    static final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("alice", User.Role.USER).user("bob", User.Role.USER)
            .allocation("lab", 1, List.of(), List.of())
            .allocation("lab/nlp", 1, List.of(), List.of())
            .allocation(X, 1, List.of(), List.of("alice", "bob"))
            .node("gpu-01", 8, true, null)
            .build();

    private static String[] rendered(String json) throws Exception {
        LogsCommand c = new LogsCommand();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try (PrintWriter o = new PrintWriter(out); PrintWriter e = new PrintWriter(err)) {
            java.lang.reflect.Field f = LogsCommand.class.getDeclaredField("err");
            f.setAccessible(true);
            f.set(c, e);
            c.render(new ObjectMapper().readTree(json), o);
        }
        return new String[] {out.toString(), err.toString()};
    }

    @Test
    void theOutputIsPrintedAsWrittenWithTerminalControlsEscapedAndWhatWasLeftOutSaid() throws Exception {
        String[] all = rendered("{\"workload\": \"w-1\", \"attempt\": 2, \"sizeBytes\": 30, \"fromByte\": 0,"
                + " \"truncated\": false, \"text\": \"step 1\\rstep 2\\n\\u001b[31mred\\u001b[0m\\tdone\"}");
        assertThat(all[0]).isEqualTo("step 1\rstep 2\n\\u001b[31mred\\u001b[0m\tdone\n");
        assertThat(all[1]).isEmpty();

        String[] tail = rendered("{\"workload\": \"w-1\", \"attempt\": 2, \"sizeBytes\": 5000, \"fromByte\": 4990,"
                + " \"truncated\": true, \"text\": \"last line\\n\"}");
        assertThat(tail[0]).isEqualTo("last line\n");
        assertThat(tail[1]).isEqualTo("(attempt 2 of w-1: the last 10 of 5000 bytes; --tail-bytes shows more)\n");
    }

    @Test
    void noOutputYetOrNoneKeptIsAClearError() {
        Cli.Result submitted = cluster.as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "1h",
                "--", "python", "train.py");
        assertThat(submitted.exit()).as(submitted.err()).isZero();
        String id = submitted.out().split(" ")[1];

        Cli.Result waiting = cluster.as("alice", "logs", id);
        assertThat(waiting.exit()).isNotZero();
        assertThat(waiting.err()).contains(id + " has not started yet").contains("allot explain " + id);

        cluster.store().attempts().beginAttempt(id, List.of(new Launch.NodeGpus("gpu-01", List.of(0))),
                ApiServerExtension.NOW.toEpochMilli());
        Cli.Result none = cluster.as("alice", "logs", id);
        assertThat(none.exit()).isNotZero();
        assertThat(none.err()).contains("the output of " + id + " attempt 1 is not kept by this service")
                .contains("this service has no backend that keeps output");

        Cli.Result other = cluster.as("bob", "logs", id);
        assertThat(other.exit()).isNotZero();
        assertThat(other.err()).contains("user 'bob' may not read the output of workload " + id);
    }
}
