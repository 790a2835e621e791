package dev.allot.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.sim.detail.RunDetail;
import dev.allot.sim.report.JsonReport;
import dev.allot.web.WebAssets;
import java.util.List;
import java.io.IOException;
import java.io.InputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.util.Base64;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the visual report: one HTML file that carries its own styles, scripts (uPlot from its webjar, and
 * Allot's report code) and the run's JSON document, so it opens offline in any browser. The page draws
 * everything from the embedded document; {@link #embeddedJson} reads it back (for tests and for re-rendering).
 */
public final class HtmlReport {
    /** The id of the script element that holds the document. */
    public static final String DATA_ELEMENT_ID = "allot-data";

    static final String UPLOT = "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
    /**
     * format: helpers; model: the document read once; timeline: the GPU timeline (those three shared with the
     * service's dashboard, in allot-web: {@link WebAssets#TIMELINE_SCRIPTS}); embed: reading the embedded data (shared
     * with the campaign report, {@link CampaignReport}); charts: the other sections; report: the page.
     */
    private static final java.util.List<String> OWN_SCRIPTS = java.util.List.of("embed.js", "charts.js", "report.js");
    /** The ids of the script elements that hold the runs' timelines: this prefix and the run's index. */
    public static final String TIMELINE_ELEMENT_PREFIX = "allot-timeline-";
    private static final Pattern TIMELINE = Pattern.compile("<script id=\"" + TIMELINE_ELEMENT_PREFIX
            + "(\\d+)\" type=\"application/gzip\\+base64\">(.*?)</script>", Pattern.DOTALL);
    private static final ObjectMapper TREE = new ObjectMapper();
    private static final Pattern SLOT = Pattern.compile("\\{\\{([a-z-]+)}}");
    private static final Pattern DATA = Pattern.compile(
            "<script id=\"" + DATA_ELEMENT_ID + "\" type=\"application/gzip\\+base64\">(.*?)</script>", Pattern.DOTALL);

    /** The start of a script element that holds embedded data (the run data or a timeline), closed or not. */
    private static final Pattern DATA_START = Pattern.compile("<script id=\"(?:" + DATA_ELEMENT_ID + "|"
            + TIMELINE_ELEMENT_PREFIX + "\\d+)\" type=\"application/gzip\\+base64\">");

    private HtmlReport() {
    }

    /** Renders the report of a document that carries its runs in detail (checked by {@link DocumentCheck}). */
    public static String render(JsonReport.Document document) {
        return render(document, "the run data");
    }

    /** Renders the report; {@code source} names where the document came from in error messages. */
    public static String render(JsonReport.Document document, String source) {
        DocumentCheck.validate(document, source);
        // The timelines, the bulk of the data, travel apart, one per policy: the page reads the rest and the
        // first policy's timeline before it paints, and another policy's only when its tab is opened.
        List<RunDetail> withoutTimelines = document.runs().stream()
                .map(r -> new RunDetail(r.policy(), r.endSeconds(), r.hourly(), r.waitCurves(), r.largestPreemptions(), null))
                .toList();
        String data = Base64.getEncoder().encodeToString(gzip(new JsonReport.Document(document.schema(), document.allot(),
                document.scenario(), document.policies(), document.nodes(), document.workloads(), withoutTimelines)));
        StringBuilder timelines = new StringBuilder();
        for (int i = 0; i < document.runs().size(); i++) {
            timelines.append("<script id=\"").append(TIMELINE_ELEMENT_PREFIX).append(i)
                    .append("\" type=\"application/gzip+base64\">")
                    .append(Base64.getEncoder().encodeToString(gzip(document.runs().get(i).timeline())))
                    .append("</script>\n");
        }
        Map<String, String> slots = Map.of(
                "title", escapeHtml("Allot report: " + document.scenario().name()),
                "uplot-css", resource(UPLOT + "uPlot.min.css"),
                "timeline-css", WebAssets.text(WebAssets.TIMELINE_CSS),
                "report-css", resource("report.css"),
                "timeline", WebAssets.timelineMarkup("run"),
                "uplot-js", resource(UPLOT + "uPlot.iife.min.js"),
                "report-js", scripts(),
                "data", data,
                "timelines", timelines.toString());
        return fill("report.html", slots);
    }

    /** The page template {@code name} with each {@code {{slot}}} replaced by its value. */
    static String fill(String name, Map<String, String> slots) {
        String template = resource(name);
        Matcher m = SLOT.matcher(template);
        StringBuilder out = new StringBuilder(template.length() + slots.values().stream().mapToInt(String::length).sum());
        int at = 0;
        while (m.find()) {
            String value = slots.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException(name + " has an unknown slot {{" + m.group(1) + "}}");
            }
            out.append(template, at, m.start()).append(value);
            at = m.end();
        }
        return out.append(template, at, template.length()).toString();
    }

    public static void write(JsonReport.Document document, Path file) throws IOException {
        write(document, file, "the run data");
    }

    /** Writes the report; {@code source} names where the document came from in error messages. */
    public static void write(JsonReport.Document document, Path file, String source) throws IOException {
        String html = render(document, source);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, html, StandardCharsets.UTF_8);
    }

    /** The JSON document embedded in a report page, its timelines put back in their runs (one line). */
    public static String embeddedJson(String html) {
        Matcher start = DATA_START.matcher(html);
        while (start.find()) {
            if (html.indexOf("</script>", start.end()) < 0) {
                // a page cut short inside its data: the elements after the cut were missing, and the run without its
                // timeline was refused as "field 'runs[1].timeline.runs': expected a count >= 0"
                throw new IllegalArgumentException("the page ends inside its embedded run data (truncated?)");
            }
        }
        Matcher m = DATA.matcher(html);
        if (!m.find()) {
            // a campaign report is an Allot report too: say which kind is expected
            throw new IllegalArgumentException("not an Allot report of a simulation (a page written by allot simulate"
                    + " --report or allot report): no <script id=\"" + DATA_ELEMENT_ID + "\"> element"
                    + (html.contains("</html>") ? "" : ", and the page ends before </html> (truncated?)"));
        }
        try {
            JsonNode root = TREE.readTree(inflate(m.group(1)));
            JsonNode runs = root.path("runs");
            Matcher t = TIMELINE.matcher(html);
            while (t.find()) {
                int i = Integer.parseInt(t.group(1));
                if (!(runs.get(i) instanceof ObjectNode run)) {
                    throw new IllegalArgumentException("the report has a timeline for run " + i + " but no such run");
                }
                run.set("timeline", TREE.readTree(inflate(t.group(2))));
            }
            return TREE.writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException("the report's embedded data is not gzip-compressed JSON", e);
        }
    }

    static String inflate(String base64) throws IOException {
        byte[] compressed = Base64.getMimeDecoder().decode(base64.trim());
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The document as compact JSON, gzip-compressed: a run's columns of small integers shrink four- to sixfold,
     * and base64 of binary needs no escaping inside a script element.
     */
    static byte[] gzip(Object documentOrPart) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Writer w = new OutputStreamWriter(new GZIPOutputStream(bytes, 1 << 16), StandardCharsets.UTF_8)) {
            JsonReport.writeCompact(documentOrPart, w);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static String escapeHtml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /**
     * The report's own scripts, in dependency order, concatenated inside one function scope: they share their
     * top-level functions with each other and leak nothing into the page's global scope but {@code allotReport}.
     */
    static String scripts() {
        StringBuilder js = new StringBuilder("(function () {\n'use strict';\n");
        for (String name : WebAssets.TIMELINE_SCRIPTS) {
            js.append("\n// ---- ").append(name).append('\n').append(WebAssets.text(name));
        }
        for (String name : OWN_SCRIPTS) {
            js.append("\n// ---- ").append(name).append('\n').append(resource(name));
        }
        return js.append("})();\n").toString();
    }

    static String resource(String name) {
        try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name + " (a broken build of allot-report?)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String uplotVersion() {
        try (InputStream in = HtmlReport.class.getResourceAsStream("/META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            java.util.Properties p = new java.util.Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "1.6.30");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
