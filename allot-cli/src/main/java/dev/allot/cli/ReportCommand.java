package dev.allot.cli;

import dev.allot.report.DocumentCheck;
import dev.allot.report.HtmlReport;
import dev.allot.sim.report.JsonReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot report RESULTS.json --report FILE}: re-renders a saved run (the {@code --json} of
 * {@code allot simulate}) as the visual report, without simulating again.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Render a saved run (the --json output of 'allot simulate') as the visual report: one",
                "self-contained HTML file that opens offline."})
final class ReportCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "RESULTS.json", description = "the saved run")
    Path results;

    @Option(names = "--report", required = true, paramLabel = "FILE", description = "the HTML file to write")
    Path report;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        JsonReport.Document document = JsonReport.read(results);
        DocumentCheck.validate(document, results.toString());
        HtmlReport.write(document, report);
        out.println("wrote " + report + " (" + String.format("%,d", Files.size(report) / 1024) + " KiB)");
        out.flush();
        return 0;
    }
}
