package dev.allot.sim.input;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * Writes a scenario folder that {@link ScenarioReader} reads back: {@code cluster.yaml} (no {@code start}; health
 * times as compact durations from time 0), {@code allocations.yaml}, {@code workloads.csv} (all twelve columns,
 * rows sorted by submit time then id, submit in plain seconds) and {@code policy.yaml} with only the values that
 * differ from the defaults (the file is left out, and a stale one deleted, when there are none). A stale
 * {@code workloads.jsonl} or {@code trace.yaml} is deleted too, since a folder may hold only one source of workloads
 * (the trace file a {@code trace.yaml} named is left alone).
 *
 * <p>The output depends only on the arguments: same input, same bytes ({@code \n} line ends, UTF-8).
 */
public final class ScenarioWriter {
    private static final Set<String> YAML_WORDS = Set.of("true", "false", "yes", "no", "on", "off", "y", "n",
            "null", "~");

    private ScenarioWriter() {
    }

    /**
     * Writes the scenario into {@code dir}, creating the folder if needed and replacing the files it writes.
     *
     * @param config per-policy settings are written as given; shared values only when not the default
     */
    public static void write(Path dir, List<NodeGroup> groups, List<HealthEvent> health, AllocationTree tree,
                             List<WorkloadSpec> workloads, PolicyConfig config) {
        try {
            Files.createDirectories(dir);
            // Each file whole or not at all: Ctrl-C while a big preset's workloads.csv was written left it cut short,
            // a scenario that read with fewer workloads. The long one first: interrupted while it is written, a
            // folder being replaced (--force) keeps all its old files; the small ones after it take milliseconds.
            WholeFiles.write(dir.resolve(ScenarioReader.WORKLOADS_CSV_FILE), f -> {
                try (BufferedWriter w = Files.newBufferedWriter(f, StandardCharsets.UTF_8)) {
                    writeCsv(w, workloads);
                }
            });
            writeText(dir.resolve(ScenarioReader.CLUSTER_FILE), clusterYaml(groups, health));
            writeText(dir.resolve(ScenarioReader.ALLOCATIONS_FILE), allocationsYaml(tree));
            Files.deleteIfExists(dir.resolve(ScenarioReader.WORKLOADS_JSONL_FILE));
            // A trace.yaml is a source of workloads too: left beside workloads.csv, the folder would not read.
            Files.deleteIfExists(dir.resolve(ScenarioReader.TRACE_FILE));
            String policy = policyYaml(config);
            Path policyPath = dir.resolve(ScenarioReader.POLICY_FILE);
            if (policy.isEmpty()) {
                Files.deleteIfExists(policyPath);
            } else {
                writeText(policyPath, policy);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write scenario to " + dir, e);
        }
    }

    private static void writeText(Path file, String text) throws IOException {
        WholeFiles.write(file, f -> Files.writeString(f, text, StandardCharsets.UTF_8));
    }

    static String clusterYaml(List<NodeGroup> groups, List<HealthEvent> health) {
        StringBuilder sb = new StringBuilder("node-groups:\n");
        for (NodeGroup g : groups) {
            sb.append("  - name-prefix: ").append(yamlString(g.namePrefix())).append('\n');
            sb.append("    count: ").append(g.count()).append('\n');
            sb.append("    gpus: ").append(g.gpus()).append('\n');
            sb.append("    gpu-type: ").append(yamlString(g.gpuType())).append('\n');
            if (!g.labels().isEmpty()) {
                sb.append("    labels: {");
                String sep = "";
                for (Map.Entry<String, String> e : g.labels().entrySet()) {
                    sb.append(sep).append(yamlString(e.getKey())).append(": ").append(yamlString(e.getValue()));
                    sep = ", ";
                }
                sb.append("}\n");
            }
        }
        if (!health.isEmpty()) {
            sb.append("health-events:\n");
            for (HealthEvent e : health) {
                sb.append("  - node: ").append(yamlString(e.node())).append('\n');
                sb.append("    at: ").append(Durations.formatSeconds(e.atSeconds())).append('\n');
                sb.append("    state: ").append(e.state().name().toLowerCase(Locale.ROOT)).append('\n');
            }
        }
        return sb.toString();
    }

    static String allocationsYaml(AllocationTree tree) {
        StringBuilder sb = new StringBuilder();
        allocation(sb, tree, 0, "");
        return sb.toString();
    }

    private static void allocation(StringBuilder sb, AllocationTree tree, int node, String indent) {
        // The first key of a list item follows "- "; the others line up under it.
        sb.append("name: ").append(yamlString(tree.name(node))).append('\n');
        if (tree.parent(node) >= 0) {
            sb.append(indent).append("share: ").append(number(tree.share(node))).append('\n');
        }
        List<String> managers = tree.managers(node);
        if (!managers.isEmpty()) {
            sb.append(indent).append("managers: [");
            for (int i = 0; i < managers.size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(yamlString(managers.get(i)));
            }
            sb.append("]\n");
        }
        if (!tree.isLeaf(node)) {
            sb.append(indent).append("children:\n");
            String childIndent = indent + "    ";
            for (int c : tree.children(node)) {
                sb.append(indent).append("  - ");
                allocation(sb, tree, c, childIndent);
            }
        }
    }

    static void writeCsv(Appendable out, List<WorkloadSpec> workloads) throws IOException {
        out.append(String.join(",", WorkloadsReader.COLUMNS)).append('\n');
        StringBuilder sb = new StringBuilder(128);
        for (WorkloadSpec w : Scenario.sorted(workloads)) {
            sb.setLength(0);
            csvCell(sb, w.id());
            sb.append(',').append(w.submitSeconds()).append(',');
            csvCell(sb, w.allocation());
            sb.append(',');
            csvCell(sb, w.user());
            sb.append(',').append(w.gpus()).append(',');
            if (w.gpusPerNode() > 0) {
                sb.append(w.gpusPerNode());
            }
            sb.append(',').append(Durations.format(w.duration()));
            sb.append(',').append(Durations.format(w.minRuntime()));
            sb.append(',').append(w.resumable());
            sb.append(',').append(w.priority().label()).append(',');
            if (w.checkpointEvery() != null) {
                sb.append(Durations.format(w.checkpointEvery()));
            }
            sb.append(',');
            csvCell(sb, w.kind());
            sb.append('\n');
            out.append(sb);
        }
    }

    /** Shared values that differ from the defaults, then every non-empty policy section; empty when none. */
    static String policyYaml(PolicyConfig config) {
        StringBuilder sb = new StringBuilder();
        SchedulerConfig s = config.scheduler();
        sharedValue(sb, "lookback", s.lookback(), SchedulerConfig.DEFAULT_LOOKBACK);
        sharedValue(sb, "max-min-runtime", s.maxMinRuntime(), SchedulerConfig.DEFAULT_MAX_MIN_RUNTIME);
        // The reader shrinks a missing usage-bucket to a short lookback, so only a different value is written.
        Duration impliedBucket = SchedulerConfig.DEFAULT_USAGE_BUCKET.compareTo(s.lookback()) > 0
                ? s.lookback() : SchedulerConfig.DEFAULT_USAGE_BUCKET;
        sharedValue(sb, "usage-bucket", s.usageBucket(), impliedBucket);
        for (Map.Entry<String, SortedMap<String, String>> section : config.perPolicy().entrySet()) {
            if (section.getValue().isEmpty()) {
                continue;
            }
            sb.append(yamlString(section.getKey())).append(":\n");
            for (Map.Entry<String, String> e : section.getValue().entrySet()) {
                sb.append("  ").append(yamlString(e.getKey())).append(": ").append(settingValue(e.getValue())).append('\n');
            }
        }
        return sb.toString();
    }

    private static void sharedValue(StringBuilder sb, String key, Duration value, Duration def) {
        if (!value.equals(def)) {
            sb.append(key).append(": ").append(Durations.format(value)).append('\n');
        }
    }

    /**
     * A setting's value: settings are typed scalars (durations, numbers, booleans), so words of letters, digits,
     * {@code . _ - +} starting with a letter or digit stay plain; the reader keeps a scalar's text as written.
     */
    static String settingValue(String s) {
        if (s.isEmpty() || !Character.isLetterOrDigit(s.charAt(0)) || YAML_WORDS.contains(s.toLowerCase(Locale.ROOT))
                && !s.equalsIgnoreCase("true") && !s.equalsIgnoreCase("false")) {
            return yamlString(s);
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c < 0x80 && Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-' || c == '+')) {
                return yamlString(s);
            }
        }
        return s;
    }

