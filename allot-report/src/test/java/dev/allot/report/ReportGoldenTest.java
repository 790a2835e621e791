package dev.allot.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.report.JsonReport;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The data a report embeds, checked against a golden file: the tiny example through allocation and legacy. The
 * page draws only from this data, so a change here is a change in what users see. Regenerate after an intended
 * change with {@code mvn -B test -pl allot-report -Dtest=ReportGoldenTest -Dgolden.update=true} and review the diff.
 */
class ReportGoldenTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden/tiny-report-data.json");

    @Test
    void theEmbeddedDataOfTheTinyReportMatchesItsGoldenFile() throws IOException {
        String html = HtmlReport.render(Reports.simulate("tiny", List.of("allocation", "legacy")));
        String embedded = HtmlReport.embeddedJson(html);
        JsonReport.Document document = JsonReport.read(new StringReader(embedded));
        StringWriter pretty = new StringWriter();
        JsonReport.write(document, pretty);
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(GOLDEN, pretty.toString(), StandardCharsets.UTF_8);
        }
        assertThat(GOLDEN).as("golden file %s (regenerate with -Dgolden.update=true)", GOLDEN).exists();
        assertThat(pretty.toString()).isEqualTo(Files.readString(GOLDEN, StandardCharsets.UTF_8));
    }

    @Test
    void theSameRunRendersTheSameFileByteForByte() {
        String first = HtmlReport.render(Reports.simulate("tiny", List.of("allocation", "legacy")));
        String second = HtmlReport.render(Reports.simulate("tiny", List.of("allocation", "legacy")));
        assertThat(second).isEqualTo(first);
    }

    @Test
    void thePageCarriesItsScriptsAndStylesAndLoadsNothingFromTheNetwork() {
        String html = HtmlReport.render(Reports.simulate("tiny", List.of("allocation")));
        assertThat(html).contains("uPlot", "window.allotReport", "<style>", "Allot report: tiny");
        assertThat(html).doesNotContainPattern("(?i)(src|href)\\s*=\\s*[\"']?(https?:)?//");
        assertThat(html).doesNotContain("{{");
    }
}
