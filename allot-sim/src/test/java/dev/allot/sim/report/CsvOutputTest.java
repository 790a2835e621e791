package dev.allot.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Allot's CSV files quote a cell only when RFC 4180 needs it. Jackson's default quoted any text longer than 24
 * characters unseen: a sweep's header had {@code "paid:lab/foundation/pretrain"} quoted and
 * {@code paid:lab/foundation/data} not, and a workloads file quoted long allocation paths.
 */
class CsvOutputTest {
    @Test
    void aLongCellIsNotQuotedAndOneWithACommaOrAQuoteIs() throws Exception {
        StringWriter out = new StringWriter();
        WorkloadsCsv.writeRows(List.of(
                new WorkloadsCsv.Row("allocation", "w1", "lab/foundation/pretrain-long-name", 0, 1, 2, 1, 0,
                        "completed"),
                new WorkloadsCsv.Row("allocation", "w,2", "lab/a", 0, 1, 2, 1, 0, "completed"),
                new WorkloadsCsv.Row("allocation", "say \"hi\"", "lab/a", 0, 1, 2, 1, 0, "completed")), out);
        assertThat(out.toString()).isEqualTo("""
                policy,id,allocation,submit,first_start,end,wait_seconds,preemptions,final_state
                allocation,w1,lab/foundation/pretrain-long-name,0,1,2,1,0,completed
                allocation,"w,2",lab/a,0,1,2,1,0,completed
                allocation,"say \"\"hi\"\"",lab/a,0,1,2,1,0,completed
                """);
    }

    @Test
    void theSweepHeaderQuotesNoLongAllocationPath() throws Exception {
        StringWriter out = new StringWriter();
        com.fasterxml.jackson.dataformat.csv.CsvSchema schema = com.fasterxml.jackson.dataformat.csv.CsvSchema.builder()
                .addColumn("paid:lab/foundation/pretrain").addColumn("paid:lab/foundation/data").build().withHeader()
                .withLineSeparator("\n");
        try (var w = CsvOutput.mapper().writer(schema).writeValues(out)) {
            w.write(new Object[] {"1.0000", ""});
        }
        assertThat(out.toString()).isEqualTo("paid:lab/foundation/pretrain,paid:lab/foundation/data\n1.0000,\n");
    }
}
