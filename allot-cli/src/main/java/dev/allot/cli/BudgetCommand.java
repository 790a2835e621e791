package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.rules.Names;
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

/** {@code allot budget}: the allocation tree on the server. */
@Command(name = "budget", mixinStandardHelpOptions = true, description = "The allocation tree on the Allot server.",
        subcommands = {BudgetCommand.Show.class, BudgetCommand.Set.class, BudgetCommand.Remove.class,
                BudgetCommand.Usage.class})
final class BudgetCommand extends GroupCommand {
    BudgetCommand() {
        super("show");
    }

    /**
     * {@code allot budget show}: the allocation tree, indented, each with its share, the fraction of its parent it
     * gets against its siblings, its managers and its members.
     */
    @Command(name = "show", mixinStandardHelpOptions = true,
            header = "Show the allocation tree with shares, managers and members.",
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
                // the fraction first: 100 x a share of 1e308 is infinite
                rows.add(List.of("  ".repeat(depth) + name, number(share),
                        total > 0 ? String.format(Locale.ROOT, "%.0f%%", 100 * (share / total)) : "-",
                        names(a.path("managers")), names(a.path("members"))));
                walk(children.getOrDefault(path, List.of()), depth + 1, children, rows);
            }
        }

        static String number(double d) {
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
        }

        static String names(JsonNode array) {
            List<String> names = new ArrayList<>();
            array.forEach(n -> names.add(n.asText()));
            return names.isEmpty() ? "-" : String.join(", ", names);
        }
    }

    /**
     * {@code allot budget set PATH}: creates an allocation or changes its share, managers or members; what is not
     * given keeps its current value (a new allocation: share 1, no managers, no members). The server checks that the
     * caller manages the subtree and records the change in the audit log. A path that did not exist is said to be
     * new, with the command that removes it: a mistyped path creates an allocation (and takes a share of its
     * parent's entitlement from its siblings), which would otherwise look like an edit that went through.
     */
    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Create an allocation or change its share, managers or members (what is not given is kept).",
                    "Example: allot budget set lab/nlp/pretrain --share 3 --members alice,bob"})
    static final class Set extends ClientCommand {
        @picocli.CommandLine.Parameters(index = "0", paramLabel = "PATH", description = "the allocation, e.g. lab/nlp/pretrain")
        String path;

        @picocli.CommandLine.Option(names = "--share", paramLabel = "WEIGHT", converter = NumberArguments.NumberText.class,
                description = "its weight among its siblings, a finite number >= 0 (0: entitled to nothing)")
        String share; // as typed, so that Shares names 1e400 as typed, not as the Infinity it parses to

        @picocli.CommandLine.Option(names = "--managers", split = ",", paramLabel = "USER",
                description = "who may edit it and everything below it (comma-separated or repeated; '' for none)")
        List<String> managers;

        @picocli.CommandLine.Option(names = "--members", split = ",", paramLabel = "USER",
                description = "who may submit to it (comma-separated or repeated; '' for none)")
        List<String> members;

        @Override
        JsonNode call(ApiClient client) {
            // The server's rules, checked here too so that a bad value is refused before any request is made.
            Optional<Violation> bad = Names.checkPath("path", path);
            if (bad.isEmpty() && share != null) {
                bad = Shares.check(share);
            }
            if (bad.isPresent()) {
                // As the server's answer would be: the field named once, by its option when it has one (--share).
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, bad.get().toString(),
                        bad.get().field(), null);
            }
            JsonNode current = null;
            int slash = path.lastIndexOf('/');
            String parent = slash < 0 ? null : path.substring(0, slash);
            boolean parentHasChildren = false;
            for (JsonNode a : client.get("/v1/allocations").path("allocations")) {
                if (a.path("path").asText().equals(path)) {
                    current = a;
                }
                if (parent != null && parent.equals(ApiClient.textOrNull(a, "parent"))) {
                    parentHasChildren = true;
                }
            }
            created = current == null;
            parentWasLeaf = !parentHasChildren;
            ObjectNode body = ApiClient.JSON.createObjectNode();
            body.put("share", share != null ? Double.parseDouble(share.strip())
                    : current != null ? current.path("share").asDouble() : 1.0);
            body.set("managers", names(managers, current, "managers"));
            body.set("members", names(members, current, "members"));
            return client.put(url(path), body);
        }

        private static ArrayNode names(List<String> given, JsonNode current, String field) {
            ArrayNode out = ApiClient.JSON.createArrayNode();
            if (given != null) {
                given.stream().map(String::strip).filter(n -> !n.isEmpty()).forEach(out::add);
            } else if (current != null) {
                current.path(field).forEach(n -> out.add(n.asText()));
            }
            return out;
        }

        /** Whether the call created the allocation (it was not in the tree read before the change). */
        private boolean created;
        /** Whether the new allocation's parent had no children before: it was a leaf, and is one no more. */
        private boolean parentWasLeaf;

        @Override
        void render(JsonNode answer, PrintWriter out) {
            String path = answer.path("path").asText();
            String line = path + ": share " + Show.number(answer.path("share").asDouble())
                    + ", managers " + Show.names(answer.path("managers")) + ", members " + Show.names(answer.path("members"));
            if (created) {
                int slash = path.lastIndexOf('/');
                String where = slash < 0 ? "a new root allocation"
                        : "a new allocation under " + path.substring(0, slash)
                        + (parentWasLeaf ? ", which is no longer a leaf (no work can be submitted to it)" : "");
                line += " (created: " + where + "; to undo: allot budget remove " + ShellWords.quote(path) + ")";
            }
            out.println(line);
        }
    }

    /**
     * {@code allot budget remove PATH}: removes an allocation ({@code DELETE /v1/allocations/PATH}). The server
     * refuses one with children or with workloads not ended, and records the removal in the audit log.
     */
    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = {"Remove an allocation that has no children and no workloads waiting or running.",
                    "Example: allot budget remove lab/nlp/scratch"})
    static final class Remove extends ClientCommand {
        @picocli.CommandLine.Parameters(index = "0", paramLabel = "PATH", description = "the allocation, e.g. lab/nlp/scratch")
        String path;

        @Override
        JsonNode call(ApiClient client) {
            Optional<Violation> bad = Names.checkPath("path", path);
            if (bad.isPresent()) {
                // As the server's answer would be: the field named once, by its option when it has one (--share).
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, bad.get().toString(),
                        bad.get().field(), null);
            }
            return client.delete(url(path));
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            out.println("removed " + path);
        }
    }

    /** The URL of the allocation at {@code path}, each name its own encoded segment. */
    static String url(String path) {
        StringBuilder url = new StringBuilder("/v1/allocations");
        for (String segment : path.split("/", -1)) {
            url.append('/').append(ApiClient.segment("an allocation name", segment));
        }
        return url.toString();
    }

    /**
     * {@code allot budget usage}: per node of the tree, the GPU-hours it ran over the window against what its
     * entitlement buys, and with {@code --step} the same step by step. "Run", not "charged": fair share (and
     * {@code allot explain}) also charges the unrun part of running work's protected minimum runtimes, and the
     * table says so.
     */
    @Command(name = "usage", mixinStandardHelpOptions = true,
            header = "Usage against entitlement per node of the allocation tree over a window.",
            description = "The window is the last 7 days unless --since says otherwise; with --step, one line per step as well.")
    static final class Usage extends ClientCommand {
        @picocli.CommandLine.Option(names = "--since", paramLabel = "WHEN",
                description = "start of the window: a duration back from now (7d, 12h) or an ISO-8601 instant")
        String since;

        @picocli.CommandLine.Option(names = "--step", paramLabel = "DURATION", description = "also show each step (1h, 1d)")
        String step;

        @Override
        JsonNode call(ApiClient client) {
            Map<String, String> q = new LinkedHashMap<>();
            q.put("since", since);
            q.put("step", step);
            return client.get("/v1/allocations/usage", q);
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            out.println("window " + answer.path("since").asText() + " .. " + answer.path("until").asText() + ", "
                    + dev.allot.core.model.Words.count(answer.path("clusterGpus").asInt(), "GPU"));
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode a : answer.path("allocations")) {
                double used = a.path("gpuSeconds").asDouble();
                double owed = a.path("entitledGpuSeconds").asDouble();
                rows.add(List.of(a.path("path").asText(), percent(a.path("entitlement").asDouble()), hours(used),
                        hours(owed), owed > 0 ? percent(used / owed) : "-"));
            }
            table(out, List.of("ALLOCATION", "ENTITLED", "RUN GPU-H", "ENTITLED GPU-H", "RUN/ENTITLED"), rows);
            out.println("(run: GPU-hours run in the window; fair share, as allot explain shows, charges also the unrun"
                    + " part of running work's protected minimum runtimes)");
            if (answer.path("step").isTextual()) {
                for (JsonNode a : answer.path("allocations")) {
                    out.println();
                    out.println(a.path("path").asText() + " by " + answer.path("step").asText() + ":");
                    List<List<String>> steps = new ArrayList<>();
                    for (JsonNode p : a.path("series")) {
                        double used = p.path("gpuSeconds").asDouble();
                        double owed = p.path("entitledGpuSeconds").asDouble();
                        steps.add(List.of(p.path("start").asText(), hours(used), hours(owed),
                                owed > 0 ? percent(used / owed) : "-"));
                    }
                    table(out, List.of("FROM", "RUN GPU-H", "ENTITLED GPU-H", "RUN/ENTITLED"), steps);
                }
            }
        }

        private static String hours(double gpuSeconds) {
            // the same digits as allot explain, so its run part and this read as the same number
            return dev.allot.core.model.Decimals.significant(gpuSeconds / 3600, 3);
        }

        private static String percent(double fraction) {
            return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
        }
    }
}
