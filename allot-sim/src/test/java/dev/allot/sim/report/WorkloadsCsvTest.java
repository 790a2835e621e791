package dev.allot.sim.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.sim.input.InputException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The workloads CSV reads back what it writes, to the millisecond, and names the line and column of a bad cell. */
class WorkloadsCsvTest {
    private static final String HEADER = "policy,id,allocation,submit,first_start,end,wait_seconds,preemptions,final_state\n";

    @Test
    void measuredTimesKeepTheirMillisecondsAndWholeSecondsPrintWithoutDecimals() throws Exception {
        List<WorkloadsCsv.Row> rows = List.of(
                new WorkloadsCsv.Row("allocation", "t1", "a", 3, 3.3125, 12.04, 0.3125, 1, "completed"),
                new WorkloadsCsv.Row("allocation", "t2", "b", 4, -1, -1, -1, 0, "pending"));
        StringWriter out = new StringWriter();
        WorkloadsCsv.writeRows(rows, out);
        assertThat(out.toString()).isEqualTo(HEADER + "allocation,t1,a,3,3.313,12.04,0.313,1,completed\n"
                + "allocation,t2,b,4,-1,-1,-1,0,pending\n");
        List<WorkloadsCsv.Row> back = WorkloadsCsv.read(new StringReader(out.toString()), "x.csv");
        assertThat(back.get(0).firstStartSeconds()).isEqualTo(3.313);
        assertThat(back.get(0).endSeconds()).isEqualTo(12.04);
        assertThat(back.get(1)).isEqualTo(rows.get(1));
        assertThat(back.get(1).started()).isFalse();
    }

    @Test
    void aBadCellIsNamedByFileLineAndColumn() {
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER
                + "p,t1,a,3,4,9,1,0,completed\np,t2,a,3,soon,9,1,0,completed\n"), "live.csv"))
                .isInstanceOf(InputException.class)
                .hasMessage("live.csv:3:5: field 'first_start': expected seconds >= 0, or -1 when it did not happen,"
                        + " got 'soon'");
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER + "p,t1,a,-1,4,9,1,0,completed\n"),
                "live.csv")).hasMessage("live.csv:2:4: field 'submit': expected seconds >= 0, got '-1'");
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER + "p,t1,a,1,4,9,1,-2,completed\n"),
                "live.csv")).hasMessage("live.csv:2:8: field 'preemptions': expected a whole number >= 0, got '-2'");
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER + "p,t1,a,1,4,9,1,0,completed\n"
                + "p,t1,a,1,4,9,1,0,completed\n"), "live.csv"))
                .hasMessage("live.csv:3:2: field 'id': workload 't1' appears twice for policy 'p'; expected one row per"
                        + " workload and policy");
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader("id,submit\nt1,3\n"), "x.csv"))
                .hasMessageStartingWith("x.csv:1: the header row lacks required columns policy, allocation");
        // a trace given to compare named the nine columns twice: "lacks required columns policy, ...; required
        // columns: policy, ..."
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader("timestamp,duration,num_gpus,gpu_time,cluster\n"
                + "2017-10-02 09:14:05,5400.0,8,43200.0,vc-vision\n"), "jobs.csv"))
                .hasMessageStartingWith("jobs.csv:1: the header row names none of the required columns policy, id,"
                        + " allocation, submit, first_start, end, wait_seconds, preemptions, final_state; is the");
        // compare took any final state: a typo read as a difference between the runs
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER + "p,t1,a,1,4,9,1,0,complete\n"),
                "live.csv")).hasMessage("live.csv:2:9: field 'final_state': expected one of pending, running,"
                + " preempted, requeued, completed, failed, cancelled, got 'complete'");
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER + "p,t1,a,1,4,9,1,0,\n"),
                "live.csv")).hasMessageContaining("field 'final_state': expected one of pending");
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER + "p,t1,a,1e3,4,9,1,0,completed\n"),
                "x.csv")).hasMessageContaining("x.csv:2:4: field 'submit'");
    }

    @Test
    void aRowWithACellMoreOrLessThanTheHeaderIsRefusedNotTrimmed() {
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER + "p,t1,a,3,4,9,1,0,completed,extra\n"),
                "live.csv")).isInstanceOf(InputException.class)
                .hasMessage("live.csv:2:10: expected 9 cells as in the header row, got 10");
        assertThatThrownBy(() -> WorkloadsCsv.read(new StringReader(HEADER + "p,t1,a,3,4,9,1,0\n"), "live.csv"))
                .hasMessage("live.csv:2:9: expected 9 cells as in the header row, got 8");
    }
}
