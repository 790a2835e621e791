package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code allot budget}: the allocation tree on the server. */
@Command(name = "budget", mixinStandardHelpOptions = true, description = "The allocation tree on the Allot server.",
        subcommands = {BudgetCommand.Show.class})
final class BudgetCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** What came without a subcommand, taken here so picocli's error does not echo it (it may hold a token). */
    @picocli.CommandLine.Unmatched
    List<String> unmatched = new ArrayList<>();

    @Override
    public Integer call() {
        if (!unmatched.isEmpty()) {
            spec.commandLine().getErr().println("allot: 'allot budget' needs a subcommand before its options, e.g."
                    + " 'allot budget show --server URL'");
            spec.commandLine().usage(spec.commandLine().getErr());
            return AllotCommand.EXIT_BAD_INPUT;
        }
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    /**
     * {@code allot budget show}: the allocation tree, indented, each with its share, the fraction of its parent it
     * gets against its siblings, its managers and its members.
     */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Show the allocation tree, indented, with shares (and the fraction of the parent), managers and members.")
    static final class Show extends ClientCommand {
        @Override
        JsonNode call(ApiClient client) {
            return client.get("/v1/allocations");
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            JsonNode all = answer.path("allocations");
            if (all.isEmpty()) {
                out.println("no allocations");
                return;
            }
            Map<String, JsonNode> byPath = new LinkedHashMap<>();
            for (JsonNode a : all) {
                byPath.put(a.path("path").asText(), a);
            }
            Map<String, List<JsonNode>> children = new LinkedHashMap<>();
            List<JsonNode> roots = new ArrayList<>();
            for (JsonNode a : all) {
                String parent = ApiClient.textOrNull(a, "parent");
                if (parent == null || !byPath.containsKey(parent)) {
                    roots.add(a);
                } else {
                    children.computeIfAbsent(parent, k -> new ArrayList<>()).add(a);
                }
            }
            List<List<String>> rows = new ArrayList<>();
            walk(roots, 0, children, rows);
            table(out, List.of("ALLOCATION", "SHARE", "OF PARENT", "MANAGERS", "MEMBERS"), rows);
        }

        private static void walk(List<JsonNode> siblings, int depth, Map<String, List<JsonNode>> children, List<List<String>> rows) {
            double total = siblings.stream().mapToDouble(a -> a.path("share").asDouble()).sum();
            for (JsonNode a : siblings) {
                String path = a.path("path").asText();
                String name = depth == 0 ? path : path.substring(path.lastIndexOf('/') + 1);
                double share = a.path("share").asDouble();
                rows.add(List.of("  ".repeat(depth) + name, number(share),
                        total > 0 ? String.format(Locale.ROOT, "%.0f%%", 100 * share / total) : "-",
                        names(a.path("managers")), names(a.path("members"))));
                walk(children.getOrDefault(path, List.of()), depth + 1, children, rows);
            }
        }

        private static String number(double d) {
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
        }

        private static String names(JsonNode array) {
            List<String> names = new ArrayList<>();
            array.forEach(n -> names.add(n.asText()));
            return names.isEmpty() ? "-" : String.join(", ", names);
        }
    }
}
