package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code allot progress ID DONE TOTAL}: reports how far a workload has come, in whatever unit it counts. Meant to be
 * called from the workload itself ({@code allot progress "$ALLOT_WORKLOAD_ID" 1200 10000}).
 */
@Command(name = "progress", mixinStandardHelpOptions = true,
        description = {"Report a workload's progress: DONE units out of TOTAL (steps, samples).",
                "From inside a workload: allot progress \"$ALLOT_WORKLOAD_ID\" 1200 10000"})
final class ProgressCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "the workload, e.g. w-42")
    String id;

    @Parameters(index = "1", paramLabel = "DONE", description = "units done, a whole number >= 0")
    long done;

    @Parameters(index = "2", paramLabel = "TOTAL", description = "units in all, at least DONE")
    long total;

    @Override
    JsonNode call(ApiClient client) {
        ObjectNode body = ApiClient.JSON.createObjectNode();
        body.put("done", done);
        body.put("total", total);
        return client.post("/v1/workloads/" + ApiClient.segment("a workload id", id) + "/progress", body);
    }

    @Override
    void render(JsonNode answer, PrintWriter out) {
        JsonNode p = answer.path("progress");
        out.println(answer.path("id").asText() + ": " + p.path("done").asText() + " of " + p.path("total").asText());
    }
}
