package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.model.Words;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code allot nodes}: the server's nodes, their GPUs and health; and what an operator does to them, as
 * {@code scontrol update nodename=N state=drain|resume} does on Slurm: {@code drain} marks a node unhealthy with a
 * reason ({@code POST /v1/nodes/NAME/health}), {@code resume} healthy again, {@code set --gpus} registers a node or
 * changes its GPU count ({@code PUT /v1/nodes/NAME}). Alone it lists, as it did before it had subcommands; the
 * connection options go after the subcommand ({@link ClientCommand#refuseOptionsBeforeSubcommand}).
 */
@Command(name = "nodes", mixinStandardHelpOptions = true,
        header = "List the nodes the Allot server knows, with their GPUs and health; drain, resume or register one.",
        description = {"Alone (or 'allot nodes list'): the nodes with their GPUs and health. Administrators drain a node"
                + " (it takes no new work, and its work leaves as it passes its minimum runtime), resume it, or"
                + " register it and set its GPU count.",
                "Example: allot nodes drain gpu-07 --reason 'fan failure'"},
        subcommands = {NodesCommand.ListNodes.class, NodesCommand.Drain.class, NodesCommand.Resume.class,
                NodesCommand.Set.class})
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
        out.println(Words.count(nodes.size(), "node") + ", " + Words.count(gpus, "GPU") + " (" + healthyGpus + " healthy)");
    }

    static String url(String name) {
        return "/v1/nodes/" + ApiClient.segment("a node name", name);
    }

    /** {@code allot nodes list}: the same as {@code allot nodes} alone, for those who type a group's list. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the nodes with their GPUs and health (the same as 'allot nodes').")
    static final class ListNodes extends ClientCommand {
        private final NodesCommand list = new NodesCommand();

        @Override
        JsonNode call(ApiClient client) {
            return list.call(client);
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            list.render(answer, out);
        }
    }

    /**
     * {@code allot nodes drain NAME --reason TEXT}: marks the node unhealthy. The scheduler places no new work on it,
     * stops its unallocated work at once and its allocated work as each passes its minimum runtime (on Slurm it also
     * drains the node there); the output says so, and how to undo it.
     */
    @Command(name = "drain", mixinStandardHelpOptions = true,
            header = "Mark a node unhealthy (administrators): it takes no new work and drains.",
            description = {"The node takes no new work; its unallocated work leaves at once and its allocated work as"
                    + " each workload passes its minimum runtime. 'allot nodes resume NAME' undoes it.",
                    "Example: allot nodes drain gpu-07 --reason 'fan failure'"})
    static final class Drain extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the node, as 'allot nodes' lists it")
        String name;

        @Option(names = "--reason", required = true, paramLabel = "TEXT",
                description = "why, shown with the node (allot nodes, the dashboard) and kept in the audit trail")
        String reason;

        @Override
        JsonNode call(ApiClient client) {
            if (reason.isBlank()) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, "--reason: expected why the node is"
                        + " drained, e.g. --reason 'fan failure', got '" + reason + "'");
            }
            ObjectNode body = ApiClient.JSON.createObjectNode().put("healthy", false).put("reason", reason);
            return client.post(url(name) + "/health", body);
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            String node = text(answer, "name");
            out.println(node + ": unhealthy (" + text(answer, "reason") + "), " + Words.count(answer.path("gpus").asInt(),
                    "GPU") + ": it takes no new work and drains as its workloads reach their minimum runtime"
                    + " (unallocated work leaves at once)");
            out.println("to undo: allot nodes resume " + ShellWords.quote(answer.path("name").asText()));
        }
    }

    /** {@code allot nodes resume NAME}: marks the node healthy again; it takes work at the next cycle. */
    @Command(name = "resume", mixinStandardHelpOptions = true,
            header = "Mark a node healthy again (administrators): it takes work again.",
            description = {"A node a backend made unhealthy (on Slurm: down, or drained by an operator) is resumed"
                    + " there; the service follows within seconds.",
                    "Example: allot nodes resume gpu-07"})
    static final class Resume extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the node, as 'allot nodes' lists it")
        String name;

        @Override
        JsonNode call(ApiClient client) {
            return client.post(url(name) + "/health", ApiClient.JSON.createObjectNode().put("healthy", true));
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            out.println(text(answer, "name") + ": healthy, " + Words.count(answer.path("gpus").asInt(), "GPU")
                    + "; it takes work again");
        }
    }

    /**
     * {@code allot nodes set NAME --gpus N}: registers a node or changes its GPU count (administrators). A node the
     * command did not find before is said to be new, as a mistyped name registers one; fewer GPUs than before says
     * what happens to the work on the GPUs the node no longer has.
     */
    @Command(name = "set", mixinStandardHelpOptions = true,
            header = "Register a node or change its GPU count (administrators).",
            description = {"A node registered again keeps its health. With the local or Slurm backend the nodes come"
                    + " from the backend: only their GPU count may be changed.",
                    "Example: allot nodes set gpu-07 --gpus 8"})
    static final class Set extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the node, e.g. gpu-07")
        String name;

        @Option(names = "--gpus", required = true, paramLabel = "N", description = "how many GPUs it has (1 to 4,096)")
        int gpus;

        /** The node before the change; null when it is new. */
        private JsonNode before;

        @Override
        JsonNode call(ApiClient client) {
            String path = url(name);
            for (JsonNode n : client.get("/v1/nodes").path("nodes")) {
                if (n.path("name").asText().equals(name)) {
                    before = n;
                }
            }
            return client.put(path, ApiClient.JSON.createObjectNode().put("gpus", gpus));
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            String node = text(answer, "name");
            int now = answer.path("gpus").asInt();
            String line = node + ": " + Words.count(now, "GPU") + ", "
                    + (answer.path("healthy").asBoolean() ? "healthy" : "unhealthy (" + text(answer, "reason") + ")");
            if (before == null) {
                line += " (registered: a new node)";
            } else if (before.path("gpus").asInt() != now) {
                int was = before.path("gpus").asInt();
                line += " (was " + was + (now < was ? "; work running on the GPUs it no longer has is stopped:"
                        + " requeued if resumable, failed otherwise" : "") + ")";
            } else {
                line += " (unchanged)";
            }
            out.println(line);
        }
    }
}
