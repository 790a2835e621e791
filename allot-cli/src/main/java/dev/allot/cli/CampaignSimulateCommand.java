package dev.allot.cli;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.report.CampaignReport;
import dev.allot.sim.Scenario;
import dev.allot.sim.campaign.CampaignComparison;
import dev.allot.sim.campaign.CampaignSpec;
import dev.allot.sim.campaign.CampaignTable;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import dev.allot.sim.input.ScenarioReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot campaign simulate}: one campaign file under several strategies inside a background load (a preset over
 * seeds, or a scenario folder), plus a run without the campaign per seed for the other allocations' paid fraction,
 * in parallel; prints the comparison table and optionally writes it as JSON and as an HTML report.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        header = "Compare campaign strategies in simulation: makespan, charged and lost GPU-hours, harm to others.",
        description = {"Run a campaign file (see docs/campaigns.md) inside a background load under each strategy"
                        + " (allot, v4, v4.1, all-protected, all-unallocated) under the allocation policy, and once"
                        + " without it, and print per strategy the campaign's makespan, the GPU-hours charged and"
                        + " lost, units done twice, restarts, and the other allocations' paid fraction against the run"
                        + " without the campaign (mean and spread over seeds).",
                "Example: allot campaign simulate --preset lab --seeds 1-5 \\",
                "           --campaign examples/campaign/oracle-eval.yaml --report campaign.html"})
