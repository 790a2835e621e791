package dev.allot.cli;

import dev.allot.report.HtmlReport;
import dev.allot.sim.input.InputException;
import dev.allot.sim.report.JsonReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
        header = "Render a saved run as the visual report, one HTML file that opens offline.",
        description = {"Render a saved run (the --json output of 'allot simulate') as the visual report: one"
                        + " self-contained HTML file that opens offline."})
final class ReportCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "RESULTS.json",
            description = "the saved run: the --json output of 'allot simulate', or a report page written earlier")
    Path results;

    @Option(names = "--report", required = true, paramLabel = "FILE", description = "the HTML file to write")
    Path report;

    /** A report page written earlier: its embedded run data is re-rendered with this version's page code. */
    private static boolean isHtml(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        try (var in = Files.newInputStream(file)) {
            String head = new String(in.readNBytes(64), java.nio.charset.StandardCharsets.UTF_8).trim();
            return head.regionMatches(true, 0, "<!DOCTYPE html", 0, 14);
        }
    }

    private static JsonReport.Document fromReport(Path file) throws IOException {
        String html = Files.readString(file, java.nio.charset.StandardCharsets.UTF_8);
        String json;
        try {
            json = HtmlReport.embeddedJson(html);
        } catch (RuntimeException e) {
            throw new InputException(file.toString(), 0, 0, null, e.getMessage());
        }
        return JsonReport.read(new java.io.StringReader(json), file + " (its embedded run data)");
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        OutputFiles.check("--report", report);
        boolean page = isHtml(results);
        if (!page) { // a page written earlier may be rendered again in its place: its run data is in it
            OutputFiles.checkDistinct(Map.of("--report", report), Map.of("RESULTS.json, the saved run", results));
        }
        JsonReport.Document document = page ? fromReport(results) : JsonReport.read(results);
        OutputFiles.write("--report", report, f -> HtmlReport.write(document, f, results.toString()));
        out.println("wrote " + report + " (" + String.format("%,d", Files.size(report) / 1024) + " KiB)");
        out.flush();
        return 0;
    }
}
