package dev.allot.sim.trace;

import static dev.allot.sim.trace.Traces.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.input.InputException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SWF: comments, -1 for unknown, processors as GPUs, user or group as allocation, rejections. */
class SwfFormatTest {
    private static final String JOB = "    1      0   10   3600   4  -1 -1   4  7200 -1 1  3  1 -1 1 -1 -1 -1";

    @TempDir
    Path tmp;

    @Test
    void jobsWithKnownTimesAndProcessorsBecomeWorkloads() {
        WorkloadTable t = Traces.table(Traces.of("swf", Traces.fixture("sample.swf")));
        assertThat(t).extracting(WorkloadSpec::id, WorkloadSpec::submitSeconds, WorkloadSpec::allocation,
                        WorkloadSpec::user, WorkloadSpec::gpus, w -> w.duration().getSeconds())
                .containsExactly(
                        tuple("swf-1", 0L, "user-3", "user-3", 4, 3600L),
                        tuple("swf-3", 120L, "user-7", "user-7", 8, 600L),  // allocated unknown: requested
                        tuple("swf-7", 300L, "user-unknown", "user-unknown", 16, 86400L));
        ImportSummary s = t.summary();
        assertThat(s.rowsRead()).isEqualTo(7); // comments and blank lines are not rows
        assertThat(s.skipped()).isEqualTo(Map.of("unknown run time", 1L, "unknown processors", 1L,
                "unknown submit time", 1L, "zero run time", 1L));
        assertThat(s.rejected()).isZero();
    }

    @Test
    void theGroupCanBeTheAllocation() {
        WorkloadTable t = Traces.table(Traces.of("swf", Traces.fixture("sample.swf"))
                .formatSettings(Map.of("allocation-by", "group")));
        assertThat(t).extracting(WorkloadSpec::allocation, WorkloadSpec::user).containsExactly(
                tuple("group-1", "user-3"), tuple("group-2", "user-7"), tuple("group-unknown", "user-unknown"));
    }

    @Test
    void badSettingsNameTheValidChoices() {
        assertThatThrownBy(() -> Traces.of("swf", Traces.fixture("sample.swf"))
                .formatSettings(Map.of("allocation-by", "queue")).read())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("trace format 'swf': setting 'allocation-by': expected user or group, got 'queue'");
        assertThatThrownBy(() -> Traces.of("swf", Traces.fixture("sample.swf"))
                .formatSettings(Map.of("by", "user")).read())
                .hasMessage("trace format 'swf': unknown setting 'by'; valid settings: allocation-by");
    }

    private InputException line(String line) {
        return Traces.error(Traces.of("swf", Traces.write(tmp, "log.swf", "; header\n" + JOB + "\n" + line + "\n")));
    }

    @Test
    void badLinesAreRejectedAtTheirField() {
        assertError(line("2 60 -1 600 2 -1 -1 2 3600 -1 1 3 1 -1 1 -1 -1"), "log.swf", 3, 18, null,
                "expected 18 whitespace-separated fields (the Standard Workload Format), got 17");
        assertError(line("2 60 -1 ten 2 -1 -1 2 3600 -1 1 3 1 -1 1 -1 -1 -1"), "log.swf", 3, 4, "run_time",
                "expected a whole number >= 0, or -1 for unknown, got 'ten'");
        assertError(line("2 60 -1 600 -5 -1 -1 2 3600 -1 1 3 1 -1 1 -1 -1 -1"), "log.swf", 3, 5,
                "allocated_processors", "expected a whole number >= 0, or -1 for unknown, got '-5'");
        assertError(line("2 60 -1 600 32 -1 -1 32 3600 -1 1 3 1 -1 1 -1 -1 -1"), "log.swf", 3, 5,
                "allocated_processors", "expected at most 16 GPUs (the cluster has 16 GPUs on 2 nodes), got 32");
        assertError(line("1 60 -1 600 2 -1 -1 2 3600 -1 1 3 1 -1 1 -1 -1 -1"), "log.swf", 3, 1, "job_number",
                "expected a unique id, got 'swf-1', already used on line 2");
        assertThat(line("2 60 -1 600 2.5 -1 -1 2 3600 -1 1 3 1 -1 1 -1 -1 -1").getMessage())
                .isEqualTo("log.swf:3:5: field 'allocated_processors': expected a whole number >= 0, or -1 for"
                        + " unknown, got '2.5'");
    }

    @Test
    void aNumberTooLongForItsFieldSaysTheLimit() {
        assertError(line("2 99999999999999999999 -1 600 2 -1 -1 2 3600 -1 1 3 1 -1 1 -1 -1 -1"), "log.swf", 3, 2,
                "submit_time", "expected a whole number >= 0, at most 2,305,843,009,213,693,951, or -1 for unknown,"
                        + " got '99999999999999999999'");
    }

    @Test
    void lenientCountsRejectedAndSkippedLinesApart() {
        Path log = Traces.write(tmp, "log.swf", Traces.text("sample.swf")
                + "8 400 0 60 64 -1 -1 64 60 -1 1 3 1 -1 1 -1 -1 -1\n9 x\n");
        ImportSummary s = Traces.table(Traces.of("swf", log).lenient(true)).summary();
        assertThat(s.rowsRead()).isEqualTo(9);
        assertThat(s.imported()).isEqualTo(3);
        assertThat(s.rejected()).isEqualTo(2);
        assertThat(s.skippedTotal()).isEqualTo(4);
    }
}