final class CampaignSimulateCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "a scenario folder (or use --preset)")
    Path dir;

    @Option(names = "--preset", paramLabel = "PRESET", description = "generate the background from this preset (lab, big) instead of DIR")
    String preset;

    @Option(names = "--seeds", paramLabel = "SEEDS", defaultValue = "1",
            description = "with --preset: N (seeds 1..N), A-B or a list such as 3,7,10-12 (default: ${DEFAULT-VALUE})")
    String seeds;

    @Option(names = "--days", paramLabel = "N", description = "with --preset: override the preset's number of days")
    Integer days;

    @Option(names = "--campaign", required = true, paramLabel = "FILE", description = "the campaign file (YAML)")
    Path campaignFile;

    @Option(names = "--strategy", split = ",", paramLabel = "NAME",
            description = "strategies to compare, comma-separated (default: all of them, allot first)")
    List<String> strategies;

    /**
     * Campaigns run under Allot's policy: it alone changes a waiting or running job's contract in place (the models
     * of other schedulers keep their own queues and cannot follow such a change).
     */
    static final String POLICY = "allocation";

    @Option(names = "--json", paramLabel = "FILE",
            description = "also write the comparison as JSON (schema " + CampaignTable.SCHEMA + ")")
    Path json;

    @Option(names = "--report", paramLabel = "FILE",
            description = "also write the campaign report: one self-contained HTML file (the table, units done over"
                    + " time per strategy, each shard's runs, for each seed)")
    Path report;

    @Option(names = "--threads", paramLabel = "N", description = "parallel runs (default: the number of cores)")
    Integer threads;

    @Option(names = "--check", description = "verify the simulator's invariants after every event (slow)")
    boolean check;

    @Option(names = "--lenient", description = "skip malformed workload rows when reading DIR; says how many and"
            + " quotes the first " + SkippedRows.SHOWN)
    boolean lenient;

    /**
     * A note when the campaign is submitted after the background's last submission (e.g. {@code submit-at: 3d} in a
     * {@code --days 2} preset): it then meets only what is left of the background, and the table looked like any
     * other (seeds 0, 3 and 5 of a two-day lab gave the same numbers to the decimal, without a word). Null otherwise.
     */
    static String lateNote(CampaignSpec campaign, Scenario background, Long seed) {
        long last = background.lastSubmitSeconds();
        if (campaign.submitAtSeconds() <= last) {
            return null;
        }
        return "note: the campaign is submitted at " + Durations.formatSeconds(campaign.submitAtSeconds())
                + ", after the background's last submission at " + Durations.formatSeconds(last)
                + (seed == null ? "" : " (seed " + seed + ")") + ": it meets only the background work still running"
                + " or waiting then; a later submit-at needs a longer background (--days)";
    }

    @Override
    public Integer call() throws InterruptedException, IOException {
        PrintWriter out = spec.commandLine().getOut();
        PolicyRegistry registry = PolicyRegistry.standard();
        if ((dir == null) == (preset == null)) {
            throw new IllegalArgumentException("give either a scenario folder DIR or --preset NAME");
        }
        List<Long> seedList = preset != null ? Seeds.parse(seeds) : java.util.Collections.singletonList(null);
        if (dir != null && !seeds.trim().equals("1")) {
            throw new IllegalArgumentException("--seeds repeats a generated background: use it with --preset");
        }
        if (dir != null && days != null) {
            throw new IllegalArgumentException("--days changes a preset: use it with --preset");
        }
        if (threads != null && threads < 1) {
            // it ran on one thread without a word, as sweep did
            throw new IllegalArgumentException("--threads expects a whole number >= 1, got " + threads);
        }
        List<CampaignStrategy> chosen = strategies(strategies);
        OutputFiles.check("--json", json);
        OutputFiles.check("--report", report);
        java.util.Map<String, Path> outputs = new java.util.LinkedHashMap<>();
        outputs.put("--json", json);
        outputs.put("--report", report);
        java.util.Map<String, Path> inputs = new java.util.LinkedHashMap<>(OutputFiles.scenarioInputs(dir));
        inputs.put("--campaign", campaignFile);
        OutputFiles.checkDistinct(outputs, inputs);
        Scenario fixed = dir != null ? ScenarioReader.read(dir, lenient, registry) : null;
        if (fixed != null) {
            ScenarioNotes.print(out, fixed.notes());
            SkippedRows.print(out, fixed.rejected());
        }
        GeneratorSpec generator = PresetDays.spec(preset, days);
        Function<Long, Scenario> scenarioFor = fixed != null ? seed -> fixed
                : seed -> ScenarioGenerator.generate(generator, seed).toScenario(preset + "-" + seed);
        Scenario first = fixed != null ? fixed : ScenarioGenerator.generate(generator, seedList.get(0))
                .toScenario(preset + "-" + seedList.get(0));
        AllocationTree tree = first.tree();
        CampaignSpec campaign = ScenarioReader.readCampaign(campaignFile, tree);
        CampaignComparison comparison = new CampaignComparison(campaign, chosen, POLICY, check);
        int n = seedList.size() * (chosen.size() + 1);
        int workers = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(workers, n));
        List<CampaignComparison.Run> runs;
        try (ProgressBar bar = ProgressBars.open("campaign", n)) {
            runs = comparison.run(registry, seedList, scenarioFor, pool, bar::step);
        } finally {
            pool.shutdownNow();
        }
        String scenarioName = fixed != null ? fixed.name() : preset + " preset" + (days != null ? " (" + days
                + " days)" : "") + ", seeds " + seeds;
        CampaignTable.Summary summary = CampaignTable.summarize(runs, campaign, tree, scenarioName, POLICY);
        out.print(CampaignTable.render(summary));
        String late = lateNote(campaign, first, fixed != null ? null : seedList.get(0));
        if (late != null) {
            out.println(late);
        }
        if (json != null) {
            OutputFiles.writeText("--json", json, w -> CampaignTable.writeJson(summary, w));
            out.println("wrote " + json);
        }
        if (report != null) {
            List<CampaignComparison.Run> all = runs;
            OutputFiles.write("--report", report, f -> CampaignReport.write(summary, all, f));
            out.println("wrote " + report + " (" + String.format("%,d", Files.size(report) / 1024) + " KiB)");
        }
        out.flush();
        return 0;
    }

    static List<CampaignStrategy> strategies(List<String> names) {
        if (names == null || names.isEmpty()) {
            return CampaignStrategy.all();
        }
        List<CampaignStrategy> out = new ArrayList<>();
        for (String raw : names) {
            String name = raw.trim();
            CampaignStrategy s = CampaignStrategy.named(name).orElseThrow(() -> new IllegalArgumentException(
                    "--strategy: unknown strategy '" + name + "'; valid: " + String.join(", ", CampaignStrategy.names())));
            if (out.contains(s)) {
                throw new IllegalArgumentException("--strategy names '" + name + "' twice");
            }
            out.add(s);
        }
        return out;
    }
}
