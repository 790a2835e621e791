package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code allot cancel ID}: asks the server to cancel a workload and prints its new state: {@code cancelled} at once
 * when it was waiting, or its current state with "(cancel requested)" when it is running and must be stopped.
 */
@Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a workload on the Allot server; prints its new state.")
final class CancelCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "the workload id, e.g. w-42")
    String id;

    @Override
    JsonNode call(ApiClient client) {
        return client.post("/v1/workloads/" + ApiClient.segment(id) + "/cancel", null);
    }

    @Override
    void render(JsonNode w, PrintWriter out) {
        out.println(text(w, "id") + ": " + QueueCommand.state(w));
    }
}
