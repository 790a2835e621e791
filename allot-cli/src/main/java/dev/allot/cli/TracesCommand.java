package dev.allot.cli;

import dev.allot.core.policy.SettingSpec;
import dev.allot.sim.trace.ContractRule;
import dev.allot.sim.trace.TraceFormat;
import dev.allot.sim.trace.TraceFormats;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

/** {@code allot traces}: the trace formats Allot imports, their settings, and the contract rule's settings. */
@Command(name = "traces", mixinStandardHelpOptions = true,
        description = "List the trace formats 'allot simulate --trace' reads and the settings of the contract rule.")
final class TracesCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.println("trace formats (allot simulate --trace FORMAT:PATH --nodes COUNTxGPUS, or trace.yaml):");
        for (TraceFormat f : TraceFormats.standard().all()) {
            out.printf("  %-14s %s%n", f.name(), f.description());
            for (SettingSpec s : f.settings()) {
                out.printf("  %-14s   --trace-set %s=...  (default %s)  %s%n", "", s.key(), s.defaultValue(),
                        s.description());
            }
        }
        out.println();
        out.println("contract rule, for what a trace lacks (--contract KEY=VALUE, or the contract section of trace.yaml):");
        for (SettingSpec s : ContractRule.SETTINGS) {
            out.printf("  %-25s (default %s)  %s%n", s.key(), s.defaultValue(), s.description());
        }
        out.flush();
        return 0;
    }
}
