package dev.allot.cli;

import dev.allot.core.model.ClusterSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.StoryRecorder;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.sim.report.JsonReport;
import dev.allot.sim.report.TextReport;
import dev.allot.sim.report.WorkloadsCsv;
import dev.allot.sim.trace.ContractRule;
import dev.allot.sim.trace.TraceFormat;
import dev.allot.sim.trace.TraceFormats;
import dev.allot.sim.trace.TraceImport;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot simulate DIR} or {@code allot simulate --trace FORMAT:PATH --nodes COUNTxGPUS}: replays a scenario
 * folder, or a real trace on a uniform cluster, through one or more policies and reports side by side.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {"Replay a scenario folder (cluster.yaml, allocations.yaml, workloads.csv|jsonl or trace.yaml,",
                "optional policy.yaml), or a real trace with --trace, through one or more policies and print their",
                "metrics side by side."})
final class SimulateCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "the scenario folder (or give --trace)")
    Path dir;

    @Option(names = "--trace", paramLabel = "FORMAT:PATH",
            description = "replay a trace file instead of a folder; formats: philly, alibaba-openb, swf, tiresias,"
                    + " native (see 'allot traces')")
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

    @Option(names = "--policy", split = ",", defaultValue = "allocation,legacy",
            description = "policies to run, comma-separated (default: ${DEFAULT-VALUE}); see 'allot policies'")
    List<String> policies;

    @Option(names = "--json", paramLabel = "FILE", description = "write the metrics as JSON (schema allot.simulate/1)")
    Path json;

    @Option(names = "--workloads-out", paramLabel = "FILE", description = "write one CSV row per workload and policy")
    Path workloadsOut;

    @Option(names = "--events-out", paramLabel = "FILE",
            description = "write the story of every run: each start, preemption, completion and drain, with the policy's reason")
    Path eventsOut;

    @Option(names = "--check", description = "verify the invariants after every event (slower; fails loudly)")
    boolean check;

    @Option(names = "--lenient", description = "skip malformed or impossible workload rows and count them, instead of failing")
    boolean lenient;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "override a setting: lookback=3d, max-min-runtime=4h, allocation.fairshare-recheck=1m, ...")
    List<String> overrides = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PolicyRegistry registry = PolicyRegistry.standard();
        for (String p : policies) {
            registry.get(p.trim());
        }
        Scenario scenario = trace != null ? readTrace() : readFolder(lenient, registry);
        scenario = applyOverrides(scenario, overrides, registry);
        if (!scenario.rejected().isEmpty()) {
            out.println("skipped " + scenario.rejected().size() + " workload rows (--lenient); the first:");
            scenario.rejected().stream().limit(5).forEach(r -> out.println("  " + r));
        }
        List<SimulationResult> results = new ArrayList<>();
        StringBuilder stories = new StringBuilder();
        for (String p : policies) {
            StoryRecorder story = StoryRecorder.detailed();
            Simulator.Options options = Simulator.Options.defaults().withCheck(check);
            if (eventsOut != null) {
                options = options.withListener(story);
            }
            results.add(new Simulator(scenario, registry, p.trim(), options).run());
            if (eventsOut != null) {
                stories.append("# policy ").append(p.trim()).append('\n');
                story.lines().forEach(l -> stories.append(l).append('\n'));
            }
        }
        out.print(TextReport.render(scenario, results));
        if (json != null) {
            try (Writer w = Files.newBufferedWriter(json, StandardCharsets.UTF_8)) {
                JsonReport.write(scenario, results, w);
            }
            out.println("wrote " + json);
        }
        if (workloadsOut != null) {
            try (Writer w = Files.newBufferedWriter(workloadsOut, StandardCharsets.UTF_8)) {
                WorkloadsCsv.write(results, w);
            }
            out.println("wrote " + workloadsOut);
        }
        if (eventsOut != null) {
            Files.writeString(eventsOut, stories, StandardCharsets.UTF_8);
            out.println("wrote " + eventsOut);
        }
        out.flush();
        return 0;
    }

    private Scenario readFolder(boolean lenient, PolicyRegistry registry) {
        if (dir == null) {
            throw new IllegalArgumentException("expected a scenario folder DIR or --trace FORMAT:PATH; see 'allot"
                    + " simulate --help'");
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
            throw new IllegalArgumentException(String.join(", ", traceOnly) + " only apply with --trace; a scenario"
                    + " folder gives them in its files (cluster.yaml, allocations.yaml, trace.yaml)");
        }
        return ScenarioReader.read(dir, lenient, registry);
    }

    private Scenario readTrace() {
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
                .tree(allocations == null ? null : ScenarioReader.readAllocations(allocations))
                .contract(contract.isEmpty() ? null : ContractRule.parse(keyValues("--contract", contract), "--contract"))
                .formatSettings(keyValues("--trace-set", traceSettings))
                .lenient(lenient)
                .read();
    }

    /** {@code COUNTxGPUS}, e.g. {@code 40x8}: a cluster of COUNT nodes of GPUS GPUs. */
    static ClusterSpec parseNodes(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        int x = t.indexOf('x');
        long count = x <= 0 ? -1 : parseCount(t.substring(0, x));
        long gpus = x <= 0 ? -1 : parseCount(t.substring(x + 1));
        if (count < 1 || gpus < 1 || count > 1_000_000 || count * gpus > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--nodes expects COUNTxGPUS such as 40x8 (40 nodes of 8 GPUs), got '"
                    + text + "'");
        }
        return TraceImport.uniformCluster((int) count, (int) gpus);
    }

    private static long parseCount(String s) {
        if (s.isEmpty() || s.length() > 9 || !s.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Long.parseLong(s);
    }

    private static Map<String, String> keyValues(String option, List<String> given) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String o : given) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(option + " expects KEY=VALUE, got '" + o + "'");
            }
            out.put(o.substring(0, eq).trim(), o.substring(eq + 1).trim());
        }
        return out;
    }

    static Scenario applyOverrides(Scenario scenario, List<String> overrides, PolicyRegistry registry) {
        PolicyConfig config = scenario.policyConfig();
        for (String o : overrides) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--set expects KEY=VALUE, got '" + o + "'");
            }
            String key = o.substring(0, eq).trim();
            int dot = key.indexOf('.');
            if (dot > 0) {
                registry.get(key.substring(0, dot));
            }
            config = config.with(key, o.substring(eq + 1).trim());
        }
        for (String name : config.perPolicy().keySet()) {
            config.settingsFor(registry.get(name));
        }
        return scenario.withPolicyConfig(config);
    }
}
