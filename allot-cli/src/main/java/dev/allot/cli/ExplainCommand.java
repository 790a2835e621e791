package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.model.Decimals;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code allot explain ID}: why a workload waits, runs or was preempted: the server's sentences (their REST requests
 * said as commands, {@link CliHints}), then (under ranking=entitlement) a compact table of the instant standings the
 * rule decides by, then one of the fair-share levels of its allocation; {@code --json} prints the server's answer.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
        header = "Explain why a workload waits, whether it is protected and who preempted it.",
        description = "Explain why a workload waits (its place in the queue, the fair share that puts it there, what it"
                + " waits for), whether it is protected, and who preempted it and why.")
final class ExplainCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "the workload id, e.g. w-42")
    String id;

    @Override
    JsonNode call(ApiClient client) {
        return client.get("/v1/workloads/" + ApiClient.segment("a workload id", id) + "/explain");
    }

    @Override
    void render(JsonNode answer, PrintWriter out) {
        out.println("workload " + text(answer, "id") + " (" + text(answer, "state") + ", " + text(answer, "allocation") + ")");
        for (JsonNode sentence : answer.path("summary")) {
            // The server's sentences name REST requests where the API user would act (a held workload's brakes).
            out.println("  " + CliHints.hint(sentence.asText(), "allot explain"));
        }
        renderStandings(answer.path("data"), out);
        JsonNode levels = answer.path("data").path("fairShare");
        if (!levels.isArray() || levels.isEmpty()) {
            return;
        }
        out.println("fair share:");
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode l : levels) {
            JsonNode ratio = l.get("ratio");
            rows.add(List.of(text(l, "name"), hours(l.path("runGpuSeconds").asDouble()),
                    hours(l.path("committedGpuSeconds").asDouble()),
                    String.format(Locale.ROOT, "%.3f", l.path("entitlement").asDouble()),
                    hours(l.path("entitledGpuSeconds").asDouble()),
                    ratio == null || ratio.isNull() ? "-" : Decimals.significant(ratio.asDouble(), 3),
                    l.path("rank").asInt() + "/" + l.path("siblings").asInt()));
        }
        StringWriter buffer = new StringWriter();
        table(new PrintWriter(buffer), List.of("LEVEL", "RUN GPU-H", "COMMITTED GPU-H", "ENTITLEMENT", "BUYS GPU-H",
                "CHARGED/BUYS", "RANK"), rows);
        buffer.toString().lines().forEach(line -> out.println("  " + line));
        out.println("  (charged = run in the window + committed: the unrun part of protected minimum runtimes;"
                + " budget usage shows the run part)");
    }

    /**
     * Under ranking=entitlement, the instant standings the rule decides by: the workload's allocation, then the
     * allocations whose protected work it waits for. Nothing under ranking=lookback (the fair-share table is the rule).
     */
    private static void renderStandings(JsonNode data, PrintWriter out) {
        JsonNode own = data.get("standing");
        if (own == null || own.isNull()) {
            return;
        }
        out.println("standing now (ranking=" + text(data, "ranking") + ", reclaim from allocations holding at least "
                + Decimals.significant(1 + data.path("reclaimMargin").asDouble(), 3) + " x their quota):");
        List<List<String>> rows = new ArrayList<>();
        List<JsonNode> all = new ArrayList<>();
        all.add(own);
        data.path("otherStandings").forEach(all::add);
        for (JsonNode s : all) {
            JsonNode standing = s.get("standing");
            rows.add(List.of(text(s, "allocation"), String.valueOf(s.path("heldGpus").asLong()),
                    Decimals.significant(s.path("quotaGpus").asDouble(), 3),
                    standing == null || standing.isNull() ? "-" : Decimals.significant(standing.asDouble(), 3),
                    s.path("owed").asBoolean() ? "yes" : "no"));
        }
        StringWriter buffer = new StringWriter();
        table(new PrintWriter(buffer), List.of("ALLOCATION", "HELD GPUS", "QUOTA GPUS", "HELD/QUOTA", "OWED"), rows);
        buffer.toString().lines().forEach(line -> out.println("  " + line));
    }

    private static String hours(double gpuSeconds) {
        return Decimals.significant(gpuSeconds / 3600, 3);
    }
}
