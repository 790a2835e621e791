package dev.allot.sim.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.core.timeline.TimelineNodes;
import dev.allot.core.timeline.TimelineWorkloads;
import dev.allot.sim.AllotVersion;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.detail.RunDetail;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.ParserMessages;
import dev.allot.sim.input.TextFiles;
import dev.allot.sim.metrics.PolicyMetrics;
import dev.allot.sim.trace.ImportSummary;
import dev.allot.sim.trace.WorkloadTable;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@code --json} output: a stable, documented schema ({@value #SCHEMA}), deterministic byte for byte (no wall
 * times, numbers rounded, maps sorted). See the README's "JSON schema" section for every field.
 */
public final class JsonReport {
    public static final String SCHEMA = "allot.simulate/1";

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .build();

    /** Indents objects but keeps arrays of numbers on one line, without spaces: the runs are mostly arrays. */
    private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter()
            .withSeparators(Separators.createDefaultInstance()
                    .withArrayValueSpacing(Separators.Spacing.NONE)
                    .withObjectFieldValueSpacing(Separators.Spacing.BOTH))
            .withArrayIndenter(DefaultPrettyPrinter.NopIndenter.instance);

    private static final ObjectWriter COMPACT = MAPPER.copy().disable(SerializationFeature.INDENT_OUTPUT).writer();

    private JsonReport() {
    }

    /**
     * The whole document. {@code nodes}, {@code workloads} and {@code runs} carry what the visual report draws
     * (see {@link RunDetail}; every workload of the scenario, every node: {@link TimelineWorkloads},
     * {@link TimelineNodes}); they are present when the runs were recorded in detail, absent otherwise.
     */
    public record Document(String schema, String allot, ScenarioSummary scenario, List<PolicyMetrics> policies,
                           @JsonInclude(JsonInclude.Include.NON_NULL) TimelineNodes nodes,
                           @JsonInclude(JsonInclude.Include.NON_NULL) TimelineWorkloads workloads,
                           @JsonInclude(JsonInclude.Include.NON_EMPTY) List<RunDetail> runs) {
    }

    /** What was simulated; {@code trace} says what the import of a real trace did (absent otherwise). */
    public record ScenarioSummary(String name, int nodes, int gpus, int healthEvents, int workloads, int rejected,
                                  SortedMap<String, String> settings, List<Allocation> allocations,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) ImportSummary trace) {
    }

    /** One node of the allocation tree with its absolute entitlement. */
    public record Allocation(String name, String path, double share, double entitlement, boolean leaf) {
    }

    /** The metrics document, without details. */
    public static Document document(Scenario s, List<SimulationResult> results) {
        return document(s, results, List.of());
    }

    /** The document with the runs recorded in detail (empty: metrics only). */
    public static Document document(Scenario s, List<SimulationResult> results, List<RunDetail> details) {
        AllocationTree t = s.tree();
        List<Allocation> allocations = new ArrayList<>();
        for (int n = 0; n < t.nodeCount(); n++) {
            allocations.add(new Allocation(t.name(n), t.path(n), t.share(n),
                    java.math.BigDecimal.valueOf(t.entitlement(n)).setScale(6, java.math.RoundingMode.HALF_EVEN).doubleValue(),
                    t.isLeaf(n)));
        }
        SortedMap<String, String> settings = new TreeMap<>();
        settings.put("lookback", Durations.format(s.policyConfig().scheduler().lookback()));
        settings.put("max-min-runtime", Durations.format(s.policyConfig().scheduler().maxMinRuntime()));
        settings.put("usage-bucket", Durations.format(s.policyConfig().scheduler().usageBucket()));
        ScenarioSummary summary = new ScenarioSummary(s.name(), s.cluster().nodes().size(), s.cluster().totalGpus(),
                s.cluster().healthEvents().size(), s.workloads().size(), s.rejected().size(), settings, allocations,
                s.workloads() instanceof WorkloadTable table ? table.summary() : null);
        List<PolicyMetrics> metrics = results.stream().map(SimulationResult::metrics).toList();
        if (details.isEmpty()) {
            return new Document(SCHEMA, AllotVersion.VERSION, summary, metrics, null, null, List.of());
        }
        return new Document(SCHEMA, AllotVersion.VERSION, summary, metrics, nodes(s), workloads(s), List.copyOf(details));
    }

    private static TimelineNodes nodes(Scenario s) {
        List<NodeSpec> nodes = s.cluster().nodes();
        return new TimelineNodes(nodes.stream().map(NodeSpec::name).toList(), nodes.stream().mapToInt(NodeSpec::gpus).toArray());
    }

    private static TimelineWorkloads workloads(Scenario s) {
        AllocationTree tree = s.tree();
        SchedulerConfig config = s.policyConfig().scheduler();
        return TimelineWorkloads.of(s.workloads().stream().map(w -> new TimelineWorkloads.Row(w.id(),
                tree.leaf(w.allocation()).orElse(-1), w.gpus(), w.submitSeconds(), w.duration().getSeconds(),
                config.minRuntimeSecondsOf(w), w.resumable(), w.priority(), w.kind())).toList());
    }

    public static void write(Scenario s, List<SimulationResult> results, Writer out) throws IOException {
        write(document(s, results), out);
    }

    /** Writes a document indented, one number array per line. */
    public static void write(Document d, Writer out) throws IOException {
        MAPPER.writer(PRETTY).writeValue(out, d);
        out.write('\n');
    }

    /** Writes a document, or a part of one, on one line (for embedding). */
    public static void writeCompact(Object documentOrPart, Writer out) throws IOException {
        COMPACT.writeValue(out, documentOrPart);
    }

    public static Document read(java.io.Reader in) throws IOException {
        return MAPPER.readValue(in, Document.class);
    }

    /**
     * Reads a saved document, with errors that name the file, line, column and field: a missing file, malformed
     * JSON, a value of the wrong type, or another schema.
     */
    public static Document read(java.nio.file.Path file) {
        String name = file.toString();
        try (java.io.Reader in = TextFiles.open(file, name)) {
            checkSchemaFirst(file, name);
            return read(in, name);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new InputException(name, 0, 0, null, "no such file");
        } catch (IOException e) {
            // a folder, bytes that are not UTF-8: TextFiles's words for any input (it said 'cannot read: Input length
            // = 1' of a binary file)
            throw TextFiles.readError(file, name, e);
        }
    }

    /**
     * Looks for the top-level {@code schema} before the whole document is read, so that another command's JSON (e.g.
     * {@code allot campaign simulate --json}) is refused by its schema rather than by the first field that does not
     * fit (it said "field 'scenario': Cannot construct instance of `dev.allot.sim.report.JsonReport$ScenarioSummary`
     * ..."). Anything it cannot make sense of is left to the full read, which says what is wrong.
     */
    private static void checkSchemaFirst(java.nio.file.Path file, String name) throws IOException {
        try (com.fasterxml.jackson.core.JsonParser p = MAPPER.getFactory().createParser(TextFiles.open(file, name))) {
            if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                return;
            }
            while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String field = p.currentName();
                com.fasterxml.jackson.core.JsonToken value = p.nextToken();
                if (field.equals("schema")) {
                    if (value == com.fasterxml.jackson.core.JsonToken.VALUE_STRING && !SCHEMA.equals(p.getText())) {
                        var at = p.currentTokenLocation();
                        throw new InputException(name, at.getLineNr(), at.getColumnNr(), "schema", "expected '" + SCHEMA
                                + "', got '" + p.getText() + "'; a document of another kind than the --json output"
                                + " of 'allot simulate'");
                    }
                    return;
                }
                p.skipChildren();
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // malformed: the full read says where
        }
    }

    /** Reads a document from {@code in}; {@code name} says where it came from in error messages. */
    public static Document read(java.io.Reader in, String name) throws IOException {
        java.io.BufferedReader text = new java.io.BufferedReader(in);
        if (blank(text)) { // Jackson said 'No content to map due to end-of-input'
            throw new InputException(name, 0, 0, null, "the file is empty; expected the --json output of"
                    + " 'allot simulate' (schema " + SCHEMA + ")");
        }
        Document d;
        String all = readAll(text); // kept to locate an error that has no location of its own
        try {
            d = MAPPER.readerFor(Document.class)
                    .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                    .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .readValue(all);
        } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
            var at = e.getLocation() != null ? e.getLocation() : ParserMessages.locate(MAPPER.getFactory(), all);
            String field = e.getPath().stream()
                    .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                    .reduce("", (a, b) -> a.isEmpty() || b.startsWith("[") ? a + b : a + "." + b);
            if (e instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException u) {
                // Jackson said 'Unrecognized field "a" (class dev.allot.sim.report.JsonReport$Document), not marked
                // as ignorable (7 known properties: ...)'
                boolean top = e.getPath().size() == 1;
                throw new InputException(name, at == null ? 0 : at.getLineNr(), at == null ? 0 : at.getColumnNr(), null,
                        ParserMessages.unknownField(field, u.getReferringClass(), u.getKnownPropertyIds(), !top)
                                + "; expected the --json output of 'allot simulate' (schema " + SCHEMA + (top
                                ? "; fields: " + ParserMessages.fieldList(u.getReferringClass(), u.getKnownPropertyIds())
                                : "") + ")");
            }
            throw new InputException(name, at == null ? 0 : at.getLineNr(), at == null ? 0 : at.getColumnNr(), field,
                    plain(e.getOriginalMessage()) + "; expected the --json output of 'allot simulate' (schema " + SCHEMA + ")");
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            var at = e.getLocation() != null ? e.getLocation() : ParserMessages.locate(MAPPER.getFactory(), all);
            throw new InputException(name, at == null ? 0 : at.getLineNr(), at == null ? 0 : at.getColumnNr(), null,
                    "malformed JSON: " + dev.allot.sim.input.ParserMessages.jsonSyntax(e.getOriginalMessage(),
                            "the file").lines()
                            .findFirst().orElse("")
                            + "; expected the --json output of 'allot simulate' (schema allot.simulate/1)");
        }
        if (d == null) {
            throw new InputException(name, 1, 0, null, "empty document; expected the --json output of 'allot simulate'");
        }
        if (!SCHEMA.equals(d.schema())) {
            throw new InputException(name, 0, 0, "schema", "expected '" + SCHEMA + "', got "
                    + (d.schema() == null ? "none" : "'" + d.schema() + "'"));
        }
        return d;
    }

    private static String readAll(java.io.Reader in) throws IOException {
        StringBuilder sb = new StringBuilder();
        char[] buffer = new char[8192];
        for (int n; (n = in.read(buffer)) >= 0; ) {
            sb.append(buffer, 0, n);
        }
        return sb.toString();
    }

    /**
     * Whether {@code text} holds nothing but white space; when it holds more, it is left where it was (so the parser
     * counts lines from the start), and a file of more than 64 Ki white space characters counts as not blank.
     */
    private static boolean blank(java.io.BufferedReader text) throws IOException {
        int limit = 1 << 16;
        text.mark(limit + 1);
        for (int i = 0; i <= limit; i++) {
            int c = text.read();
            if (c < 0) {
                return true;
            }
            if (!Character.isWhitespace(c)) {
                break;
            }
        }
        text.reset();
        return false;
    }

    /** Jackson's message about a value of the wrong type, in the words of the file rather than of Java types. */
    static String plain(String jackson) {
        String first = jackson.lines().findFirst().orElse("bad value");
        java.util.regex.Matcher construct = java.util.regex.Pattern
                .compile("Cannot construct instance of `([^`]+)`.*? from (\\w+) value.*").matcher(first);
        if (construct.matches()) {
            // 'Cannot construct instance of `dev.allot.sim.report.JsonReport$ScenarioSummary` (although at least one
            // Creator exists): no String-argument constructor/factory method to deserialize from String value'
            String got = construct.group(2).toLowerCase(java.util.Locale.ROOT);
            return "expected " + kind(construct.group(1)) + ", got " + switch (got) {
                case "string" -> "a string";
                case "boolean" -> "true or false";
                case "array" -> "a list";
                default -> "a number";
            };
        }
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("Cannot (?:deserialize value of type|map) `([^`]+)`(?: into type `([^`]+)`)?(?: from (\\w+))?.*")
                .matcher(first);
        if (!m.matches()) {
            return dev.allot.sim.input.ParserMessages.jsonSyntax(first, "the file");
        }
        if (first.startsWith("Cannot map `null`")) {
            return "missing or null, expected " + kind(m.group(2));
        }
        return "expected " + kind(m.group(1)) + (m.group(3) != null ? ", got " + m.group(3).toLowerCase(java.util.Locale.ROOT) : "");
    }

    private static String kind(String javaType) {
        if (javaType == null) {
            return "a value";
        }
        if (javaType.endsWith("[]") || javaType.startsWith("[") || javaType.contains("List")) {
            return "a list";
        }
        return switch (javaType) {
            case "int", "long", "double", "java.lang.Integer", "java.lang.Long", "java.lang.Double" -> "a number";
            case "boolean", "java.lang.Boolean" -> "true or false";
            case "java.lang.String" -> "a string";
            default -> "an object";
        };
    }
}
