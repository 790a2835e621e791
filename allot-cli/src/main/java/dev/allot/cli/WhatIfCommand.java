package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.model.Durations;
import dev.allot.core.rules.Shares;
import dev.allot.core.rules.Violation;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code allot whatif}: what a change of shares (managers, below what they manage) or of the policy's settings
 * (administrators) would do to each allocation's waits and paid fraction over the next day or week, played by the
 * server from its live state ({@code POST /v1/whatif}); nothing changes. Prints per allocation before -> after, with
 * what the prediction assumes.
 */
@Command(name = "whatif", mixinStandardHelpOptions = true,
        header = "What a change of shares or policy settings would do to waits and paid fractions.",
        description = {"Plays the next hours or days from the server's live state, as things are and with the change,"
                        + " and prints per allocation the median and p90 wait of work that starts, the work still"
                        + " waiting at the end, the GPU-hours fair share owes it, the paid fraction (paid of owed)"
                        + " and the GPU-hours charged, before -> after. Nothing changes.",
                "Managers may try shares below what they manage; administrators also --set policy settings.",
                "The example runs on the tree of allot serve --demo.",
                "Example: allot whatif --share lab/nlp/eval=3 --horizon 7d"})
final class WhatIfCommand extends ClientCommand {
    @Option(names = "--share", paramLabel = "PATH=SHARE",
            description = "a new share for an allocation, e.g. lab/nlp/eval=3 (repeatable)")
    List<String> shares = new ArrayList<>();

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "a new value of a policy setting, e.g. allocation.reservation=false"
                    + " (repeatable; administrators)")
    List<String> settings = new ArrayList<>();

    @Option(names = "--horizon", paramLabel = "DURATION", defaultValue = "1d",
            description = "how far to look, from 1h to 7d (default: ${DEFAULT-VALUE})")
    String horizon;

    @Option(names = "--runs", paramLabel = "N", description = "futures played per side, 1 to 20 (default: 5)")
    Integer runs;

    /** The shares as typed, by path: the answer's numbers would say 1e308 as 1.0E308. */
    private final Map<String, String> typed = new LinkedHashMap<>();
    /** The settings asked for, by key: the answer lists only those that change. */
    private final Map<String, String> askedSettings = new LinkedHashMap<>();

    @Override
    JsonNode call(ApiClient client) {
        ObjectNode body = ApiClient.JSON.createObjectNode();
        ObjectNode s = body.putObject("shares");
        for (Map.Entry<String, String> kv : KeyValues.parse("--share", shares, "PATH=SHARE, e.g. lab/nlp/eval=3")
                .entrySet()) {
            // the rule of a share, the value named as typed (1e400, not the Infinity it parses to)
            Optional<Violation> bad = Shares.check(kv.getValue());
            if (bad.isPresent()) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, "--share " + kv.getKey() + "="
                        + kv.getValue() + ": " + bad.get().problem());
            }
            s.put(kv.getKey(), Double.parseDouble(kv.getValue().strip()));
            typed.put(kv.getKey(), kv.getValue().strip());
        }
        ObjectNode t = body.putObject("settings");
        askedSettings.putAll(KeyValues.parse("--set", settings, "KEY=VALUE, e.g. allocation.reservation=false"));
        askedSettings.forEach(t::put);
        body.put("horizon", horizon);
        if (runs != null) {
            body.put("runs", runs);
        }
        return client.post("/v1/whatif", body);
    }

    @Override
    void render(JsonNode a, PrintWriter out) {
        List<String> changes = new ArrayList<>();
        a.path("shares").fields().forEachRemaining(e -> changes.add(e.getKey() + " share " + share(e)));
        a.path("unchangedShares").fields().forEachRemaining(e -> changes.add(e.getKey() + " share " + share(e)
                + " (unchanged)"));
        a.path("settings").fields().forEachRemaining(e -> changes.add(e.getKey() + " = " + e.getValue().asText()));
        // a setting asked for as it already is: the answer leaves it out, and it vanished into "nothing changes"
        askedSettings.forEach((key, value) -> {
            if (!a.path("settings").has(key)) {
                changes.add(key + " = " + value + " (unchanged)");
            }
        });
        out.println("what if: " + (changes.isEmpty() ? "nothing changes (the forecast as things are)"
                : String.join("; ", changes)));
        out.println("over " + a.path("horizon").asText() + " from " + a.path("from").asText() + " to "
                + a.path("until").asText() + ", policy " + a.path("policy").asText());
        out.println("assumes: durations " + a.path("durations").asText() + "; " + a.path("newWork").asText() + "; "
                + a.path("runs").asInt() + (a.path("runs").asInt() == 1 ? " run" : " runs")
                + " with the same draws before and after; waits count from now for work already waiting");
        out.println();
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode r : a.path("allocations")) {
            int depth = r.path("depth").asInt();
            String name = r.path("name").asText();
            if (depth == 0 && name.equals("/")) {
                name = "(all)";
            } else if (depth > 1 && name.contains("/")) {
                name = name.substring(name.lastIndexOf('/') + 1); // the live tree names nodes by path
            }
            JsonNode b = r.path("base");
            JsonNode v = r.path("variant");
            rows.add(List.of("  ".repeat(Math.max(0, depth - 1)) + name,
                    change(percent(b, "entitlement"), percent(v, "entitlement")),
                    change(wait(b, "waitP50Seconds"), wait(v, "waitP50Seconds")),
                    change(wait(b, "waitP90Seconds"), wait(v, "waitP90Seconds")),
                    change(number(b, "waitingAtEnd"), number(v, "waitingAtEnd")),
                    change(number(b, "owedGpuHours"), number(v, "owedGpuHours")),
                    change(percent(b, "paidFraction"), percent(v, "paidFraction")),
                    change(number(b, "chargedGpuHours"), number(v, "chargedGpuHours"))));
        }
        table(out, List.of("ALLOCATION", "ENTITLED", "WAIT P50", "WAIT P90", "WAITING AT END", "OWED GPU-H",
                "PAID", "CHARGED GPU-H"), rows);
    }

    private String share(Map.Entry<String, JsonNode> e) {
        String asTyped = typed.get(e.getKey());
        return asTyped != null ? asTyped : BudgetCommand.Show.number(e.getValue().asDouble());
    }

    private static String change(String before, String after) {
        return before.equals(after) ? before : before + " -> " + after;
    }

    private static String wait(JsonNode o, String field) {
        JsonNode w = o.path(field);
        return w.isNumber() ? Durations.formatSeconds(w.asLong()) : "-";
    }

    private static String percent(JsonNode o, String field) {
        JsonNode p = o.path(field);
        return p.isNumber() ? String.format(Locale.ROOT, "%.1f%%", 100 * p.asDouble()) : "-";
    }

    private static String number(JsonNode o, String field) {
        JsonNode n = o.path(field);
        return n.isNumber() ? BudgetCommand.Show.number(n.asDouble()) : "-";
    }
}
