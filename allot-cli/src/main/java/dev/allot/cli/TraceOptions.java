package dev.allot.cli;

import dev.allot.core.model.ClusterSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.sim.trace.ContractRule;
import dev.allot.sim.trace.TraceFormat;
import dev.allot.sim.trace.TraceFormats;
import dev.allot.sim.trace.TraceImport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options that say where workloads come from: a scenario folder (the command's DIR) or a trace file with the
 * cluster and the rules it lacks. Shared by the commands that read a scenario, as a picocli mixin.
 */
final class TraceOptions {
    @Option(names = "--trace", paramLabel = "FORMAT:PATH",
            description = "replay a trace file instead of a folder (a name ending in .gz is read through gzip);"
                    + " formats: philly, alibaba-openb, swf, tiresias, native (see 'allot traces')")
    String trace;

    @Option(names = "--nodes", paramLabel = "COUNTxGPUS",
            description = "with --trace: the cluster, COUNT nodes of GPUS GPUs each (node-001, ...), e.g. 40x8")
    String nodes;

    @Option(names = "--allocations", paramLabel = "FILE",
            description = "with --trace: the allocation tree, written as allocations.yaml is (default: a flat tree,"
                    + " shares of GPU-hours)")
    Path allocations;

    @Option(names = "--contract", paramLabel = "KEY=VALUE",
            description = "with --trace: a setting of the contract rule for what the trace lacks, e.g. min-runtime=2h")
    List<String> contract = new ArrayList<>();

    @Option(names = "--trace-set", paramLabel = "KEY=VALUE",
            description = "with --trace: a setting of the trace format, e.g. allocation-by=group for swf")
    List<String> traceSettings = new ArrayList<>();

    boolean given() {
        return trace != null;
    }

    /**
     * The files a run reads, described, for {@link OutputFiles#checkDistinct}: the trace file and {@code --allocations}
     * with {@code --trace}, else the scenario folder's files.
     */
    java.util.Map<String, Path> inputs(Path dir) {
        java.util.Map<String, Path> in = new java.util.LinkedHashMap<>();
        if (trace == null) {
            in.putAll(OutputFiles.scenarioInputs(dir));
            return in;
        }
        int colon = trace.indexOf(':');
        if (colon > 0 && colon < trace.length() - 1) {
            in.put("the trace", Path.of(trace.substring(colon + 1)));
        }
        if (allocations != null) {
            in.put("--allocations", allocations);
        }
        return in;
    }

    /** The scenario: the trace when {@code --trace} is given, else the folder {@code dir}. */
    Scenario scenario(Path dir, boolean lenient, PolicyRegistry registry) {
        return trace != null ? readTrace(dir, lenient) : readFolder(dir, lenient, registry);
    }

    private Scenario readFolder(Path dir, boolean lenient, PolicyRegistry registry) {
        if (dir == null) {
            throw new IllegalArgumentException("expected a scenario folder DIR or --trace FORMAT:PATH; see the command's --help");
        }
        checkNoTraceOnly("a scenario folder gives them in its files (cluster.yaml, allocations.yaml, trace.yaml)");
        return ScenarioReader.read(dir, lenient, registry);
    }

    /**
     * Without {@code --trace}, refuses the options that only shape a trace's import, naming them: {@code bench} and
     * {@code forecast accuracy --preset} ignored {@code --nodes 4x8} and ran the default presets for minutes instead.
     * {@code where} says where the scenario takes them from instead. The one rule for every command with these options.
     */
    void checkNoTraceOnly(String where) {
        if (trace != null) {
            return;
        }
        List<String> traceOnly = new ArrayList<>();
        if (nodes != null) {
            traceOnly.add("--nodes");
        }
        if (allocations != null) {
            traceOnly.add("--allocations");
        }
        if (!contract.isEmpty()) {
            traceOnly.add("--contract");
        }
        if (!traceSettings.isEmpty()) {
            traceOnly.add("--trace-set");
        }
        if (!traceOnly.isEmpty()) {
            // "--contract only apply": the verb agrees with one option or several
            throw new IllegalArgumentException(String.join(", ", traceOnly) + (traceOnly.size() == 1 ? " only applies"
                    : " only apply") + " with --trace; " + where);
        }
    }

    private Scenario readTrace(Path dir, boolean lenient) {
        if (dir != null) {
            throw new IllegalArgumentException("expected either a scenario folder DIR or --trace, not both");
        }
        TraceFormats formats = TraceFormats.standard();
        int colon = trace.indexOf(':');
        if (colon <= 0 || colon == trace.length() - 1) {
            throw new IllegalArgumentException("--trace expects FORMAT:PATH such as philly:jobs.csv, got '" + trace
                    + "'; formats: " + String.join(", ", formats.names()));
        }
        TraceFormat format = formats.get(trace.substring(0, colon));
        if (nodes == null) {
            throw new IllegalArgumentException("--trace needs the cluster: --nodes COUNTxGPUS, e.g. --nodes 40x8");
        }
        return TraceImport.of(format, Path.of(trace.substring(colon + 1)))
                .cluster(parseNodes(nodes))
                .tree(allocations == null ? null : readAllocations(allocations))
                .contract(contract.isEmpty() ? null : ContractRule.parse(KeyValues.parse("--contract", contract), "--contract"))
                .formatSettings(KeyValues.parse("--trace-set", traceSettings))
                .lenient(lenient)
                .read();
    }

    /** The most nodes {@code --nodes} builds. */
    static final int MAX_NODES = 1_000_000;

    /** {@code COUNTxGPUS}, e.g. {@code 40x8}: a cluster of COUNT nodes of GPUS GPUs. */
    static ClusterSpec parseNodes(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        int x = t.indexOf('x');
        long count = x <= 0 ? -1 : parseCount(t.substring(0, x));
        long gpus = x <= 0 ? -1 : parseCount(t.substring(x + 1));
        if (count < 0 || gpus < 0) {
            throw new IllegalArgumentException("--nodes expects COUNTxGPUS such as 40x8 (40 nodes of 8 GPUs), got '"
                    + text + "'");
        }
        // In range is said apart from the form: '0x8' and '99999999x8' were refused as if not written COUNTxGPUS.
        if (count < 1 || count > MAX_NODES || !dev.allot.core.rules.NodeGpus.allowed(gpus)
                || count * gpus > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT, "--nodes expects COUNTxGPUS with"
                    + " 1 to %,d nodes of 1 to %,d GPUs (the GPUs of one machine), %,d GPUs in all at most, got '%s'",
                    MAX_NODES, dev.allot.core.rules.NodeGpus.MAX, Integer.MAX_VALUE, text));
        }
        return TraceImport.uniformCluster((int) count, (int) gpus);
    }

    /** Digits: their number, {@link Long#MAX_VALUE} when too long for a long ('99999999999x8' is out of range). */
    private static long parseCount(String s) {
        return dev.allot.sim.input.Values.parseWholeNumberOrMax(s);
    }

    /** The {@code --allocations} tree; a missing file is named with the option and the path as given. */
    private static dev.allot.core.model.AllocationTree readAllocations(Path file) {
        if (!java.nio.file.Files.exists(file)) {
            throw new IllegalArgumentException("--allocations " + file + ": no such file; expected an allocation tree"
                    + " written as a scenario's allocations.yaml is");
        }
        return ScenarioReader.readAllocations(file);
    }
}
