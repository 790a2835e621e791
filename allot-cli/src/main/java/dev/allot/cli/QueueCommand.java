package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code allot queue}: the server's workloads as a table, in the server's order (oldest submission first). */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "List workloads on the Allot server as a table, optionally filtered.")
final class QueueCommand extends ClientCommand {
    @Option(names = "--state", split = ",", paramLabel = "STATE",
            description = "only these states, comma-separated: pending, running, preempted, requeued, completed, failed, cancelled")
    List<String> states = new ArrayList<>();

    @Option(names = "--allocation", paramLabel = "PREFIX", description = "only this allocation and those below it")
    String allocation;

    @Option(names = "--user", paramLabel = "USER", description = "only this user's workloads")
    String user;

    @Option(names = "--limit", paramLabel = "N", description = "at most N workloads (server default 1000)")
    Integer limit;

    @Override
    JsonNode call(ApiClient client) {
        Map<String, String> q = new LinkedHashMap<>();
        if (!states.isEmpty()) {
            q.put("state", String.join(",", states.stream().map(String::trim).toList()));
        }
        q.put("allocation", allocation);
        q.put("user", user);
        q.put("limit", limit == null ? null : limit.toString());
        return client.get("/v1/workloads", q);
    }

    @Override
    void render(JsonNode answer, PrintWriter out) {
        JsonNode list = answer.path("workloads");
        if (list.isEmpty()) {
            out.println("no workloads");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode w : list) {
            rows.add(List.of(text(w, "id"), text(w, "allocation"), text(w, "user"), gpus(w), minRuntime(w),
                    state(w), text(w, "submittedAt")));
        }
        table(out, List.of("ID", "ALLOCATION", "USER", "GPUS", "MIN RUNTIME", "STATE", "SUBMITTED"), rows);
    }

    /** The minimum runtime that applies, marked when the cap cut the declared one: "8h (capped from 9h)". */
    static String minRuntime(JsonNode w) {
        return text(w, "minRuntime") + (w.hasNonNull("minRuntimeAsked") ? " (capped from " + text(w, "minRuntimeAsked")
                + ")" : "");
    }

    static String gpus(JsonNode w) {
        int perNode = w.path("gpusPerNode").asInt(0);
        return w.path("gpus").asText("-") + (perNode > 0 ? " (" + perNode + "/node)" : "");
    }

    static String state(JsonNode w) {
        if (w.hasNonNull("heldReason")) {
            return "held (" + text(w, "state") + ")";
        }
        return text(w, "state") + (w.path("cancelRequested").asBoolean(false) && !"cancelled".equals(text(w, "state"))
                ? " (cancel requested)" : "");
    }
}
