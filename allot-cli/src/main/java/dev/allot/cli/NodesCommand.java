package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code allot nodes}: the server's nodes, their GPUs and health. */
@Command(name = "nodes", mixinStandardHelpOptions = true, description = "List the nodes the Allot server knows, with their GPUs and health.")
final class NodesCommand extends ClientCommand {
    @Override
    JsonNode call(ApiClient client) {
        return client.get("/v1/nodes");
    }

    @Override
    void render(JsonNode answer, PrintWriter out) {
        JsonNode nodes = answer.path("nodes");
        if (nodes.isEmpty()) {
            out.println("no nodes");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        int gpus = 0;
        int healthyGpus = 0;
        for (JsonNode n : nodes) {
            boolean healthy = n.path("healthy").asBoolean();
            gpus += n.path("gpus").asInt();
            healthyGpus += healthy ? n.path("gpus").asInt() : 0;
            rows.add(List.of(text(n, "name"), n.path("gpus").asText(), healthy ? "healthy" : "unhealthy",
                    healthy ? "-" : text(n, "reason"), text(n, "updatedAt")));
        }
        table(out, List.of("NODE", "GPUS", "HEALTH", "REASON", "UPDATED"), rows);
        out.println(dev.allot.core.model.Words.count(nodes.size(), "node") + ", " + dev.allot.core.model.Words.count(gpus, "GPU") + " (" + healthyGpus + " healthy)");
    }
}
