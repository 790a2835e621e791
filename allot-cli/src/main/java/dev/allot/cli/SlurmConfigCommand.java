package dev.allot.cli;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.slurm.SlurmPolicy;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.slurm.ModelConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code allot slurm-config}: the Slurm configuration of Allot's {@code slurm} model for an allocation tree and a
 * policy file ({@link ModelConfig}): {@code sacctmgr} commands and {@code slurm.conf} settings, printed or written to
 * a folder as {@code sacctmgr.sh} and {@code slurm.conf}.
 */
@Command(name = "slurm-config", mixinStandardHelpOptions = true,
        header = "The sacctmgr commands and slurm.conf settings that make Slurm run the slurm model's configuration.",
        description = {"From allocations.yaml and policy.yaml (its 'slurm' section), writes the accounts (the"
                        + " allocation tree with its shares), the protected and preemptible QOS, and the priority,"
                        + " backfill and preemption settings, with comments where Slurm and the model differ.",
                "Example: allot slurm-config --allocations allocations.yaml \\",
                "           --policy policy.yaml --user alice --out slurm"})
final class SlurmConfigCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--allocations", required = true, paramLabel = "FILE", description = "the allocation tree (allocations.yaml)")
    Path allocations;

    @Option(names = "--policy", paramLabel = "FILE",
            description = "policy settings (policy.yaml); its 'slurm' section is used (default: the model's defaults)")
    Path policy;

    @Option(names = "--out", paramLabel = "DIR",
            description = "write DIR/sacctmgr.sh and DIR/slurm.conf instead of printing them")
    Path out;

    @Option(names = "--user", paramLabel = "NAME",
            description = "a Slurm user who runs jobs, added to every leaf account (repeatable)")
    List<String> users = new ArrayList<>();

    @Option(names = "--sched-interval", paramLabel = "DURATION", defaultValue = "60s",
            description = "Slurm's sched_interval (default: ${DEFAULT-VALUE}, Slurm's)")
    String schedInterval;

    @Option(names = "--bf-interval", paramLabel = "DURATION", defaultValue = "30s",
            description = "Slurm's bf_interval (default: ${DEFAULT-VALUE}, Slurm's)")
    String bfInterval;

    @Option(names = "--bf-resolution", paramLabel = "DURATION", defaultValue = "60s",
            description = "Slurm's bf_resolution (default: ${DEFAULT-VALUE}, Slurm's)")
    String bfResolution;

    @Override
    public Integer call() {
        PrintWriter w = spec.commandLine().getOut();
        if (out != null) {
            OutputFiles.checkFolder("--out", out);
        }
        AllocationTree tree = ScenarioReader.readAllocations(allocations);
        PolicyRegistry registry = PolicyRegistry.standard();
        PolicyConfig config = policy == null ? PolicyConfig.defaults() : ScenarioReader.readPolicy(policy, registry);
        SlurmPolicy.Config model = ((SlurmPolicy) config.create(registry, SlurmPolicy.NAME)).config();
        ModelConfig.Options options = ModelConfig.Options.DEFAULTS.withUsers(users)
                .withIntervals(seconds("--sched-interval", schedInterval), seconds("--bf-interval", bfInterval),
                        seconds("--bf-resolution", bfResolution));
        ModelConfig.Output o = ModelConfig.of(tree, model, options);
        if (out == null) {
            w.println("# ---- sacctmgr.sh");
            w.print(o.sacctmgr());
            w.println();
            w.println("# ---- slurm.conf");
            w.print(o.slurmConf());
        } else {
            Path script = out.resolve("sacctmgr.sh");
            Path conf = out.resolve("slurm.conf");
            OutputFiles.writeText("--out", script, x -> x.write(o.sacctmgr()));
            OutputFiles.writeText("--out", conf, x -> x.write(o.slurmConf()));
            w.println("wrote " + script + " (" + o.accounts().size() + " accounts, " + users.size() + " users)");
            w.println("wrote " + conf);
        }
        w.flush();
        return 0;
    }

    private static long seconds(String option, String text) {
        long s;
        try {
            s = Durations.parse(text).getSeconds();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": expected a duration such as 30s or 2m, got '" + text + "'");
        }
        if (s < 1) {
            throw new IllegalArgumentException(option + ": expected at least 1s, got '" + text + "'");
        }
        return s;
    }
}
