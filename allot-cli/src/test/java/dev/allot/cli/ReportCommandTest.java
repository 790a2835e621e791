package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.report.HtmlReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot report RESULTS.json --report FILE} re-renders a run saved by {@code allot simulate --json}: the
 * report it writes must carry exactly the data of the report {@code simulate --report} wrote for the same run, and
 * open offline (no external scripts, styles or links). A file it cannot render (missing, malformed, or holding
 * metrics only) is bad input: exit code 2 and a message naming the file, and no report written.
 */
class ReportCommandTest {
    /** A src or href attribute, quoted or not, and its value. */
    private static final Pattern LINK = Pattern.compile(
            "(?i)\\b(src|href)\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)'|([^\\s>\"']+))");

    @TempDir
    Path tmp;

    @TempDir
    static Path shared;

    private static Path saved;
    private static Path direct;

    /** Simulates the tiny example once, saving the JSON and writing the report in one go. */
    @BeforeAll
    static void simulate() {
        saved = shared.resolve("run.json");
        direct = shared.resolve("direct.html");
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation,legacy",
                "--json", saved.toString(), "--report", direct.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("wrote " + saved, "wrote " + direct);
    }

    @Test
    void reRenderingASavedRunReproducesTheReportsDataExactly() throws IOException {
        Path again = tmp.resolve("out/again.html");
        Cli.Result r = Cli.run("report", saved.toString(), "--report", again.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).startsWith("wrote " + again + " (").contains(" KiB)");
        assertThat(direct).isRegularFile();
        assertThat(again).isRegularFile();
        String first = HtmlReport.embeddedJson(Files.readString(direct));
        String second = HtmlReport.embeddedJson(Files.readString(again));
        assertThat(first).contains("\"policies\":[{\"policy\":\"allocation\"", "\"runs\":[{\"policy\":\"allocation\"",
                "{\"policy\":\"legacy\"", "\"timeline\":{");
        assertThat(second).isEqualTo(first);
    }

