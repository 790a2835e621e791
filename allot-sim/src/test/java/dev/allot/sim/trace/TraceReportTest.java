package dev.allot.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.report.JsonReport;
import dev.allot.sim.report.TextReport;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reports say what the import read, left out and decided. */
class TraceReportTest {
    private static List<SimulationResult> run(Scenario s) {
        return List.of(new Simulator(s, PolicyRegistry.standard(), "allocation", Simulator.Options.defaults()).run());
    }

    @Test
    void theTextReportHeaderHasTheImportCountsAndTheContract() {
        Scenario s = Traces.of("alibaba-openb", Traces.fixture("alibaba-openb.csv")).read();
        String report = TextReport.render(s, run(s));
        assertThat(report).contains("workloads    6 (debug 3, train 3); 0 rejected;")
                .contains("trace        alibaba-openb alibaba-openb.csv: 8 rows read, 6 imported, 0 rejected,"
                        + " 2 skipped (no GPU 1, zero duration 1); 2 fractional GPU requests rounded up;")
                .contains("contract     checkpoint-every 30m, debug-if-shorter-than 15m, min-runtime 2h,"
                        + " resumable-if-longer-than 1h, seed 1, unallocated-fraction 0.1\n");
        assertThat(((WorkloadTable) s.workloads()).created()).isEqualTo(s.workloads().size() + 1);
    }

    @Test
    void givenOneRowOneTeamAndOneRoundedRequest_thenTheHeaderCountsInTheSingular(@org.junit.jupiter.api.io.TempDir
                                                                                 java.nio.file.Path dir) {
        // it said "1 leaves", "1 rows read", "1 fractional GPU requests rounded up", "1 minimum runtimes capped"
        java.nio.file.Path pods = Traces.write(dir, "one.csv", "name,num_gpu,gpu_milli,qos,creation_time,"
                + "scheduled_time,deletion_time\np1,1,500,LS,0,10,100000\n");
        Scenario s = Traces.of("alibaba-openb", pods).contract(ContractRule.parse(java.util.Map.of("min-runtime",
                "10h", "unallocated-fraction", "0"), "the test")).read();

        String report = TextReport.render(s, run(s));

        assertThat(report).contains("allocations  1 leaf; absolute entitlement of each node:",
                "; 1 minimum runtime capped at 8h\n", "one.csv: 1 row read, 1 imported,",
                "; 1 fractional GPU request rounded up;");
    }

    @Test
    void theJsonScenarioCarriesTheImportSummary() throws IOException {
        Scenario s = Traces.of("swf", Traces.fixture("sample.swf")).read();
        StringWriter out = new StringWriter();
        JsonReport.write(s, run(s), out);
        assertThat(out.toString()).contains("\"trace\" : {", "\"format\" : \"swf\"", "\"unknown run time\" : 1");
        JsonReport.Document back = JsonReport.read(new StringReader(out.toString()));
        assertThat(back.scenario().trace()).isEqualTo(((WorkloadTable) s.workloads()).summary());
    }
}
