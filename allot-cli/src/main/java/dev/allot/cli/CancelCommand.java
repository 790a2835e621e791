package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code allot cancel ID}: asks the server to cancel a workload and prints its new state: {@code cancelled} at once
 * when it was waiting, its current state with "(cancel requested)" when it is running and must be stopped, or its
 * final state and "nothing to cancel" when it had already ended.
 */
@Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a workload on the Allot server; prints its new state.")
final class CancelCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "the workload id, e.g. w-42")
    String id;

    @Override
    JsonNode call(ApiClient client) {
        return client.post("/v1/workloads/" + ApiClient.segment("a workload id", id) + "/cancel", null);
    }

    @Override
    void render(JsonNode w, PrintWriter out) {
        String state = text(w, "state");
        boolean endedBefore = ENDED.contains(state);
        out.println(text(w, "id") + ": " + (endedBefore ? state + " (it had already ended: nothing to cancel)"
                : QueueCommand.state(w)));
    }

    /**
     * The final states other than {@code cancelled}: a cancel of such a workload changes nothing. The server's
     * {@code WorkloadState.ended} says which states are final, but the client's code uses no server class
     * ({@code ClientCommandsTest}), so the labels are named here.
     */
    private static final java.util.Set<String> ENDED = java.util.Set.of("completed", "failed", "preempted");
}
