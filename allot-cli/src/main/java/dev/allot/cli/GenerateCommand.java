package dev.allot.cli;

import dev.allot.core.model.Words;
import dev.allot.sim.generate.GeneratedScenario;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import dev.allot.sim.input.ScenarioWriter;
import dev.allot.sim.report.TextReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
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

    @Option(names = "--force", description = "overwrite the scenario files in a folder that already has some")
    boolean force;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        GeneratorSpec gs = PresetDays.spec(preset, days);
        OutputFiles.checkFolder("DIR", dir); // first: an empty DIR is the working folder, "not empty" blamed it
        if (!force && Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                if (files.findAny().isPresent()) {
                    throw new IllegalArgumentException(dir + " is not empty; pass --force to overwrite its scenario files");
                }
            }
        }
        GeneratedScenario g = ScenarioGenerator.generate(gs, seed);
        OutputFiles.writeFolder("DIR", dir, () -> ScenarioWriter.write(dir, g.nodeGroups(), g.healthEvents(), g.tree(),
                g.workloads(), g.policyConfig()));
        // the workloads in simulate's words: it printed "22879 workloads {debug=17920, eval=1075, ...}", a Java map
        out.printf(Locale.ROOT, "wrote %s: preset %s, seed %d, %,d GPUs, %,d allocations, %s; workloads %s%n",
                dir, preset, seed, g.totalGpus(), g.tree().leafCount(), Words.count(g.healthEvents().size(), "health event"),
                TextReport.workloadsByKind(g.workloads()));
        out.flush();
        return 0;
    }
}
