package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.rules.Secrets;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code allot show ID}: one workload and its attempts, oldest first; each attempt's reason (a preemption's runs to
 * hundreds of characters) on its own line below the table, so that the table stays as narrow as its columns. Secrets
 * in its command and environment (an {@code ALLOT_TOKEN} the script reports progress with) are masked
 * ({@link Secrets}), in the text and in {@code --json}, unless {@code --show-secrets} asks for them whole.
 */
@Command(name = "show", mixinStandardHelpOptions = true, description = "Show one workload on the Allot server and its attempts.")
final class ShowCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "the workload id, e.g. w-42")
    String id;

    @Option(names = "--show-secrets", description = "print secrets in the command and environment whole (API tokens,"
            + " variables such as ALLOT_TOKEN or WANDB_API_KEY); without it they are masked, e.g. allo...[43 chars],"
            + " with --json too")
    boolean showSecrets;

    /** The server's answer with the workload's secrets masked as the text masks them, unless asked for whole. */
    @Override
    JsonNode json(JsonNode answer) {
        if (showSecrets || !answer.path("workload").isObject()) {
            return answer;
        }
        com.fasterxml.jackson.databind.node.ObjectNode copy = answer.deepCopy();
        copy.set("workload", secretsMasked(answer.path("workload")));
        return copy;
    }

    /**
     * A workload as the API answers it with the secrets in its command and environment masked as the text masks them
     * ({@link Secrets#word}, {@link Secrets#variable}): what {@code --json} prints. A copy; a workload without them
     * (redacted: null) is answered as it is.
     */
    static JsonNode secretsMasked(JsonNode workload) {
        if (!workload.isObject()) {
            return workload;
        }
        com.fasterxml.jackson.databind.node.ObjectNode copy = workload.deepCopy();
        if (copy.get("command") instanceof com.fasterxml.jackson.databind.node.ArrayNode command) {
            for (int i = 0; i < command.size(); i++) {
                String secret = Secrets.word(command.get(i).asText());
                if (secret != null) {
                    command.set(i, copy.textNode(secret));
                }
            }
        }
        if (copy.get("environment") instanceof com.fasterxml.jackson.databind.node.ObjectNode env) {
            for (Map.Entry<String, JsonNode> e : env.properties()) {
                e.setValue(copy.textNode(Secrets.variable(e.getKey(), e.getValue().asText())));
            }
        }
        return copy;
    }

    @Override
    JsonNode call(ApiClient client) {
        return client.get("/v1/workloads/" + ApiClient.segment("a workload id", id));
    }

    @Override
    void render(JsonNode answer, PrintWriter out) {
        JsonNode w = answer.path("workload");
        out.println("workload " + text(w, "id"));
        List<String[]> fields = new ArrayList<>();
        String cannotRun = ApiClient.textOrNull(answer, "cannotRun");
        // the scheduler cannot take it in: "pending (cannot fit)" and why, as 'allot queue' says it
        fields.add(new String[] {"state", QueueCommand.state(cannotRun == null ? w
                : ((com.fasterxml.jackson.databind.node.ObjectNode) w.deepCopy()).put("cannotRun", cannotRun))});
        if (cannotRun != null) {
            fields.add(new String[] {"cannot fit", cannotRun});
        }
        if (w.hasNonNull("heldReason")) {
            fields.add(new String[] {"held", text(w, "heldReason")});
        }
        fields.add(new String[] {"allocation", text(w, "allocation")});
        fields.add(new String[] {"user", text(w, "user")});
        fields.add(new String[] {"gpus", QueueCommand.gpus(w)});
        fields.add(new String[] {"min runtime", QueueCommand.minRuntime(w)
                + (w.has("allocated") && !w.path("allocated").asBoolean() ? " (unallocated)" : "")
                + (w.hasNonNull("minRuntimeAsked") ? ": the scheduler's maximum" : "")});
        fields.add(new String[] {"duration", text(w, "duration")});
        fields.add(new String[] {"resumable", w.path("resumable").asBoolean() ? "yes" : "no"});
        fields.add(new String[] {"priority", text(w, "priority")});
        fields.add(new String[] {"kind", text(w, "kind")});
        JsonNode campaign = answer.path("campaign");
        if (campaign.isObject()) {
            fields.add(new String[] {"campaign", campaign.path("name").asText() + ", shard "
                    + campaign.path("shard").asText() + " (allot campaign status " + campaign.path("name").asText()
                    + ")"});
        }
        if (w.path("redacted").asBoolean()) {
            String hidden = "(hidden: only its submitter, managers of its allocation or above, and administrators see it)";
            fields.add(new String[] {"command", hidden});
            fields.add(new String[] {"environment", hidden});
        } else {
            boolean masked = false;
            StringBuilder command = new StringBuilder();
            for (JsonNode word : w.path("command")) {
                String given = word.asText();
                String secret = showSecrets ? null : Secrets.word(given);
                masked |= secret != null;
                // a masked word quoted as its whole would be: 'Bearer allo...[43 chars]', --key=sk-1...[51 chars]
                String shown = shellWord(given);
                command.append(command.length() > 0 ? " " : "")
                        .append(secret == null ? shown : shown.equals(given) ? secret : ShellWords.quote(secret));
            }
            fields.add(new String[] {"command", command.toString()});
            StringBuilder env = new StringBuilder();
            for (Map.Entry<String, JsonNode> e : w.path("environment").properties()) {
                String given = e.getValue().asText();
                String value = showSecrets ? given : Secrets.variable(e.getKey(), given);
                masked |= !value.equals(given);
                env.append(env.length() > 0 ? " " : "").append(e.getKey()).append('=')
                        .append(value.chars().anyMatch(Character::isISOControl) ? ShellWords.quote(value) : value);
            }
            fields.add(new String[] {"environment", env.length() == 0 ? "-" : env.toString()});
            if (masked) {
                fields.add(new String[] {"secrets", "masked (--show-secrets prints them whole)"});
            }
        }
        fields.add(new String[] {"submitted", text(w, "submittedAt")});
        JsonNode progress = w.path("progress");
        fields.add(new String[] {"progress", progress.isObject()
                ? progress.path("done").asText() + " of " + progress.path("total").asText() : "-"});
        if (w.hasNonNull("idempotencyKey")) {
            fields.add(new String[] {"idempotency key", text(w, "idempotencyKey")});
        }
        int width = fields.stream().mapToInt(f -> f[0].length()).max().orElse(0);
        for (String[] f : fields) {
            out.println("  " + f[0] + " ".repeat(width - f[0].length() + 2) + f[1]);
        }
        JsonNode attempts = answer.path("attempts");
        if (attempts.isEmpty()) {
            out.println("attempts: none yet");
            return;
        }
        out.println("attempts:");
        List<List<String>> rows = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        for (JsonNode a : attempts) {
            rows.add(List.of(a.path("attempt").asText(), text(a, "phase"), a.path("gpus").asText(), placement(a.path("placement")),
                    text(a, "startedAt"), text(a, "endedAt"), outcome(a), lost(a)));
            String reason = ApiClient.textOrNull(a, "reason");
            if (reason != null && !reason.isBlank()) {
                reasons.add("  attempt " + a.path("attempt").asText() + ": " + reason);
            }
        }
        StringWriter buffer = new StringWriter();
        table(new PrintWriter(buffer), List.of("#", "PHASE", "GPUS", "PLACEMENT", "STARTED", "ENDED", "OUTCOME", "LOST GPU-H"), rows);
        buffer.toString().lines().forEach(l -> out.println("  " + l));
        // a preemption's reason runs to hundreds of characters: in the table it made every row as wide
        reasons.forEach(out::println);
    }

    static String placement(JsonNode placement) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode p : placement) {
            sb.append(sb.length() > 0 ? " " : "").append(p.path("node").asText()).append(':');
            StringBuilder g = new StringBuilder();
            for (JsonNode i : p.path("gpus")) {
                g.append(g.length() > 0 ? "," : "").append(i.asText());
            }
            sb.append(g);
        }
        return sb.length() == 0 ? "-" : sb.toString();
    }

    private static String outcome(JsonNode a) {
        String o = text(a, "outcome");
        String preemptor = ApiClient.textOrNull(a, "preemptor");
        if (preemptor != null) {
            o += " by " + preemptor;
        }
        return o;
    }

    /** Lost work in GPU-hours, as {@code explain} and {@code budget} show it. */
    private static String lost(JsonNode a) {
        JsonNode l = a.get("lostGpuSeconds");
        return l == null || l.isNull() ? "-" : dev.allot.core.model.Decimals.fixed(l.asDouble() / 3600, 2);
    }
}
