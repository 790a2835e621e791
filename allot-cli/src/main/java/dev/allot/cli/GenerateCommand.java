package dev.allot.cli;

import dev.allot.core.model.Words;
import dev.allot.sim.generate.GeneratedScenario;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.sim.input.ScenarioWriter;
import dev.allot.sim.report.TextReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code allot generate DIR}: writes a synthetic scenario folder from a named preset and a seed. */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generate a scenario folder from a preset and a seed (same preset and seed, same files).",
                "Presets: lab (32x8 GPUs, 14 days, ~23k workloads; examples/lab), big (1,024x8 GPUs, 30 days, ~100k)."})
final class GenerateCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "the folder to write")
    Path dir;

    @Option(names = "--preset", paramLabel = "PRESET", defaultValue = "lab", description = "lab or big (default: ${DEFAULT-VALUE})")
    String preset;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "42", description = "random seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--days", paramLabel = "N", description = "override the preset's number of days")
    Integer days;

    @Option(names = "--force", description = "overwrite the scenario files in a folder that already has some, and remove a"
            + " workloads.jsonl, trace.yaml or policy.yaml the new scenario does not have (each named)")
    boolean force;

    /** The files a scenario folder is read from: those --force overwrites or removes. */
    private static final List<String> SCENARIO_FILES = List.of(ScenarioReader.CLUSTER_FILE,
            ScenarioReader.ALLOCATIONS_FILE, ScenarioReader.WORKLOADS_CSV_FILE, ScenarioReader.WORKLOADS_JSONL_FILE,
            ScenarioReader.TRACE_FILE, ScenarioReader.POLICY_FILE);
    /** Those the writer removes when it leaves them out (ScenarioWriter): another source of workloads, the policy. */
    private static final List<String> REMOVED_IF_STALE = List.of(ScenarioReader.WORKLOADS_JSONL_FILE,
            ScenarioReader.TRACE_FILE, ScenarioReader.POLICY_FILE);

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        GeneratorSpec gs = PresetDays.spec(preset, days);
        OutputFiles.checkFolder("DIR", dir); // first: an empty DIR is the working folder, "not empty" blamed it
        // a folder holding other files (notes.txt) is no scenario to overwrite: it was refused as "not empty"
        List<String> present = SCENARIO_FILES.stream().filter(f -> Files.exists(dir.resolve(f))).toList();
        if (!force && !present.isEmpty()) {
            throw new IllegalArgumentException(dir + " already holds scenario files (" + String.join(", ", present)
                    + "); pass --force to overwrite them");
        }
        GeneratedScenario g = ScenarioGenerator.generate(gs, seed);
        OutputFiles.writeFolder("DIR", dir, () -> ScenarioWriter.write(dir, g.nodeGroups(), g.healthEvents(), g.tree(),
                g.workloads(), g.policyConfig()));
        // the workloads in simulate's words: it printed "22879 workloads {debug=17920, eval=1075, ...}", a Java map
        out.printf(Locale.ROOT, "wrote %s: preset %s, seed %d, %,d GPUs, %,d allocations, %s; workloads %s%n",
                dir, preset, seed, g.totalGpus(), g.tree().leafCount(), Words.count(g.healthEvents().size(), "health event"),
                TextReport.workloadsByKind(g.workloads()));
        // the writer removes what would make the folder read otherwise; it did so without a word
        for (String f : REMOVED_IF_STALE) {
            if (present.contains(f) && !Files.exists(dir.resolve(f))) {
                out.printf("removed %s: %s%n", dir.resolve(f), f.equals(ScenarioReader.POLICY_FILE)
                        ? "the generated scenario runs on the default settings"
                        : "a scenario has one source of workloads, here " + ScenarioReader.WORKLOADS_CSV_FILE);
            }
        }
        out.flush();
        return 0;
    }
}
