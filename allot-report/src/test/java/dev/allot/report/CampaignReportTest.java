package dev.allot.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.sim.campaign.CampaignComparison;
import dev.allot.sim.campaign.CampaignOutcome;
import dev.allot.sim.campaign.CampaignTable;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The campaign report of the CLI test's two-GPU campaign (worked out by hand in CampaignSimulateCommandTest): the
 * table in the page is the terminal's, cell for cell; the embedded document parses and holds the comparison as
 * {@code --json} writes it and each run's outcome, units done over time and runs of shards as the driver kept them;
 * the page is the same for the same runs, escapes what it prints and loads nothing from the network.
 */
class CampaignReportTest {
    private static final long H = 3600;
    private static final long M = 60;
    private static final Pattern ROW = Pattern.compile("<tr data-strategy=\"([^\"]+)\">(.*?)</tr>");
    private static final Pattern CELL = Pattern.compile("<td>(?:<span class=\"chip\"></span>)?(.*?)</td>");

    @TempDir
    static Path tmp;
    private static Campaigns.Comparison comparison;
    private static String html;
    private static JsonNode doc;

    @BeforeAll
    static void renderTheReport() {
        comparison = Campaigns.twoGpus(tmp, "two-gpus <b>&");
        html = CampaignReport.render(comparison.summary(), comparison.runs());
        doc = CampaignReport.embeddedJson(html);
    }

    @Test
    void theTableIsTheTerminalsCellForCell() {
        List<List<String>> rows = new ArrayList<>();
        Matcher r = ROW.matcher(html);
        while (r.find()) {
            List<String> cells = new ArrayList<>();
            Matcher c = CELL.matcher(r.group(2));
            while (c.find()) {
                cells.add(c.group(1));
            }
            rows.add(cells);
        }
        // the numbers CampaignSimulateCommandTest prints for this campaign
        assertThat(rows.get(0)).containsExactly("allot", "37.0", "37.0", "0.0", "0", "0.0", "1.0", "0.0", "100.0%",
                "+0.00pp");
        assertThat(rows.get(2)).containsExactly("v4.1", "37.1", "37.1", "0.1", "0", "1.0", "0.0", "0.0", "100.0%",
                "+0.00pp");
        assertThat(rows.get(3)).startsWith("all-protected", "37.0", "61.3");
        List<String[]> cli = CampaignTable.cells(comparison.summary());
        assertThat(rows).hasSize(cli.size() - 1);
        for (int i = 1; i < cli.size(); i++) {
            assertThat(rows.get(i - 1)).as("row %d", i).containsExactly(cli.get(i));
        }
        assertThat(html).contains("<th>MAKESPAN h</th>", "<th>CHARGED GPU-h</th>", "<th>LOST GPU-h</th>",
                "<th>REDONE</th>", "<th>RESTARTS</th>", "<th>PROMOTIONS</th>", "<th>OTHERS PAID</th>");
        assertThat(html).contains("<p id=\"goal\">goal (makespan &gt;= 20% shorter than v4.1 at no more charged"
                + " GPU-hours, no unit done twice): NOT met; allot's mean makespan is 0.2% shorter");
    }

    @Test
    void whatThePagePrintsIsEscaped() {
        assertThat(html).contains("two-gpus &lt;b&gt;&amp;, policy allocation, 1 seed;")
                .doesNotContain("two-gpus <b>");
        assertThat(html).contains("<title>Allot campaign report: c</title>");
    }

    @Test
    void theEmbeddedDocumentHoldsTheComparisonAsTheJsonOutputWritesIt() throws IOException {
        assertThat(doc.path("schema").asText()).isEqualTo(CampaignReportData.SCHEMA);
        StringWriter json = new StringWriter();
        CampaignTable.writeJson(comparison.summary(), json);
        assertThat(doc.path("comparison")).isEqualTo(new ObjectMapper().readTree(json.toString()));
        assertThat(texts(doc.path("heading"))).isEqualTo(CampaignTable.heading(comparison.summary()));
        assertThat(texts(doc.path("strategies"))).containsExactly("allot", "v4", "v4.1", "all-protected",
                "all-unallocated");
        assertThat(texts(doc.path("shards").path("id"))).containsExactly("c-s0", "c-s1", "c-s2");
        assertThat(longs(doc.path("shards").path("units"))).containsExactly(72L, 60L, 15L);
        assertThat(longs(doc.path("shards").path("secondsPerUnit"))).containsExactly(1500L, 1500L, 1500L);
        assertThat(doc.path("protectedShards").asInt()).isEqualTo(1);
    }

