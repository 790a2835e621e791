package dev.allot.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.detail.DetailRecorder;
import dev.allot.sim.detail.RunDetail;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.sim.report.JsonReport;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A saved run ({@code allot simulate --json}) may be hand-edited, truncated or from another version before
 * {@code allot report} renders it. {@link JsonReport#read(Path)} and {@link DocumentCheck} must turn every such
 * problem into an {@link InputException} that names the file and the field, so no broken page reaches a browser
 * and no stack trace reaches the user. Checked on a table of targeted corruptions of the tiny example's document
 * (each naming the field it breaks), and on a seeded fuzz of its JSON text, where the only acceptable outcomes are
 * a rendered report or an {@code InputException}.
 */
class DocumentCheckTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The tiny example under allocation and legacy, recorded in detail, as {@code allot simulate --json} writes it. */
    private static JsonReport.Document document;
    private static String text;

    @TempDir
    Path tmp;

    @BeforeAll
    static void simulateTiny() throws IOException {
        PolicyRegistry registry = PolicyRegistry.standard();
        Scenario scenario = ScenarioReader.read(Path.of("../examples/tiny"), false, registry);
        List<SimulationResult> results = new ArrayList<>();
        List<RunDetail> details = new ArrayList<>();
        for (String p : List.of("allocation", "legacy")) {
            DetailRecorder detail = new DetailRecorder();
            SimulationResult r = new Simulator(scenario, registry, p, Simulator.Options.defaults().withListener(detail)).run();
            results.add(r);
            details.add(detail.finish(r));
        }
        document = JsonReport.document(scenario, results, details);
        StringWriter w = new StringWriter();
        JsonReport.write(document, w);
        text = w.toString();
    }

    /** What {@code allot report} does with a file: read it, check it, render it. */
    private static String load(Path file) {
        JsonReport.Document d = JsonReport.read(file);
        DocumentCheck.validate(d, file.toString());
        return HtmlReport.render(d);
    }

    @Test
    void theValidDocumentRendersDirectlyAndAfterASaveAndReadBack() throws IOException {
        String direct = HtmlReport.render(document);
        assertThat(HtmlReport.embeddedJson(direct)).contains("\"runs\":[{\"policy\":\"allocation\"");
        Path file = Files.writeString(tmp.resolve("tiny.json"), text);
        String reread = load(file);
        assertThat(HtmlReport.embeddedJson(reread)).isEqualTo(HtmlReport.embeddedJson(direct));
    }

    @Test
    void aRunOnNodesOf2048GpusIsReportedFromItsSavedDocument() throws IOException {
        // the cluster takes nodes of up to 4,096 GPUs; the report refused the document of such a run after it
        Path dir = Files.createDirectories(tmp.resolve("wide"));
        for (String f : List.of("allocations.yaml", "policy.yaml", "workloads.csv")) {
            Files.copy(Path.of("../examples/tiny", f), dir.resolve(f));
        }
        Files.writeString(dir.resolve("cluster.yaml"), "node-groups:\n  - name-prefix: wide\n    count: 2\n    gpus: 2048\n"
                + "    gpu-type: h100\n");
        PolicyRegistry registry = PolicyRegistry.standard();
        Scenario scenario = ScenarioReader.read(dir, false, registry);
        DetailRecorder detail = new DetailRecorder();
        SimulationResult r = new Simulator(scenario, registry, "allocation", Simulator.Options.defaults().withListener(detail)).run();
        StringWriter w = new StringWriter();
        JsonReport.write(JsonReport.document(scenario, List.of(r), List.of(detail.finish(r))), w);
        Path file = Files.writeString(tmp.resolve("wide.json"), w.toString());

        String page = load(file);

        assertThat(HtmlReport.embeddedJson(page)).contains("\"gpus\":[2048,2048]");
    }

    @Test
    void theFixtureHasWhatTheCorruptionsBreak() throws IOException {
        // guards the table below against editing fields that are absent (an edit of nothing would pass vacuously)
        JsonNode root = JSON.readTree(text);
        JsonNode t = root.at("/runs/0/timeline");
        assertThat(t.get("runs").asInt()).isGreaterThan(5);
        assertThat(t.get("slots").size()).isEqualTo(3 * sum(t.get("parts")));
        assertThat(t.get("periodNode").size()).isPositive();
        assertThat(root.at("/nodes/gpus").toString()).isEqualTo("[8,8,8]");
        assertThat(root.at("/workloads/ids").size()).isEqualTo(12);
        assertThat(root.at("/runs/0/largestPreemptions").size()).isPositive();
        assertThat(root.at("/runs/0/hourly/hours").asInt()).isGreaterThan(1);
    }

    private static int sum(JsonNode numbers) {
        int s = 0;
        for (JsonNode n : numbers) {
            s += n.asInt();
        }
        return s;
    }

    // ---------------------------------------------------------------------------------------------------------
    // targeted corruptions

    /** One edit of the document's tree, and what the message must say. */
    private record Corruption(String name, Consumer<ObjectNode> edit, String field, String problem) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static ObjectNode at(ObjectNode root, String pointer) {
        return (ObjectNode) root.at(pointer);
    }

    private static ArrayNode array(ObjectNode root, String pointer) {
        return (ArrayNode) root.at(pointer);
    }

    private static Corruption corrupt(String name, Consumer<ObjectNode> edit, String field, String problem) {
        return new Corruption(name, edit, field, problem);
    }

    static Stream<Corruption> corruptions() {
        String tl = "/runs/0/timeline";
        return Stream.of(
                corrupt("timeline.slots one number short", r -> array(r, tl + "/slots").remove(array(r, tl + "/slots").size() - 1),
                        "runs[0].timeline.slots", "3 numbers per part"),
                corrupt("a slot's node index out of range", r -> array(r, tl + "/slots").set(0, 3),
                        "runs[0].timeline.slots", "node indexes 0..2, got 3"),
                corrupt("a negative slot node index", r -> array(r, tl + "/slots").set(0, -1),
                        "runs[0].timeline.slots", "got -1"),
                corrupt("a lane beyond the node's GPUs", r -> array(r, tl + "/slots").set(1, 8),
                        "runs[0].timeline.slots", "lanes within the node's 8 GPUs, got lanes 8+"),
                corrupt("lanes running past the node's GPUs", r -> array(r, tl + "/slots").set(2, 9),
                        "runs[0].timeline.slots", "lanes within the node's 8 GPUs"),
                corrupt("a part with no lanes", r -> array(r, tl + "/slots").set(2, 0),
                        "runs[0].timeline.slots", "got lanes"),
                corrupt("workload index out of range", r -> array(r, tl + "/workload").set(0, 12),
                        "runs[0].timeline.workload", "values in 0..11, got 12 at index 0"),
                corrupt("preemptor index out of range", r -> array(r, tl + "/preemptor").set(0, 99),
                        "runs[0].timeline.preemptor", "got 99"),
                corrupt("end kind 7", r -> array(r, tl + "/end").set(0, 7),
                        "runs[0].timeline.end", "values in 0..3, got 7"),
                corrupt("cause 4", r -> array(r, tl + "/cause").set(0, 4),
                        "runs[0].timeline.cause", "got 4"),
                corrupt("a run of zero parts", r -> array(r, tl + "/parts").set(0, 0),
                        "runs[0].timeline.parts", "got 0"),
                corrupt("a negative start delta", r -> array(r, tl + "/startDelta").set(1, -5),
                        "runs[0].timeline.startDelta/durationSeconds", "got -5"),
                corrupt("the run count one more than the columns", r -> at(r, tl).put("runs", at(r, tl).get("runs").asInt() + 1),
                        "runs[0].timeline.workload", "values, got"),
                corrupt("a node period on no node", r -> array(r, tl + "/periodNode").set(0, 3),
                        "runs[0].timeline.periodNode", "got 3"),
                corrupt("node periods of different lengths", r -> array(r, tl + "/periodToSeconds").removeAll(),
                        "runs[0].timeline.periodToSeconds", "got 0"),
                corrupt("hourly array one hour short",
                        r -> array(r, "/runs/1/hourly/allocations/2/allocatedGpus").remove(0),
                        "runs[1].hourly.allocations[2].allocatedGpus", "values, got"),
                corrupt("cluster-wide hourly array one hour short", r -> array(r, "/runs/0/hourly/healthyGpus").remove(0),
                        "runs[0].hourly.healthyGpus", "values, got"),
                corrupt("an allocation's series missing", r -> array(r, "/runs/0/hourly/allocations").remove(2),
                        "runs[0].hourly.allocations", "3 allocations"),
                corrupt("zero hours", r -> at(r, "/runs/0/hourly").put("hours", 0),
                        "runs[0].hourly.hours", "at least one hour"),
                corrupt("a wait curve of 200 quantiles", r -> array(r, "/runs/0/waitCurves/all/seconds").remove(0),
                        "runs[0].waitCurves.all", "0 or 201 quantiles"),
                corrupt("the large wait curve missing", r -> at(r, "/runs/0/waitCurves").remove("large"),
                        "runs[0].waitCurves", "curves for all, debug and large"),
                corrupt("runs missing entirely", r -> r.remove("runs"),
                        "runs", "metrics only"),
                corrupt("a metrics-only document", r -> r.remove(List.of("runs", "nodes", "workloads")),
                        "runs", "re-run 'allot simulate ... --json FILE'"),
                corrupt("the nodes missing", r -> r.remove("nodes"),
                        "runs", "metrics only"),
                corrupt("one run for two policies", r -> array(r, "/runs").remove(1),
                        "runs", "one run per policy (2), got 1"),
                corrupt("runs in another order than the policies", r -> {
                    ArrayNode runs = array(r, "/runs");
                    JsonNode first = runs.remove(0);
                    runs.add(first);
                }, "runs[0].policy", "'allocation' (the order of policies)"),
                corrupt("a node of no GPUs", r -> array(r, "/nodes/gpus").set(1, 0),
                        "nodes.gpus", "a whole number from 1 to 4,096 (the GPUs of one machine), got 0"),
                corrupt("more node names than GPU counts", r -> array(r, "/nodes/names").add("node-04"),
                        "nodes", "as many node names as GPU counts"),
                corrupt("a workload column one short", r -> array(r, "/workloads/gpus").remove(0),
                        "workloads.gpus", "12 values, got 11"),
                corrupt("a workload in no allocation of the tree", r -> array(r, "/workloads/allocation").set(3, 3),
                        "workloads.allocation", "values in -1..2, got 3 at index 3"),
                corrupt("a priority with no name", r -> array(r, "/workloads/priority").set(0, 9),
                        "workloads.priority", "got 9"),
                corrupt("wrong schema string", r -> r.put("schema", "allot.simulate/2"),
                        "schema", "expected 'allot.simulate/1', got 'allot.simulate/2'"),
                corrupt("no schema", r -> r.remove("schema"),
                        "schema", "got none"),
                corrupt("a string for a number", r -> at(r, "/runs/0").put("endSeconds", "soon"),
                        "runs[0].endSeconds", "expected a number, got string"),
                corrupt("an object for a list", r -> at(r, tl).putObject("slots"),
                        "runs[0].timeline.slots", "expected a list"),
                corrupt("a string inside a number list", r -> array(r, tl + "/end").set(0, "done"),
                        "runs[0].timeline.end[0]", "expected a number"),
                corrupt("null for a count", r -> at(r, tl).putNull("runs"),
                        "runs[0].timeline.runs", "expected a number"),
                corrupt("an unknown field", r -> at(r, "/runs/0").put("colour", "red"),
                        "runs[0].colour", "expected the --json output of 'allot simulate'"),
                corrupt("no scenario", r -> r.remove("scenario"),
                        "scenario", "the scenario with its allocation tree"),
                corrupt("no policies", r -> r.putArray("policies"),
                        "policies", "the metrics of at least one policy"),
                corrupt("a null run", r -> array(r, "/runs").set(1, JSON.nullNode()),
                        "runs[1].policy", "'legacy'"),
                corrupt("a null wait curve", r -> at(r, "/runs/0/waitCurves").putNull("debug"),
                        "runs[0].waitCurves.debug", "0 or 201 quantiles"),
                corrupt("a null allocation series", r -> array(r, "/runs/0/hourly/allocations").set(0, JSON.nullNode()),
                        "runs[0].hourly.allocations[0]", "an allocation's series"),
                corrupt("a null timeline", r -> at(r, "/runs/1").putNull("timeline"),
                        "runs[1].timeline.runs", "a count >= 0"),
                corrupt("null node periods", r -> at(r, tl).putNull("periodNode"),
                        "runs[0].timeline.periodNode", "a list (maybe empty)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corruptions")
    void aCorruptedDocumentIsRejectedNamingTheFileAndTheField(Corruption c) throws IOException {
        assertRejected(c);
    }

    // Corruptions the fuzz-style review found slipping past DocumentCheck (null entries, int overflow), kept as
    // regression tests.

    @Test
    void aNullPolicyIsRejected() throws IOException {
        assertRejected(corrupt("a null policy", r -> array(r, "/policies").set(1, JSON.nullNode()),
                "policies[1]", "expected"));
    }

    @Test
    void aPolicyWithoutItsNameIsRejected() throws IOException {
        assertRejected(corrupt("a policy without its name", r -> at(r, "/policies/0").remove("policy"),
                "policies[0].policy", "expected"));
    }

    @Test
    void aNullAllocationInTheTreeIsRejected() throws IOException {
        assertRejected(corrupt("a null allocation in the tree", r -> array(r, "/scenario/allocations").set(5, JSON.nullNode()),
                "scenario.allocations[5]", "expected"));
    }

    @Test
    void aLaneSoLargeThatLanePlusCountOverflowsIsRejected() throws IOException {
        assertRejected(corrupt("a lane so large that lane + count overflows", r -> {
            array(r, "/runs/0/timeline/slots").set(1, Integer.MAX_VALUE);
            array(r, "/runs/0/timeline/slots").set(2, 1);
        }, "runs[0].timeline.slots", "lanes within the node's 8 GPUs"));
    }

    @Test
    void aLaneCountSoLargeThatLanePlusCountOverflowsIsRejected() throws IOException {
        assertRejected(corrupt("a lane count so large that lane + count overflows", r -> {
            array(r, "/runs/0/timeline/slots").set(1, 1);
            array(r, "/runs/0/timeline/slots").set(2, Integer.MAX_VALUE);
        }, "runs[0].timeline.slots", "lanes within the node's 8 GPUs"));
    }

    /** Applies the corruption to the tiny document, saves it, and expects {@link #load} to reject it as described. */
    private void assertRejected(Corruption c) throws IOException {
        ObjectNode root = (ObjectNode) JSON.readTree(text);
        String before = root.toString();
        c.edit().accept(root);
        assertThat(root.toString()).as("the edit changed the document").isNotEqualTo(before);
        Path file = tmp.resolve("corrupt.json");
        Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
        Throwable thrown = catchThrowable(() -> load(file));
        assertThat(thrown).as(c.name()).isInstanceOf(InputException.class);
        InputException e = (InputException) thrown;
        assertThat(e.file()).isEqualTo(file.toString());
        assertThat(e.getMessage()).as(c.name()).startsWith(file.toString())
                .contains("field '" + c.field() + "'").contains(c.problem());
    }

    @Test
    void aMetricsOnlyDocumentSaysHowToGetTheRuns() throws IOException {
        // what an older Allot, or 'allot simulate' without the runs, wrote: every field but the three of the runs
        Path file = tmp.resolve("metrics-only.json");
        ObjectNode root = (ObjectNode) JSON.readTree(text);
        root.remove(List.of("runs", "nodes", "workloads"));
        Files.writeString(file, root.toString());
        assertThatThrownBy(() -> load(file)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(file + ": field 'runs': ")
                .hasMessageContaining("metrics only")
                .hasMessageContaining("re-run 'allot simulate ... --json FILE'")
                .hasMessageContaining("--report FILE");
    }

    @Test
    void aMissingFileIsNamed() {
        Path file = tmp.resolve("nowhere.json");
        assertThatThrownBy(() -> load(file)).isInstanceOf(InputException.class)
                .hasMessage(file + ": no such file");
    }

    @Test
    void malformedJsonIsLocated() throws IOException {
        // the closing brace of the document gone: the parser reaches the end inside the root object
        Path file = Files.writeString(tmp.resolve("cut.json"), text.substring(0, text.lastIndexOf('}')));
        assertThatThrownBy(() -> load(file)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(file.toString() + ":")
                .hasMessageContaining("malformed JSON");
        Path comma = Files.writeString(tmp.resolve("comma.json"), text.replaceFirst("\"schema\" : ", "\"schema\" , "));
        assertThatThrownBy(() -> load(comma)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(comma + ":2:")
                .hasMessageContaining("malformed JSON");
    }

    @Test
    void givenADocumentCutBeforeItsLastBrace_whenLoaded_thenTheErrorSaysWhereTheObjectOpenedWithoutTheParsersJavaWords()
            throws IOException {
        // it said '(start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled);
        // line: 1, column: 1])'
        Path file = Files.writeString(tmp.resolve("cut.json"), text.substring(0, text.lastIndexOf('}')));
        assertThatThrownBy(() -> load(file)).isInstanceOf(InputException.class)
                .hasMessageContaining("malformed JSON: the file ends inside an object opened at line 1, column 1"
                        + " (truncated?); expected the --json output of 'allot simulate'")
                .hasMessageNotContaining("Source").hasMessageNotContaining("StreamReadFeature");
    }

    @Test
    void givenADocumentCutInsideAList_whenLoaded_thenTheErrorSaysTheFileEndsThereWithoutTheParsersJavaWords()
            throws IOException {
        // it said 'Unexpected end-of-input: expected close marker for Array (start marker at [Source: REDACTED
        // (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 214, column: 26])'
        String cut = text.substring(0, text.indexOf('[', text.indexOf("\"healthyGpus\"")) + 1) + "24,24";
        Path file = Files.writeString(tmp.resolve("cut.json"), cut);
        assertThatThrownBy(() -> load(file)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(file + ":")
                .hasMessageContaining("the file ends inside a list opened at line ")
                .hasMessageContaining("(truncated?)")
                .hasMessageNotContaining("Source").hasMessageNotContaining("StreamReadFeature")
                .hasMessageNotContaining("end-of-input");
    }

    @Test
    void anEmptyFileAndANullDocumentAreRejected() throws IOException {
        Path empty = Files.writeString(tmp.resolve("empty.json"), "");
        assertThatThrownBy(() -> load(empty)).isInstanceOf(InputException.class).hasMessageStartingWith(empty.toString());
        Path nul = Files.writeString(tmp.resolve("null.json"), "null\n");
        assertThatThrownBy(() -> load(nul)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(nul.toString()).hasMessageContaining("empty document");
    }

    @Test
    void validateRejectsADocumentBuiltInMemoryToo() {
        // the check does not depend on the JSON reader: a document with metrics only, as built for --json alone
        JsonReport.Document metricsOnly = new JsonReport.Document(document.schema(), document.allot(),
                document.scenario(), document.policies(), null, null, List.of());
        assertThatThrownBy(() -> HtmlReport.render(metricsOnly)).isInstanceOf(InputException.class)
                .hasMessageStartingWith("the run data: field 'runs': ");
    }

    // ---------------------------------------------------------------------------------------------------------
    // fuzz

    /** Mutations of the JSON text: the kind and where. */
    private record Mutation(String bytes, String what) {
    }

    private static final String JSON_CHARS = "{}[],:\"-0123456789.eEtrufalsn \n";

    /** One random mutation of {@code in}; {@code what} names it and its offset for the failure message. */
    private static Mutation mutate(byte[] in, Random r) {
        int n = in.length;
        int at = r.nextInt(n);
        byte[] out;
        String what;
        switch (r.nextInt(6)) {
            case 0 -> {
                out = in.clone();
                int bit = r.nextInt(8);
                out[at] ^= (byte) (1 << bit);
                what = "bit " + bit + " flipped at offset " + at;
            }
            case 1 -> {
                out = in.clone();
                char c = JSON_CHARS.charAt(r.nextInt(JSON_CHARS.length()));
                out[at] = (byte) c;
                what = "byte at offset " + at + " replaced by '" + c + "'";
            }
            case 2 -> {
                int len = 1 + r.nextInt(Math.min(40, n - at));
                out = new byte[n - len];
                System.arraycopy(in, 0, out, 0, at);
                System.arraycopy(in, at + len, out, at, n - at - len);
                what = len + " bytes deleted at offset " + at;
            }
            case 3 -> {
                int len = 1 + r.nextInt(Math.min(40, n - at));
                out = new byte[n + len];
                System.arraycopy(in, 0, out, 0, at + len);
                System.arraycopy(in, at, out, at + len, n - at);
                what = len + " bytes duplicated at offset " + at;
            }
            case 4 -> {
                out = java.util.Arrays.copyOf(in, at);
                what = "truncated at offset " + at;
            }
            default -> {
                // a digit changed: keeps the JSON well-formed and reaches the checks of values
                int d = at;
                while (d < n && (in[d] < '0' || in[d] > '9')) {
                    d++;
                }
                out = in.clone();
                if (d < n) {
                    out[d] = (byte) ('0' + r.nextInt(10));
                    what = "digit at offset " + d + " set to '" + (char) out[d] + "'";
                } else {
                    what = "no digit after offset " + at + ", unchanged";
                }
            }
        }
        return new Mutation(new String(out, StandardCharsets.ISO_8859_1), what);
    }

    @Test
    void aFuzzedFileIsRenderedOrRejectedWithAnInputExceptionNeverAnythingElse() throws IOException {
        byte[] original = text.getBytes(StandardCharsets.UTF_8);
        List<String> failures = new ArrayList<>();
        int rendered = 0;
        int rejected = 0;
        for (long seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            Mutation m = mutate(original, random);
            // a second mutation on every third case: broken in two places at once
            byte[] bytes = m.bytes().getBytes(StandardCharsets.ISO_8859_1);
            String what = m.what();
            if (seed % 3 == 0 && bytes.length > 0) {
                Mutation second = mutate(bytes, random);
                bytes = second.bytes().getBytes(StandardCharsets.ISO_8859_1);
                what += ", then " + second.what();
            }
            Path file = tmp.resolve("fuzz-" + seed + ".json");
            Files.write(file, bytes);
            try {
                load(file);
                rendered++;
            } catch (InputException e) {
                rejected++;
                if (!e.getMessage().startsWith(file.toString())) {
                    failures.add("seed " + seed + " (" + what + "): message does not name the file: " + e.getMessage());
                }
            } catch (Exception | StackOverflowError e) {
                // anything else, Jackson's own exceptions included, escaped: name the first frame of Allot's code
                StackTraceElement where = java.util.Arrays.stream(e.getStackTrace())
                        .filter(f -> f.getClassName().startsWith("dev.allot.") && !f.getClassName().endsWith("Test"))
                        .findFirst().orElse(e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null);
                failures.add("seed " + seed + " (" + what + "): " + e + " at " + where);
            }
            Files.delete(file);
        }
        assertThat(failures).as("fuzz cases that escaped as other exceptions").isEmpty();
        // neither outcome is vacuous: some mutations are harmless (a digit in a number), most are not
        assertThat(rendered).isPositive();
        assertThat(rejected).isPositive();
    }
}
