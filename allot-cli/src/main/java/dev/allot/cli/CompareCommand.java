package dev.allot.cli;

import dev.allot.sim.report.RunComparison;
import dev.allot.sim.report.WorkloadsCsv;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot compare A.csv B.csv}: two runs of the same workloads side by side, from their workloads CSVs
 * ({@code simulate --workloads-out}, {@code replay --workloads-out}); the comparison is {@link RunComparison}'s.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        header = "Compare two runs of the same workloads: start times, waits, preemptions, final states.",
        description = {"Compare two workloads CSVs (allot simulate --workloads-out, allot replay --workloads-out):"
                + " how far apart each workload started (B minus A: median, p90, max of the absolute error), the"
                + " waits side by side, the preemptions of each, and the workloads whose final states differ.",
                "Example: allot compare sim.csv live.csv"})
final class CompareCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "A.csv", description = "the first run, e.g. the simulator's")
    Path a;

    @Parameters(index = "1", paramLabel = "B.csv", description = "the second run, e.g. the live service's")
    Path b;

    @Option(names = "--policy", paramLabel = "NAME",
            description = "the policy to take from a file that holds several (default: the one the other file holds)")
    String policy;

    @Override
    public Integer call() {
        List<WorkloadsCsv.Row> rowsA = WorkloadsCsv.read(a);
        List<WorkloadsCsv.Row> rowsB = WorkloadsCsv.read(b);
        List<RunComparison.Side> sides = RunComparison.choose(a.toString(), rowsA, b.toString(), rowsB, policy);
        spec.commandLine().getOut().print(RunComparison.render(RunComparison.compare(sides.get(0), sides.get(1))));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
