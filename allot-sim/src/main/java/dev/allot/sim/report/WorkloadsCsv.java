package dev.allot.sim.report;

import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.WorkloadRecord;
import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * The {@code --workloads-out} CSV: one row per workload and policy,
 * {@code policy,id,allocation,submit,first_start,end,wait_seconds,preemptions,final_state}; times in seconds from
 * time 0, -1 when it did not happen.
 */
public final class WorkloadsCsv {
    private static final CsvMapper MAPPER = new CsvMapper();
    private static final CsvSchema SCHEMA = CsvSchema.builder()
            .addColumn("policy").addColumn("id").addColumn("allocation")
            .addNumberColumn("submit").addNumberColumn("first_start").addNumberColumn("end")
            .addNumberColumn("wait_seconds").addNumberColumn("preemptions").addColumn("final_state")
            .build().withHeader().withLineSeparator("\n");

    private WorkloadsCsv() {
    }

    public static void write(List<SimulationResult> results, Writer out) throws IOException {
        try (SequenceWriter w = MAPPER.writer(SCHEMA).without(com.fasterxml.jackson.core.JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                .writeValues(out)) {
            for (SimulationResult r : results) {
                for (WorkloadRecord x : r.workloads()) {
                    w.write(new Object[] {x.policy(), x.id(), x.allocation(), x.submitSeconds(), x.firstStartSeconds(),
                            x.endSeconds(), x.waitSeconds(), x.preemptions(), x.finalState()});
                }
            }
        }
    }
}
