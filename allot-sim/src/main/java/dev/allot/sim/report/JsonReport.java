package dev.allot.sim.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
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

    private JsonReport() {
    }

    /** The whole document. */
    public record Document(String schema, ScenarioSummary scenario, List<PolicyMetrics> policies) {
    }

    /** What was simulated; {@code trace} says what the import of a real trace did (absent otherwise). */
    public record ScenarioSummary(String name, int nodes, int gpus, int healthEvents, int workloads, int rejected,
                                  SortedMap<String, String> settings, List<Allocation> allocations,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) ImportSummary trace) {
    }

    /** One node of the allocation tree with its absolute entitlement. */
    public record Allocation(String name, String path, double share, double entitlement, boolean leaf) {
    }

    public static Document document(Scenario s, List<SimulationResult> results) {
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
        return new Document(SCHEMA, summary, results.stream().map(SimulationResult::metrics).toList());
    }

    public static void write(Scenario s, List<SimulationResult> results, Writer out) throws IOException {
        MAPPER.writeValue(out, document(s, results));
        out.write('\n');
    }

    public static Document read(java.io.Reader in) throws IOException {
        return MAPPER.readValue(in, Document.class);
    }
}