    @Test
    void eachRunIsItsOutcomeWithItsProgressAndItsShardsRuns() {
        JsonNode seed = doc.path("seeds").get(0);
        assertThat(doc.path("seeds")).hasSize(1);
        assertThat(seed.path("seed").isNull()).isTrue();
        assertThat(seed.path("fromSeconds").asLong()).isZero();
        // the latest campaign end of this seed: v4's and v4.1's, 5 minutes after the others
        assertThat(seed.path("toSeconds").asLong()).isEqualTo(37 * H + 5 * M);
        long[] x = longs(seed.path("x")).stream().mapToLong(Long::longValue).toArray();
        assertThat(x[0]).isZero();
        assertThat(x[x.length - 1]).isEqualTo(37 * H + 5 * M);
        List<CampaignComparison.Run> runs = comparison.runs().stream().filter(r -> !r.baseline()).toList();
        assertThat(seed.path("runs")).hasSize(runs.size());
        for (int k = 0; k < runs.size(); k++) {
            CampaignOutcome o = runs.get(k).outcome();
            JsonNode r = seed.path("runs").get(k);
            assertThat(r.path("strategy").asText()).isEqualTo(o.strategy());
            assertThat(r.path("endSeconds").asLong()).isEqualTo(o.endSeconds());
            assertThat(r.path("makespanSeconds").asLong()).isEqualTo(o.makespanSeconds());
            assertThat(r.path("chargedGpuSeconds").asLong()).isEqualTo(o.chargedGpuSeconds());
            assertThat(r.path("lostGpuSeconds").asLong()).isEqualTo(o.lostGpuSeconds());
            assertThat(r.path("unitsRedone").asLong()).isEqualTo(o.unitsRedone());
            assertThat(r.path("restarts").asInt()).isEqualTo(o.restarts());
            assertThat(r.path("promotions").asInt()).isEqualTo(o.promotions());
            assertThat(r.path("preemptions").asInt()).isEqualTo(o.preemptions());
            assertThat(longs(r.path("shardEndSeconds"))).isEqualTo(o.shardEndSeconds());
            List<Long> units = longs(r.path("unitsDoneAt"));
            assertThat(units).hasSize(x.length).isSorted();
            assertThat(units.get(0)).isZero();
            assertThat(units.get(units.size() - 1)).isEqualTo(o.unitsDone()).isEqualTo(147);
            JsonNode a = r.path("attempts");
            assertThat(a.path("shard")).hasSize(o.attempts().size());
            for (int i = 0; i < o.attempts().size(); i++) {
                CampaignOutcome.Attempt at = o.attempts().get(i);
                assertThat(new long[] {a.path("shard").get(i).asLong(), a.path("startSeconds").get(i).asLong(),
                        a.path("endSeconds").get(i).asLong(), a.path("protectedFromSeconds").get(i).asLong(),
                        a.path("fromUnits").get(i).asLong(), a.path("toUnits").get(i).asLong()})
                        .as("run %d of %s", i, o.strategy())
                        .containsExactly(at.shard(), at.startSeconds(), at.endSeconds(), at.protectedFromSeconds(),
                                at.fromUnits(), at.toUnits());
                assertThat(doc.path("ends").get(a.path("end").get(i).asInt()).asText())
                        .isEqualTo(at.end().name().toLowerCase(java.util.Locale.ROOT));
            }
        }
        // allot: s1 runs once from 12h, protected from its promotion at 30h; v4.1 restarts it at 30h from unit 43
        JsonNode allot = seed.path("runs").get(0).path("attempts");
        assertThat(longs(allot.path("protectedFromSeconds"))).containsExactly(0L, 30 * H, -1L);
        JsonNode v41 = seed.path("runs").get(2).path("attempts");
        assertThat(longs(v41.path("shard"))).containsExactly(0L, 1L, 1L, 2L);
        assertThat(texts(doc.path("ends")).get(v41.path("end").get(1).asInt())).isEqualTo("restarted");
        assertThat(v41.path("fromUnits").get(2).asLong()).isEqualTo(43);
    }

    @Test
    void theSameRunsGiveTheSamePageByteForByte(@TempDir Path other) {
        Campaigns.Comparison again = Campaigns.twoGpus(other, "two-gpus <b>&");
        assertThat(CampaignReport.render(again.summary(), again.runs())).isEqualTo(html);
    }

    @Test
    void thePageCarriesItsScriptsAndStylesAndLoadsNothingFromTheNetwork() {
        assertThat(html).contains("uPlot", "window.allotCampaign", "<style>", "function inflate(");
        assertThat(html).doesNotContainPattern("(?i)(src|href)\\s*=\\s*[\"']?(https?:)?//");
        assertThat(html).doesNotContain("{{");
        assertThatThrownBy(() -> CampaignReport.embeddedJson("<html></html>"))
                .hasMessageContaining("not an Allot campaign report");
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static List<Long> longs(JsonNode array) {
        List<Long> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asLong()));
        return out;
    }
}
