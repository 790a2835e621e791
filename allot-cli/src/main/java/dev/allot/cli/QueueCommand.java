package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.model.Words;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code allot queue}: the server's workloads as a table. The waiting ones (pending, requeued) come first,
 * in the order the policy would serve them, with their place in that order overall and in their allocation, as
 * {@code GET /v1/queue} and the dashboard give them; held work, work the scheduler has not seen yet and work it has
 * decided to start whose GPUs stopped work still holds (a deferred start: "pending (about to start)") follow without a
 * place, out of the serving order. Then the others (running, ended) in the server's order, oldest submission first. Which workloads are listed
 * is what {@code GET /v1/workloads} answers for the filters: every waiting one (the head of the queue may be the newest
 * submission), of which the first {@code --limit} in serving order are shown, and the oldest {@code --limit} others; a
 * note says how many were left out. {@code /v1/queue} (with the same allocation and user) only orders and numbers the
 * waiting ones. {@code --json} prints what the table shows and the queue: {@code {"workloads", "queue", "limit",
 * "moreWaiting", "moreNotWaiting", "backend"}} ({@code backend}: {@code /v1/health}'s word while the service cannot
 * observe its backend, else null; {@link BackendNotice}), the secrets in each workload's command and environment masked
 * ({@link dev.allot.core.rules.Secrets}; {@code allot show --show-secrets} prints them whole).
 */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = {"List workloads on the Allot server as a table, optionally filtered.",
                "Waiting work (pending, requeued) comes first, in the order the policy would serve it: POS"
                        + " is its place in the whole queue (whatever the filters), ALLOC POS its place among its"
                        + " allocation's waiting work. Held work, work the scheduler has not seen yet and work it has"
                        + " decided to start whose GPUs stopped work still holds (STATE 'pending (about to start)', as"
                        + " 'allot explain' says) follow, without a place (-). Then running and ended work, oldest"
                        + " submission first.",
                "EXPECTED START is the latest forecast's likely start of waiting work (the median of futures played with"
                        + " the service's policy; >T: after T, the end of what the forecast looks at; -: no forecast);"
                        + " 'allot explain ID' gives its band and what it assumes.",
                "'allot explain ID' says why a workload waits where it does."})
final class QueueCommand extends ClientCommand {
    /** The states that wait in the queue; {@code GET /v1/queue} lists exactly the workloads in them. */
    static final java.util.Set<String> WAITING = java.util.Set.of("pending", "requeued");

    @Option(names = "--state", split = ",", paramLabel = "STATE",
            description = "only these states, comma-separated: pending, running, preempted, requeued, completed, failed,"
                    + " cancelled (held work is in the state it was held in; running includes starting, work whose"
                    + " start the backend has not yet confirmed)")
    List<String> states = new ArrayList<>();

    @Option(names = "--allocation", paramLabel = "PATH", description = "only this allocation and those below it")
    String allocation;

    @Option(names = "--user", paramLabel = "USER", description = "only this user's workloads")
    String user;

    @Option(names = "--limit", paramLabel = "N",
            description = "at most N waiting workloads (the first in serving order) and N others (the oldest"
                    + " submitted); default 1000; a note says how many more there are")
    Integer limit;

    /** The states of work that does not wait. */
    static final List<String> NOT_WAITING = List.of("running", "preempted", "completed", "failed", "cancelled");
    /** Rows of each kind shown without {@code --limit}. */
    static final int DEFAULT_LIMIT = 1000;
    /** The most {@code GET /v1/workloads} lists in one answer: every waiting workload is fetched, up to it. */
    static final int ALL = 100_000;