    /** A whole number without a fraction, anything else as Java prints it (which reads back exactly). */
    static String number(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }

    /**
     * A YAML scalar: plain when it is a simple word that YAML would not take for a number, boolean or null,
     * otherwise double-quoted with escapes.
     */
    static String yamlString(String s) {
        if (isPlain(s)) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static boolean isPlain(String s) {
        if (s.isEmpty() || YAML_WORDS.contains(s.toLowerCase(Locale.ROOT))) {
            return false;
        }
        char first = s.charAt(0);
        if (!(Character.isLetter(first) || first == '_')) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.' || c == '/')) {
                return false;
            }
        }
        return true;
    }

    /** A CSV cell, quoted when it holds a separator, quote, line break, surrounding space or a leading '#'. */
    private static void csvCell(StringBuilder sb, String s) {
        boolean quote = !s.isEmpty() && (s.charAt(0) == '#' || Character.isWhitespace(s.charAt(0))
                || Character.isWhitespace(s.charAt(s.length() - 1)));
        for (int i = 0; !quote && i < s.length(); i++) {
            char c = s.charAt(i);
            quote = c == ',' || c == '"' || c == '\n' || c == '\r';
        }
        if (!quote) {
            sb.append(s);
            return;
        }
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') {
                sb.append('"');
            }
            sb.append(c);
        }
        sb.append('"');
    }
}
