package dev.allot.cli;

import dev.allot.core.model.ClusterSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.metrics.PaidBound;
import dev.allot.report.HtmlReport;
import dev.allot.sim.SimulationListener;
import dev.allot.sim.StoryRecorder;
import dev.allot.sim.detail.DetailRecorder;
import dev.allot.sim.detail.RunDetail;
import dev.allot.sim.explain.ExplainAt;
import dev.allot.sim.explain.ExplainRequest;
import dev.allot.sim.explain.ExplainText;
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
        header = "Replay a scenario folder or a real trace through policies and compare their metrics.",
        description = {"Replay a scenario folder (cluster.yaml, allocations.yaml, workloads.csv|jsonl or trace.yaml,"
                        + " optional policy.yaml), or a real trace with --trace, through one or more policies and"
                        + " print their metrics side by side."})
final class SimulateCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "the scenario folder (or give --trace)")
    Path dir;

    @picocli.CommandLine.Mixin
    TraceOptions traceOptions = new TraceOptions();

    @Option(names = "--policy", split = ",", paramLabel = "POLICY", defaultValue = "allocation,legacy",
            description = "policies to run, comma-separated (default: ${DEFAULT-VALUE}); see 'allot policies'")
    List<String> policies;

    @Option(names = "--json", paramLabel = "FILE", description = "write the metrics as JSON (schema allot.simulate/1)")
    Path json;

    @Option(names = "--report", paramLabel = "FILE",
            description = "write the visual report: one self-contained HTML file (per-GPU timeline, usage against entitlement, waits, preemptions)")
    Path report;

    @Option(names = "--workloads-out", paramLabel = "FILE", description = "write one CSV row per workload and policy")
    Path workloadsOut;

    @Option(names = "--events-out", paramLabel = "FILE",
            description = "write the story of every run: each start, preemption, completion and drain, with the policy's reason")
    Path eventsOut;

    @Option(names = "--check", description = "verify the invariants after every event (slower; fails loudly)")
    boolean check;

    @Option(names = "--stop-delay", paramLabel = "DURATION", defaultValue = "0s",
            description = "how long a preempted workload takes to stop, holding its GPUs; work placed on them waits and"
                    + " is protected from its launch (default: ${DEFAULT-VALUE}, stops at once)")
    String stopDelay;

    @Option(names = "--paid-bound", description = "also measure, every 15 minutes, the paid fraction and the most any"
            + " schedule could have paid (whole jobs of each allocation's demand in the healthy GPUs), the worst"
            + " allocation at those instants, and the most any schedule could have paid while paying every allocation"
            + " 95%% (slower)")
    boolean paidBound;

    @Option(names = "--lenient", description = "skip malformed or impossible workload rows instead of failing;"
            + " says how many and quotes the first " + SkippedRows.SHOWN + " with their file:line and reason")
    boolean lenient;

    @Option(names = "--submit-times", paramLabel = "FILE",
            description = "take each workload's submission time from a run's workloads CSV (allot replay"
                    + " --workloads-out), rounded down to the second as the live service counts it")
    Path submitTimes;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "override a setting: lookback=3d, max-min-runtime=4h, allocation.fairshare-recheck=1m, ...")
    List<String> overrides = new ArrayList<>();

    @Option(names = "--explain", paramLabel = "ID@TIME",
            description = "explain a workload in the allocation run at an instant since the scenario's start, as"
                    + " 'allot explain' would have answered then (before that instant's cycle), e.g. w000037@3h30m;"
                    + " repeatable")
    List<String> explain = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        OutputFiles.check("--json", json);
        OutputFiles.check("--report", report);
        OutputFiles.check("--workloads-out", workloadsOut);
        OutputFiles.check("--events-out", eventsOut);
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("--json", json);
        outputs.put("--report", report);
        outputs.put("--workloads-out", workloadsOut);
        outputs.put("--events-out", eventsOut);
        Map<String, Path> inputs = traceOptions.inputs(dir);
        if (submitTimes != null) {
            inputs.put("--submit-times", submitTimes);
        }
        OutputFiles.checkDistinct(outputs, inputs);
        PolicyRegistry registry = PolicyRegistry.standard();
        policies = PolicyList.check(policies, registry);
        long stopDelaySeconds;
        try {
            stopDelaySeconds = dev.allot.core.model.Durations.parse(stopDelay).getSeconds();
        } catch (IllegalArgumentException e) {
            stopDelaySeconds = -1;
        }
        if (stopDelaySeconds < 0 || stopDelaySeconds > Simulator.Options.MAX_STOP_DELAY_SECONDS) {
            throw new IllegalArgumentException("--stop-delay: expected a duration from 0s to 1d such as 0s, 3s or 1m"
                    + " (how long a preempted process takes to stop), got '" + stopDelay + "'");
        }
        PolicyList.checkSettingsRun(overrides.stream().map(o -> o.indexOf('=') > 0 ? o.substring(0, o.indexOf('='))
                .trim() : o).toList(), policies, registry);
        Scenario scenario = traceOptions.scenario(dir, lenient, registry);
        scenario = applyOverrides(scenario, overrides, registry);
        if (submitTimes != null) {
            scenario = dev.allot.sim.report.SubmitTimes.apply(scenario, submitTimes);
        }
        ScenarioNotes.print(out, scenario.notes());
        SkippedRows.print(out, scenario.rejected());
        List<ExplainRequest> questions = explainRequests(scenario);
        StringBuilder explanations = new StringBuilder();
        List<SimulationResult> results = new ArrayList<>();
        List<RunDetail> details = new ArrayList<>();
        boolean detailed = json != null || report != null;
        StringBuilder stories = new StringBuilder();
        for (String p : policies) {
            StoryRecorder story = StoryRecorder.detailed();
            DetailRecorder detail = new DetailRecorder();
            SimulationListener listener = SimulationListener.both(eventsOut != null ? story : SimulationListener.NONE,
                    detailed ? detail : SimulationListener.NONE);
            Simulator.Options options = Simulator.Options.defaults().withCheck(check).withListener(listener)
                    .withStopDelaySeconds(stopDelaySeconds)
                    .withPaidBoundStepSeconds(paidBound ? PaidBound.DEFAULT_STEP_SECONDS : 0);
            ExplainAt asked = null;
            if (!questions.isEmpty() && p.trim().equals(AllocationPolicy.NAME)) {
                asked = new ExplainAt(questions, (AllocationPolicy) registry.get(AllocationPolicy.NAME)
                        .create(scenario.policyConfig().settingsFor(registry.get(AllocationPolicy.NAME))));
                options = options.withAgent(asked);
            }
            SimulationResult result = new Simulator(scenario, registry, p.trim(), options).run();
            results.add(result);
            if (asked != null) {
                explanations.append(ExplainText.render(p.trim(), asked, scenario.workloads(),
                        result.run().endSeconds()));
            }
            if (detailed) {
                details.add(detail.finish(result));
            }
            if (eventsOut != null) {
                stories.append("# policy ").append(p.trim()).append('\n');
                story.lines().forEach(l -> stories.append(l).append('\n'));
            }
        }
        out.print(TextReport.render(scenario, results));
        if (!explanations.isEmpty()) {
            out.println();
            out.print(explanations);
        }
        JsonReport.Document document = detailed ? JsonReport.document(scenario, results, details) : null;
        if (json != null) {
            OutputFiles.writeText("--json", json, w -> JsonReport.write(document, w));
            out.println("wrote " + json);
        }
        if (report != null) {
            OutputFiles.write("--report", report, f -> HtmlReport.write(document, f));
            out.println("wrote " + report + " (" + String.format("%,d", Files.size(report) / 1024) + " KiB)");
        }
        if (workloadsOut != null) {
            OutputFiles.writeText("--workloads-out", workloadsOut, w -> WorkloadsCsv.write(results, w));
            out.println("wrote " + workloadsOut);
        }
        if (eventsOut != null) {
            OutputFiles.writeText("--events-out", eventsOut, w -> w.append(stories));
            out.println("wrote " + eventsOut);
        }
        out.flush();
        return 0;
    }

    /** The {@code --explain} requests, each of a workload of the scenario, with the allocation policy run. */
    private List<ExplainRequest> explainRequests(Scenario scenario) {
        if (explain.isEmpty()) {
            return List.of();
        }
        if (policies.stream().noneMatch(p -> p.trim().equals(AllocationPolicy.NAME))) {
            throw new IllegalArgumentException("--explain explains the allocation policy's decisions (the rules"
                    + " 'allot explain' states); add allocation to --policy, e.g. --policy allocation,"
                    + String.join(",", policies));
        }
        java.util.Set<String> ids = new java.util.HashSet<>();
        scenario.workloads().forEach(w -> ids.add(w.id()));
        List<ExplainRequest> out = new ArrayList<>();
        for (String e : explain) {
            ExplainRequest r;
            try {
                r = ExplainRequest.parse(e);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("--explain: " + ex.getMessage());
            }
            if (!ids.contains(r.workloadId())) {
                throw new IllegalArgumentException("--explain: no workload '" + r.workloadId() + "' in the scenario"
                        + " (its ids are those of workloads.csv, or of the trace's import, as --workloads-out and"
                        + " --events-out write them)");
            }
            out.add(r);
        }
        return out;
    }

    static Scenario applyOverrides(Scenario scenario, List<String> overrides, PolicyRegistry registry) {
        PolicyConfig config = scenario.policyConfig();
        for (Map.Entry<String, String> kv : KeyValues.parse("--set", overrides).entrySet()) {
            config = config.override(registry, kv.getKey(), kv.getValue());
        }
        for (String name : config.perPolicy().keySet()) {
            config.settingsFor(registry.get(name));
        }
        return scenario.withPolicyConfig(config);
    }
}