    /**
     * Fetches every waiting workload (the head of the queue may be the newest submission, so the oldest N are not
     * enough) and the queue's order of them, and the oldest {@code limit} others, one more to know whether there are
     * more; {@link #render} shows {@code limit} of each.
     */
    @Override
    JsonNode call(ApiClient client) {
        int shown = limit == null ? DEFAULT_LIMIT : limit;
        if (shown < 1) {
            throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, "--limit: expected a positive number of"
                    + " workloads, got " + shown);
        }
        List<String> asked = states.stream().map(String::trim).filter(x -> !x.isEmpty()).toList();
        List<String> waitingStates = asked.isEmpty() ? List.copyOf(new java.util.TreeSet<>(WAITING))
                : asked.stream().filter(WAITING::contains).toList();
        List<String> otherStates = asked.isEmpty() ? NOT_WAITING
                : asked.stream().filter(x -> !WAITING.contains(x)).toList();
        ArrayNode all = ApiClient.JSON.createArrayNode();
        if (!waitingStates.isEmpty()) {
            client.get("/v1/workloads", filters(waitingStates, ALL)).path("workloads").forEach(all::add);
        }
        boolean moreOthers = false;
        if (!otherStates.isEmpty()) {
            // one more than shown, to know whether there are more; the server lists at most ALL in one answer
            JsonNode others = client.get("/v1/workloads", filters(otherStates, Math.min(shown, ALL - 1) + 1))
                    .path("workloads");
            for (int i = 0; i < others.size() && i < shown; i++) {
                all.add(others.get(i));
            }
            moreOthers = others.size() > shown;
        }
        if (all.isEmpty() && user != null) {
            requireKnownUser(client, user.trim());
        }
        ObjectNode answer = ApiClient.JSON.createObjectNode();
        answer.set("workloads", all);
        boolean anyWaiting = false;
        for (JsonNode w : all) {
            anyWaiting |= WAITING.contains(w.path("state").asText());
        }
        if (anyWaiting) {
            // /v1/queue's state filter knows held as a state of its own, /v1/workloads the state it was held in:
            // the states are applied by /v1/workloads above, the queue only orders what it listed.
            Map<String, String> filters = new LinkedHashMap<>();
            filters.put("allocation", allocation == null ? null : allocation.trim());
            filters.put("user", user == null ? null : user.trim());
            answer.set("queue", client.get("/v1/queue", filters));
        }
        // the printed order, with the first `shown` waiting ones: --json gives what the table shows
        ArrayNode kept = ApiClient.JSON.createArrayNode();
        int waitingKept = 0;
        int moreWaiting = 0;
        for (Row r : ordered(answer)) {
            if (WAITING.contains(r.workload().path("state").asText())) {
                if (waitingKept == shown) {
                    moreWaiting++;
                    continue;
                }
                waitingKept++;
            }
            // the table shows no command or environment; --json gives them with their secrets masked, as 'allot show'
            kept.add(ShowCommand.secretsMasked(r.workload()));
        }
        answer.set("workloads", kept);
        answer.put("limit", shown);
        answer.put("moreWaiting", moreWaiting);
        answer.put("moreNotWaiting", moreOthers);
        answer.set("backend", BackendNotice.fetch(client));
        return answer;
    }

    private Map<String, String> filters(List<String> stateList, int max) {
        Map<String, String> q = new LinkedHashMap<>();
        q.put("state", String.join(",", stateList));
        q.put("allocation", allocation);
        q.put("user", user);
        q.put("limit", Integer.toString(max));
        return q;
    }

    /**
     * Refuses a filter naming no user of the server, once nothing matched, as the server does a filter naming no
     * allocation. Only an administrator is told: the server lists every user to administrators alone, so for
     * anyone else asking about another user the answer stays what {@code GET /v1/workloads} gave ("no workloads"),
     * and whether that user exists is not revealed.
     */
    private static void requireKnownUser(ApiClient client, String name) {
        JsonNode me = client.get("/v1/me");
        if (me.path("name").asText().equals(name) || !"admin".equals(me.path("role").asText())) {
            return;
        }
        for (JsonNode u : client.get("/v1/users").path("users")) {
            if (u.path("name").asText().equals(name)) {
                return;
            }
        }
        // worded as the server words a field's error, so that CliHints names the field once, as the option
        throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, "field 'user': no user '" + name + "'", "user",
                "GET /v1/users lists them");
    }

    @Override
    void render(JsonNode answer, PrintWriter out) {
        JsonNode list = answer.path("workloads");
        if (list.isEmpty()) {
            out.println("no workloads");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        int shown = answer.path("limit").asInt();
        int waitingCut = answer.path("moreWaiting").asInt();
        for (Row r : ordered(answer)) {
            JsonNode w = r.workload();
            rows.add(List.of(text(w, "id"), r.position(), r.positionInAllocation(), text(w, "allocation"),
                    text(w, "user"), gpus(w), minRuntime(w), state(w), text(w, "submittedAt"), r.expectedStart()));
        }
        table(out, List.of("ID", "POS", "ALLOC POS", "ALLOCATION", "USER", "GPUS", "MIN RUNTIME", "STATE", "SUBMITTED",
                "EXPECTED START"), rows);
        for (Row r : ordered(answer)) {
            if (r.workload().hasNonNull("cannotRun")) {
                out.println("(" + text(r.workload(), "id") + ": " + text(r.workload(), "cannotRun") + ")");
            }
        }
        JsonNode queue = answer.path("queue");
        JsonNode awaits = queue.path("schedulerAwaits");
        if (awaits.isTextual()) {
            out.println("(" + awaits.asText() + "; until then, waiting work is listed without a place)");
        } else if (queue.isObject() && !queue.path("seenByScheduler").asBoolean(false)) {
            out.println("(the scheduler has not ordered the queue yet: waiting work is listed without a place)");
        }
        if (waitingCut > 0) {
            out.println("(" + Words.count(waitingCut, "more waiting workload") + " not shown, after the first "
                    + shown + " in serving order; --limit shows more)");
        }
        if (answer.path("moreNotWaiting").asBoolean(false)) {
            out.println("(more running and ended workloads match: the oldest " + shown + " are shown; --limit shows"
                    + " more, --state, --allocation or --user fewer)");
        }
        BackendNotice.print(answer.get("backend"), out);
    }

    /**
     * A workload as listed, with its places in the serving order and its forecast likely start ({@code -} when it has
     * none).
     */
    record Row(JsonNode workload, String position, String positionInAllocation, String expectedStart) {
    }

    /**
     * The workloads in the order printed: the waiting ones in {@code /v1/queue}'s order (which puts those without a
     * place last), any waiting one it did not list (it ended or started between the two calls) after them, then the
     * others in the server's order.
     */
    static List<Row> ordered(JsonNode answer) {
        Map<String, JsonNode> queued = new LinkedHashMap<>();
        for (JsonNode e : answer.path("queue").path("entries")) {
            queued.put(e.path("id").asText(), e);
        }
        Map<String, JsonNode> waiting = new LinkedHashMap<>();
        List<Row> others = new ArrayList<>();
        for (JsonNode w : answer.path("workloads")) {
            if (WAITING.contains(w.path("state").asText())) {
                waiting.put(w.path("id").asText(), w);
            } else {
                others.add(new Row(w, "-", "-", "-"));
            }
        }
        List<Row> rows = new ArrayList<>();
        for (JsonNode e : queued.values()) {
            JsonNode w = waiting.remove(e.path("id").asText());
            if (w != null && e.path("aboutToStart").asBoolean(false)) {
                // decided to start, its GPUs still held by work being stopped: the server's workload says pending
                w = ((ObjectNode) w.deepCopy()).put("aboutToStart", true);
            }
            if (w != null && e.hasNonNull("cannotRun")) {
                // the scheduler cannot take it in (its shape no longer fits the cluster): it will not start as is
                w = ((ObjectNode) w.deepCopy()).put("cannotRun", e.path("cannotRun").asText());
            }
            if (w != null) {
                rows.add(new Row(w, place(e.get("position")), place(e.get("positionInAllocation")),
                        expectedStart(e.get("forecast"), answer.path("queue").path("forecast"))));
            }
        }
        waiting.values().forEach(w -> rows.add(new Row(w, "-", "-", "-")));
        rows.addAll(others);
        return rows;
    }

    /** The forecast's likely start, {@code >T} when after the horizon's end T, {@code -} without a forecast. */
    static String expectedStart(JsonNode forecast, JsonNode about) {
        if (forecast == null || !forecast.isObject()) {
            return "-";
        }
        if (!forecast.path("withinHorizon").asBoolean(false)) {
            return ">" + about.path("horizonEnd").asText("?");
        }
        return forecast.path("likelyStart").asText("-");
    }

    private static String place(JsonNode n) {
        return n == null || !n.isNumber() ? "-" : n.asText();
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
        String state = "running".equals(text(w, "state")) && w.path("starting").asBoolean(false) ? "starting"
                : text(w, "state") + (w.path("aboutToStart").asBoolean(false) ? " (about to start)" : "")
                + (w.hasNonNull("cannotRun") ? " (cannot fit)" : "");
        return state + (w.path("cancelRequested").asBoolean(false) && !"cancelled".equals(text(w, "state"))
                ? " (cancel requested)" : "");
    }
}
