package dev.allot.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.sim.campaign.CampaignComparison;
import dev.allot.sim.campaign.CampaignTable;
import dev.allot.web.WebAssets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the campaign report of {@code allot campaign simulate --report}: one HTML file with its own styles and
 * scripts (uPlot from its webjar, the report's styles and helpers) and the runs' data ({@link CampaignReportData},
 * gzip-compressed JSON in base64), so it opens offline. The comparison table, its heading and the goal line are
 * written into the page as the terminal prints them, escaped, so they read without scripts; the page's script draws
 * the rest for a chosen seed: units done over time per strategy, each shard's runs (protected, unallocated, waiting,
 * promotions, restarts, preemptions) and the shards running over time.
 */
public final class CampaignReport {
    /** The id of the script element that holds the document. */
    public static final String DATA_ELEMENT_ID = "allot-campaign-data";
    private static final List<String> OWN_SCRIPTS = List.of("embed.js", "campaign-model.js", "campaign-shards.js",
            "campaign.js");
    private static final Pattern DATA = Pattern.compile("<script id=\"" + DATA_ELEMENT_ID
            + "\" type=\"application/gzip\\+base64\">(.*?)</script>", Pattern.DOTALL);
    private static final ObjectMapper TREE = new ObjectMapper();

    private CampaignReport() {
    }

    /** The page of a comparison's runs and their summary. */
    public static String render(CampaignTable.Summary summary, List<CampaignComparison.Run> runs) {
        String data = Base64.getEncoder().encodeToString(HtmlReport.gzip(CampaignReportData.document(summary, runs)));
        Map<String, String> slots = Map.of(
                "title", HtmlReport.escapeHtml("Allot campaign report: " + summary.campaign().name()),
                "uplot-css", HtmlReport.resource(HtmlReport.UPLOT + "uPlot.min.css"),
                "report-css", HtmlReport.resource("report.css"),
                "campaign-css", HtmlReport.resource("campaign.css"),
                "heading", lines(CampaignTable.heading(summary)),
                "table", table(CampaignTable.cells(summary)),
                "goal", goal(summary),
                "uplot-js", HtmlReport.resource(HtmlReport.UPLOT + "uPlot.iife.min.js"),
                "campaign-js", scripts(),
                "data", data);
        return HtmlReport.fill("campaign.html", slots);
    }

    /** Writes the page, creating missing parent folders. */
    public static void write(CampaignTable.Summary summary, List<CampaignComparison.Run> runs, Path file)
            throws IOException {
        String html = render(summary, runs);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, html, StandardCharsets.UTF_8);
    }

    /** The document embedded in a campaign report page. */
    public static JsonNode embeddedJson(String html) {
        Matcher m = DATA.matcher(html);
        if (!m.find()) {
            throw new IllegalArgumentException("not an Allot campaign report: no <script id=\"" + DATA_ELEMENT_ID
                    + "\"> element");
        }
        try {
            return TREE.readTree(HtmlReport.inflate(m.group(1)));
        } catch (IOException e) {
            throw new UncheckedIOException("the report's embedded data is not gzip-compressed JSON", e);
        }
    }

    private static String lines(List<String> lines) {
        StringBuilder out = new StringBuilder();
        for (String l : lines) {
            out.append("<p class=\"muted\">").append(HtmlReport.escapeHtml(l)).append("</p>\n");
        }
        return out.toString();
    }

    /** The comparison table: the header, a row per strategy (id {@code row-NAME}) and the baseline. */
    static String table(List<String[]> cells) {
        StringBuilder out = new StringBuilder("<table id=\"comparison-table\"><thead><tr>");
        for (String h : cells.get(0)) {
            out.append("<th>").append(HtmlReport.escapeHtml(h)).append("</th>");
        }
        out.append("</tr></thead><tbody>\n");
        for (String[] line : cells.subList(1, cells.size())) {
            String name = line[0].split(" ")[0];
            out.append("<tr data-strategy=\"").append(HtmlReport.escapeHtml(name)).append("\">");
            for (int i = 0; i < line.length; i++) {
                out.append(i == 0 ? "<td><span class=\"chip\"></span>" : "<td>")
                        .append(HtmlReport.escapeHtml(line[i])).append("</td>");
            }
            out.append("</tr>\n");
        }
        return out.append("</tbody></table>").toString();
    }

    private static String goal(CampaignTable.Summary summary) {
        String goal = CampaignTable.goal(summary);
        return goal == null ? "" : "<p id=\"goal\">" + HtmlReport.escapeHtml(goal) + "</p>";
    }

    /** format.js (allot-web's helpers), then the page's own scripts, inside one function scope. */
    static String scripts() {
        StringBuilder js = new StringBuilder("(function () {\n'use strict';\n");
        js.append("\n// ---- format.js\n").append(WebAssets.text("format.js"));
        for (String name : OWN_SCRIPTS) {
            js.append("\n// ---- ").append(name).append('\n').append(HtmlReport.resource(name));
        }
        return js.append("})();\n").toString();
    }
}
