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

    /** What {@code allot report} reads, and how to make it: the hint for a file that is neither. */
    static final String ACCEPTS = "give a page written by 'allot simulate --report' or 'allot report', or the file"
            + " 'allot simulate SCENARIO --json FILE' writes";

    /**
     * A report page written earlier: its embedded run data is re-rendered with this version's page code. A file that
     * is neither a page nor JSON (its first character, after white space, is not '{' or '[') is refused here: the
     * JSON reader's syntax error ("malformed JSON: Unexpected character ('<' (code 60))", "Unrecognized token
     * 'policy'") said what the parser met, not what the file is. An empty file is left to the JSON reader.
     */
    private static boolean isHtml(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        String head;
        try (var in = Files.newInputStream(file)) {
            head = new String(in.readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8).replace("\uFEFF", "")
                    .strip();
        }
        if (head.regionMatches(true, 0, "<!DOCTYPE html", 0, 14)) {
            return true;
        }
        if (!head.isEmpty() && head.charAt(0) != '{' && head.charAt(0) != '[') {
            throw new InputException(file.toString(), 0, 0, null, "not an Allot report page nor the --json output of"
                    + " 'allot simulate'; " + ACCEPTS);
        }
        return false;
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
