package dev.allot.cli;

import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.SettingSpec;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

/** {@code allot policies}: the policies Allot knows and their settings. */
@Command(name = "policies", mixinStandardHelpOptions = true, description = "List the policies and their settings.")
final class PoliciesCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.println("shared settings (top level of policy.yaml):");
        out.println("  lookback         (default 7d)  the fair-share window");
        out.println("  max-min-runtime  (default 8h)  cap on declared minimum runtimes");
        out.println("  usage-bucket     (default 1h)  resolution of the usage window");
        for (PolicyFactory f : PolicyRegistry.standard().all()) {
            out.println();
            out.println(f.name() + ": " + f.description());
            for (SettingSpec s : f.settings()) {
                out.printf("  %s.%s  (default %s)  %s%n", f.name(), s.key(), s.defaultValue(), s.description());
            }
        }
        out.flush();
        return 0;
    }
}
