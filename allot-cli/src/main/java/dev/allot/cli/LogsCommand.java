package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code allot logs ID}: the end of what a workload's attempt wrote ({@code GET /v1/workloads/{id}/output}), its last
 * attempt unless {@code --attempt}. The text is printed as written except for control characters other than newline,
 * carriage return and tab, which are printed as escapes ({@code \u001b}): a manager reading another user's output
 * must not have that output drive their terminal. What was left out is said on standard error.
 */
@Command(name = "logs", mixinStandardHelpOptions = true,
        header = "Print the output (stdout and stderr) of a workload's attempt.",
        description = "Print the end of what a workload's attempt wrote, its last attempt unless --attempt names"
                + " another. Its owner, managers of its allocation or above and administrators may read it. The local"
                + " backend keeps each attempt's output; on Slurm it is on the cluster, and the answer says where.")
final class LogsCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "the workload id, e.g. w-42")
    String id;

    @Option(names = "--attempt", paramLabel = "N", description = "this attempt (1 is the first); default the last")
    Integer attempt;

    @Option(names = "--tail-bytes", paramLabel = "BYTES",
            description = "at most the last BYTES of the output, 1 to 1048576 (default 65536)")
    Integer tailBytes;

    private PrintWriter err;

    @Override
    JsonNode call(ApiClient client) {
        err = spec.commandLine().getErr();
        Map<String, String> query = new LinkedHashMap<>();
        query.put("attempt", attempt == null ? null : attempt.toString());
        query.put("tailBytes", tailBytes == null ? null : tailBytes.toString());
        return client.get("/v1/workloads/" + ApiClient.segment("a workload id", id) + "/output", query);
    }

    @Override
    void render(JsonNode answer, PrintWriter out) {
        if (answer.path("truncated").asBoolean(false) && err != null) {
            err.println("(attempt " + answer.path("attempt").asInt() + " of " + text(answer, "workload") + ": the last "
                    + (answer.path("sizeBytes").asLong() - answer.path("fromByte").asLong()) + " of "
                    + answer.path("sizeBytes").asLong() + " bytes; --tail-bytes shows more)");
            err.flush();
        }
        String text = printable(answer.path("text").asText(""));
        out.print(text);
        if (!text.isEmpty() && !text.endsWith("\n")) {
            out.println();
        }
    }

    /** The text with control characters other than newline, carriage return and tab written as escapes. */
    static String printable(String text) {
        StringBuilder b = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (c == '\n' || c == '\r' || c == '\t' || !(Character.isISOControl(c) || c == 0x2028 || c == 0x2029)) {
                b.appendCodePoint(c);
            } else {
                b.append(String.format("\\u%04x", c));
            }
        });
        return b.toString();
    }
}
