package dev.allot.cli;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.sim.Simulator;
import dev.allot.sim.metrics.PaidBound;
import dev.allot.sim.sweep.Sweep;
import dev.allot.sim.sweep.SweepTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot sweep}: runs the cross product of setting values and policies (and, for a generated scenario, of
 * seeds) in parallel on all cores, and prints one table of the headline metrics per run.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
        header = "Run the cross product of settings, policies and seeds and tabulate the headline metrics.",
        description = {"Sweep settings: run the cross product of --set values and policies in parallel and tabulate"
                        + " the headline metrics. With --preset and --seeds N, repeat a generated scenario over N"
                        + " seeds and report the mean and spread."})
final class SweepCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "a scenario folder (or use --preset)")
    Path dir;

    @Option(names = "--preset", paramLabel = "PRESET", description = "generate the scenario from this preset (lab, big) instead of reading DIR")
    String preset;

    @Option(names = "--seeds", paramLabel = "SEEDS", defaultValue = "1", description = "with --preset: N (seeds 1..N), A-B or a list such as 3,7,10-12; at most 10,000 (default: ${DEFAULT-VALUE})")
    String seeds;

    @Option(names = "--days", paramLabel = "N",
            description = "with --preset: override the preset's number of days (as generate and forecast accuracy take)")
    Integer days;

    @Option(names = "--policy", split = ",", paramLabel = "POLICY", defaultValue = "allocation", description = "policies (default: ${DEFAULT-VALUE})")
    List<String> policies;

    @Option(names = "--set", paramLabel = "KEY=V1,V2,...", description = "a setting and the values to try, e.g. lookback=1d,3d,7d")
    List<String> sets = new ArrayList<>();

    @Option(names = "--csv", paramLabel = "FILE", description = "also write one CSV row per run")
    Path csv;

    @Option(names = "--threads", paramLabel = "N", description = "parallel runs (default: the number of cores)")
    Integer threads;

    @Option(names = "--paid-bound", description = "also measure, every 15 minutes, the paid fraction and the most any"
            + " schedule could have paid, the worst allocation at those instants, and the most any schedule could have"
            + " paid while paying every allocation 95%% (columns paid_instants, paid_bound, worst_instants,"
            + " paid_bound_worst95; slower)")
    boolean paidBound;

    @Option(names = "--lenient", description = "skip malformed workload rows when reading DIR; says how many and"
            + " quotes the first " + SkippedRows.SHOWN)
    boolean lenient;

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PolicyRegistry registry = PolicyRegistry.standard();
        policies = PolicyList.check(policies, registry);
        if ((dir == null) == (preset == null)) {
            throw new IllegalArgumentException("give either a scenario folder DIR or --preset NAME");
        }
        List<Long> presetSeeds = Seeds.parse(seeds);
        if (dir != null && !seeds.trim().equals("1")) {
            throw new IllegalArgumentException("--seeds repeats a generated scenario: use it with --preset");
        }
        Map<String, List<String>> grid = new LinkedHashMap<>();
        for (String s : sets) {
            int eq = s.indexOf('=');
            if (eq <= 0 || eq == s.length() - 1) {
                throw new IllegalArgumentException("--set expects KEY=V1,V2,..., got '" + s + "'");
            }
            String key = s.substring(0, eq).trim();
            if (grid.containsKey(key)) {
                throw new IllegalArgumentException("--set names '" + key + "' twice; list all its values in one --set");
            }
            List<String> values = Arrays.stream(s.substring(eq + 1).split(",")).map(String::trim).toList();
            // A value listed twice ran twice and was tabulated as one row with 'runs 2' and a spread of 0, as if
            // it were two seeds.
            for (int i = 0; i < values.size(); i++) {
                if (values.indexOf(values.get(i)) != i) {
                    throw new IllegalArgumentException("--set " + key + " lists '" + values.get(i)
                            + "' twice; each value runs once, e.g. --set " + key + "=" + String.join(",",
                            values.stream().distinct().toList()));
                }
            }
            grid.put(key, values);
        }
        PolicyList.checkSettingsRun(grid.keySet(), policies, registry);
        if (threads != null && threads < 1) {
            throw new IllegalArgumentException("--threads expects a whole number >= 1, got " + threads);
        }
        OutputFiles.check("--csv", csv);
        OutputFiles.checkDistinct(java.util.Collections.singletonMap("--csv", csv), OutputFiles.scenarioInputs(dir));
        Scenario fixed = dir != null ? ScenarioReader.read(dir, lenient, registry) : null;
        if (fixed != null) {
            ScenarioNotes.print(out, fixed.notes());
            SkippedRows.print(out, fixed.rejected());
        }
        GeneratorSpec gs = PresetDays.spec(preset, days);
        List<Long> seedList = new ArrayList<>();
        if (gs == null) {
            seedList.add(null);
        } else {
            seedList.addAll(presetSeeds);
        }
        Sweep sweep = new Sweep(grid, policies, seedList);
        // Every setting value and policy is checked before the progress bar appears or a scenario is generated; a
        // generated scenario has the default policy settings (ScenarioGenerator), a folder those of its policy.yaml.
        sweep.check(registry, fixed != null ? fixed.policyConfig() : PolicyConfig.defaults());
        int n = sweep.points().size();
        // no more threads than runs: '1 run ... on 100000 threads' said what did not happen
        int workers = Math.min(n, threads != null ? threads : Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Sweep.Run> runs;
        try (ProgressBar bar = ProgressBars.open("sweep", n)) {
            runs = sweep.run(registry, seed -> ScenarioGenerator.generate(gs, seed).toScenario(preset + "-" + seed), fixed,
                    pool, bar::step, Simulator.Options.defaults()
                            .withPaidBoundStepSeconds(paidBound ? PaidBound.DEFAULT_STEP_SECONDS : 0));
        } finally {
            pool.shutdownNow();
        }
        List<String> keys = new ArrayList<>(grid.keySet());
        out.printf("%s (%s x %s x %s) on %s%n", count(n, "run", "runs"),
                count(n / policies.size() / seedList.size(), "setting", "settings"),
                count(policies.size(), "policy", "policies"), count(seedList.size(), "scenario", "scenarios"),
                count(workers, "thread", "threads"));
        out.print(SweepTable.render(SweepTable.rows(runs), keys));
        if (csv != null) {
            OutputFiles.writeText("--csv", csv, w -> SweepTable.writeCsv(runs, keys, w));
            out.println("wrote " + csv);
        }
        out.flush();
        return 0;
    }

    /** {@code 1 setting}, {@code 4 settings}. */
    static String count(int n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }
}