    @Test
    void anEarlierReportPageIsReRenderedFromItsEmbeddedData() throws IOException {
        Path again = tmp.resolve("from-page.html");
        Cli.Result r = Cli.run("report", direct.toString(), "--report", again.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(HtmlReport.embeddedJson(Files.readString(again)))
                .isEqualTo(HtmlReport.embeddedJson(Files.readString(direct)));
    }

    @Test
    void aPageThatIsNotAnAllotReportIsABadInputNamingIt() throws IOException {
        Path page = Files.writeString(tmp.resolve("other.html"), "<!DOCTYPE html><html><body>hello</body></html>");
        Path report = tmp.resolve("r.html");
        Cli.Result r = Cli.run("report", page.toString(), "--report", report.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(page.toString(), "not an Allot report of a simulation (a page written by allot"
                + " simulate --report or allot report)");
        assertThat(report).doesNotExist();
    }

    @Test
    void theReportLinksToNothingOnline() throws IOException {
        String html = Files.readString(direct);
        List<String> links = links(html);
        // the scan sees the page's own links (the section anchors), so finding no external one means something
        assertThat(links).contains("#summary", "#timeline");
        assertThat(links).noneSatisfy(v -> assertThat(v).matches("(?is)\\s*(https?:)?//.*"));
        assertThat(html).doesNotContainPattern("(?i)<link\\b[^>]*\\bhref\\s*=\\s*[\"']?\\s*(https?:)?//");
    }

    @Test
    void theLinkScanFindsExternalLinksInAnyQuotingStyle() {
        // proves the check above can fail
        String bad = "<script src=\"https://cdn.example/u.js\"></script><link rel=stylesheet href='http://x/y.css'>"
                + "<img SRC=//cdn.example/i.png><a href=\"#ok\">";
        assertThat(links(bad)).containsExactly("https://cdn.example/u.js", "http://x/y.css", "//cdn.example/i.png", "#ok");
    }

    private static List<String> links(String html) {
        List<String> out = new ArrayList<>();
        Matcher m = LINK.matcher(html);
        while (m.find()) {
            out.add(m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : m.group(4));
        }
        return out;
    }

    @Test
    void aMissingFileIsABadInputNamingIt() {
        Path missing = tmp.resolve("nowhere.json");
        Path report = tmp.resolve("r.html");
        Cli.Result r = Cli.run("report", missing.toString(), "--report", report.toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains(missing.toString()).contains("no such file");
        assertThat(report).doesNotExist();
    }

    @Test
    void malformedJsonIsABadInputNamingTheFile() throws IOException {
        String json = Files.readString(saved);
        Path cut = Files.writeString(tmp.resolve("cut.json"), json.substring(0, json.length() / 2));
        Path report = tmp.resolve("r.html");
        Cli.Result r = Cli.run("report", cut.toString(), "--report", report.toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: " + cut + ":");
        assertThat(report).doesNotExist();
        Path garbage = Files.writeString(tmp.resolve("garbage.json"), "{\"schema\": allot}\n");
        Cli.Result g = Cli.run("report", garbage.toString(), "--report", report.toString());
        assertThat(g.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(g.err()).startsWith("allot: " + garbage + ":1:").contains("malformed JSON")
                .contains("; expected the --json output of 'allot simulate' (schema allot.simulate/1)");
        assertThat(report).doesNotExist();
    }

    @Test
    void aMetricsOnlyJsonIsABadInputSayingHowToGetTheRuns() throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = (ObjectNode) mapper.readTree(saved.toFile());
        assertThat(root.has("runs") && root.has("nodes") && root.has("workloads")).isTrue();
        root.remove(List.of("runs", "nodes", "workloads"));
        Path metricsOnly = Files.writeString(tmp.resolve("metrics-only.json"), mapper.writeValueAsString(root));
        Path report = tmp.resolve("r.html");
        Cli.Result r = Cli.run("report", metricsOnly.toString(), "--report", report.toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: " + metricsOnly + ": field 'runs': ")
                .contains("metrics only", "re-run 'allot simulate");
        assertThat(report).doesNotExist();
    }

    @Test
    void anotherCommandsJsonIsRefusedByItsSchemaInTheFilesWords() throws IOException {
        // campaign simulate --json read: "field 'scenario': Cannot construct instance of
        // `dev.allot.sim.report.JsonReport$ScenarioSummary` (although at least one Creator exists): ..."
        Path campaign = Files.writeString(tmp.resolve("campaign.json"),
                "{\n  \"schema\" : \"allot.campaign-simulate/1\",\n  \"scenario\" : \"lab\"\n}\n");
        Path report = tmp.resolve("r.html");
        Cli.Result r = Cli.run("report", campaign.toString(), "--report", report.toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: " + campaign + ":2:14: field 'schema': expected 'allot.simulate/1', got"
                + " 'allot.campaign-simulate/1'; a document of another kind than the --json output of 'allot simulate'\n");
        assertThat(report).doesNotExist();

        // the right schema with a field of the wrong kind: said in JSON's words, not Java's
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = (ObjectNode) mapper.readTree(saved.toFile());
        root.put("scenario", "lab");
        Path wrong = Files.writeString(tmp.resolve("wrong.json"), mapper.writeValueAsString(root));
        Cli.Result w = Cli.run("report", wrong.toString(), "--report", report.toString());
        assertThat(w.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(w.err()).contains("field 'scenario': expected an object, got a string; expected the --json output")
                .doesNotContain("dev.allot").doesNotContain("Creator");
    }
    @Test
    void anUnknownFieldIsNamedInTheFilesWordsWithTheFieldsExpected() throws IOException {
        // it said "field 'a': Unrecognized field "a" (class dev.allot.sim.report.JsonReport$Document), not marked as
        // ignorable"
        Path other = Files.writeString(tmp.resolve("o.json"), "{\"a\":1}\n");
        Path report = tmp.resolve("r.html");
        Cli.Result r = Cli.run("report", other.toString(), "--report", report.toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: " + other + ":1:8: unknown field 'a'; expected the --json output of"
                + " 'allot simulate' (schema allot.simulate/1; fields: schema, allot, scenario, policies, nodes,"
                + " workloads, runs)\n");
        assertThat(report).doesNotExist();

        // inside the document: the fields of the object it is in
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = (ObjectNode) mapper.readTree(saved.toFile());
        ((ObjectNode) root.get("scenario")).put("zz", 1);
        Path nested = Files.writeString(tmp.resolve("nested.json"), mapper.writeValueAsString(root));
        Cli.Result n = Cli.run("report", nested.toString(), "--report", report.toString());
        assertThat(n.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(n.err()).startsWith("allot: " + nested + ":1:")
                .contains(": unknown field 'scenario.zz' (fields there: name, nodes, gpus, ")
                .endsWith("; expected the --json output of 'allot simulate' (schema allot.simulate/1)\n")
                .doesNotContain("dev.allot").doesNotContain("ignorable");
    }

    @Test
    void aFileThatIsNeitherAPageNorJsonIsSaidToBeNeitherWithWhatIsAccepted() throws IOException {
        // it said "malformed JSON: Unexpected character ('<' (code 60)): expected a valid value (JSON String, ...",
        // and of a --workloads-out CSV "Unrecognized token 'policy': was expecting (JSON String, ..."
        Path report = tmp.resolve("r.html");
        for (String[] file : new String[][] {{"bad.html", "<html>hi</html>\n"},
                {"workloads.csv", "policy,workload,started\nallocation,w1,10\n"}}) {
            Path bad = Files.writeString(tmp.resolve(file[0]), file[1]);
            Cli.Result r = Cli.run("report", bad.toString(), "--report", report.toString());
            assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).isEqualTo("allot: " + bad + ": not an Allot report page nor the --json output of"
                    + " 'allot simulate'; give a page written by 'allot simulate --report' or 'allot report', or the"
                    + " file 'allot simulate SCENARIO --json FILE' writes\n");
        }
        assertThat(report).doesNotExist();
    }

    @Test
    void aReportPageCutShortInsideItsDataIsSaidToBeTruncated() throws IOException {
        // it said "field 'runs[1].timeline.runs': expected a count >= 0": the cut run had no timeline
        String page = Files.readString(direct);
        int last = page.lastIndexOf("<script id=\"" + HtmlReport.TIMELINE_ELEMENT_PREFIX);
        assertThat(last).isPositive();
        int cut = page.indexOf('>', last) + 40;
        assertThat(page.indexOf("</script>", last)).isGreaterThan(cut);
        Path truncated = Files.writeString(tmp.resolve("t.html"), page.substring(0, cut));
        Path report = tmp.resolve("r.html");
        Cli.Result r = Cli.run("report", truncated.toString(), "--report", report.toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: " + truncated + ": the page ends inside its embedded run data"
                + " (truncated?)\n");
        assertThat(report).doesNotExist();
    }
}
