package dev.allot.sim.trace;

import static dev.allot.sim.trace.Traces.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import dev.allot.sim.input.InputException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Philly rows: sorted out of file order, ids from lines, time 0, decimal durations, and every rejection. */
class PhillyFormatTest {
    private static final String HEADER = "timestamp,duration,num_gpus,gpu_time,cluster\n";
    private static final String GOOD = "2017-10-09 07:01:55,66.0,1,66.0,11cb48";

    @TempDir
    Path tmp;

    private static long at(String utc) {
        return Instant.parse(utc).getEpochSecond() - Instant.parse("2017-10-03T07:58:32Z").getEpochSecond();
    }

    @Test
    void unsortedRowsComeOutSortedBySubmissionThenId() {
        Scenario s = Traces.of("philly", Traces.fixture("philly.csv")).read();
        WorkloadTable t = (WorkloadTable) s.workloads();
        assertThat(s.name()).isEqualTo("philly.csv");
        assertThat(t).extracting(WorkloadSpec::id)
                .containsExactly("philly-000004", "philly-000006", "philly-000003", "philly-000005", "philly-000002");
        assertThat(t).extracting(WorkloadSpec::submitSeconds).containsExactly(0L, at("2017-10-04T00:00:00Z"),
                at("2017-10-09T06:13:03Z"), at("2017-10-09T06:13:03Z"), at("2017-10-09T07:01:55Z"));
        assertThat(t).extracting(WorkloadSpec::allocation).containsExactly("6c71a0", "11cb48", "6214e9", "6214e9",
                "11cb48");
        assertThat(t).extracting(WorkloadSpec::gpus).containsExactly(8, 4, 1, 2, 1);
        assertThat(t.get(3).duration()).isEqualTo(Duration.ofSeconds(2760)); // 2759.5 rounded up
        assertThat(t.get(0).user()).isEqualTo("-");
        assertThat(t.summary().timeZeroEpoch()).isEqualTo(Instant.parse("2017-10-03T07:58:32Z").getEpochSecond());
        assertThat(t.summary().rowsRead()).isEqualTo(5);
        assertThat(t.summary().format()).isEqualTo("philly");
    }

    @Test
    void givenAnAlibabaFileGivenAsPhilly_whenImported_thenTheErrorNamesTheFormatItsHeaderIsOf() throws Exception {
        // it said '... names none of the required columns timestamp, duration, num_gpus, cluster; is the header row
        // missing? ...', though the header was there: of another format
        Path openb = java.nio.file.Files.writeString(tmp.resolve("openb.csv"), "name,cpu_milli,memory_mib,num_gpu,"
                + "gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                + "openb-pod-0000,12000,16384,1,1000,,Burstable,Succeeded,0,12537496,0\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Traces.of("philly", openb).read())
                .isInstanceOf(InputException.class)
                .hasMessage("openb.csv:1: the header row names none of the required columns timestamp, duration,"
                        + " num_gpus, cluster; its header is that of the alibaba-openb format: give it as --trace"
                        + " alibaba-openb:FILE (or format: alibaba-openb in trace.yaml)");
        Path philly = java.nio.file.Files.writeString(tmp.resolve("jobs.csv"), HEADER + GOOD + "\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Traces.of("tiresias", philly).read())
                .hasMessageEndingWith("; its header is that of the philly format: give it as --trace philly:FILE (or"
                        + " format: philly in trace.yaml)");
    }

    @Test
    void startMovesTimeZeroAndRejectsEarlierRows() {
        long start = Instant.parse("2017-10-04T00:00:00Z").getEpochSecond();
        Scenario s = Traces.of("philly", Traces.fixture("philly.csv")).start(start).lenient(true).read();
        assertThat(s.workloads()).extracting(WorkloadSpec::submitSeconds).first().isEqualTo(0L);
        assertThat(s.rejected()).containsExactly("philly.csv:4:1: field 'timestamp': expected a time at or after start"
                + " (2017-10-04T00:00:00Z in cluster.yaml), got '2017-10-03 07:58:32'");
    }

    @Test
    void timestampsAcceptTheIsoSeparatorAndZone() {
        assertThat(PhillyFormat.epochSeconds("2017-10-09T07:01:55Z")).isEqualTo(PhillyFormat.epochSeconds(
                "2017-10-09 07:01:55")).isEqualTo(Instant.parse("2017-10-09T07:01:55Z").getEpochSecond());
        for (String bad : List.of("2017-10-09", "2017-02-30 00:00:00", "2017-10-09 24:00:00", "17-10-09 07:01:55",
                "2017-10-09 07:01:5x", "1969-12-31 23:59:59")) {
            assertThat(PhillyFormat.epochSeconds(bad)).as(bad).isEqualTo(-1);
        }
    }

    @Test
    void durationsAreDecimalSecondsRoundedUp() {
        assertThat(PhillyFormat.secondsRoundedUp("66.0")).isEqualTo(66);
        assertThat(PhillyFormat.secondsRoundedUp("66")).isEqualTo(66);
        assertThat(PhillyFormat.secondsRoundedUp("66.01")).isEqualTo(67);
        assertThat(PhillyFormat.secondsRoundedUp("0.5")).isEqualTo(1);
        assertThat(PhillyFormat.secondsRoundedUp("1e3")).isEqualTo(1000);
        assertThat(PhillyFormat.secondsRoundedUp("0.0")).isZero();
        for (String bad : List.of("-3.0", "soon", "1.2.3", "", "66.0s")) {
            assertThat(PhillyFormat.secondsRoundedUp(bad)).as(bad).isEqualTo(-1);
        }
    }

    private InputException row(String row) {
        return Traces.error(Traces.of("philly", Traces.write(tmp, "p.csv", HEADER + GOOD + "\n" + row + "\n")));
    }

    @Test
    void everyBadFieldIsRejectedWithItsLocation() {
        assertError(row("2017-13-09 07:01:55,66.0,1,66.0,11cb48"), "p.csv", 3, 1, "timestamp",
                "expected a UTC time such as 2017-10-09 07:01:55, got '2017-13-09 07:01:55'");
        assertError(row(",66.0,1,66.0,11cb48"), "p.csv", 3, 1, "timestamp",
                "expected a UTC time such as 2017-10-09 07:01:55, got nothing");
        assertError(row("2017-10-09 07:01:55,soon,1,66.0,11cb48"), "p.csv", 3, 2, "duration",
                "expected a positive number of seconds, got 'soon'");
        assertError(row("2017-10-09 07:01:55,0.0,1,0.0,11cb48"), "p.csv", 3, 2, "duration",
                "expected a positive number of seconds, got '0.0'");
        assertError(row("2017-10-09 07:01:55,66.0,0,0.0,11cb48"), "p.csv", 3, 3, "num_gpus",
                "expected a whole number >= 1, got '0'");
        assertError(row("2017-10-09 07:01:55,66.0,1.5,99.0,11cb48"), "p.csv", 3, 3, "num_gpus",
                "expected a whole number >= 1, got '1.5'");
        // numbers too large said as such (they read 'expected a positive number of seconds' / '>= 1')
        assertError(row("2017-10-09 07:01:55,1e300,1,66.0,11cb48"), "p.csv", 3, 2, "duration",
                "expected a positive number of seconds, at most 2,147,483,647 (68 years), got '1e300'");
        assertError(row("2017-10-09 07:01:55,66.0,99999999999,66.0,11cb48"), "p.csv", 3, 3, "num_gpus",
                "expected a whole number >= 1, at most 2,147,483,647, got '99999999999'");
        assertError(row("2017-10-09 07:01:55,66.0,99999999999999999999,66.0,11cb48"), "p.csv", 3, 3, "num_gpus",
                "expected a whole number >= 1, at most 2,147,483,647, got '99999999999999999999'");
        assertError(row("2017-10-09 07:01:55,66.0,64,4224.0,11cb48"), "p.csv", 3, 3, "num_gpus",
                "expected at most 16 GPUs (the cluster has 16 GPUs on 2 nodes), got 64");
        assertError(row("2017-10-09 07:01:55,66.0,1,66.0,"), "p.csv", 3, 5, "cluster",
                "expected the name of a Philly virtual cluster, got nothing");
        assertError(row("2017-10-09 07:01:55,66.0,1"), "p.csv", 3, 4, null,
                "expected 5 cells as in the header row, got 3");
        InputException e = row("2017-10-09 07:01:55,66.0,1");
        assertThat(e.getMessage()).isEqualTo("p.csv:3:4: expected 5 cells as in the header row, got 3");
    }

    @Test
    void aHeaderWithoutARequiredColumnIsAnError() {
        Path p = Traces.write(tmp, "p.csv", "timestamp,duration,gpus,cluster\n" + GOOD + "\n");
        assertError(Traces.error(Traces.of("philly", p)), "p.csv", 1, 0, null,
                "the header row lacks required column num_gpus; required columns: timestamp, duration, num_gpus,"
                        + " cluster");
        assertError(Traces.error(Traces.of("philly", Traces.write(tmp, "e.csv", ""))), "e.csv", 0, 0, null,
                "the file is empty; expected a header row such as timestamp,duration,num_gpus,gpu_time,cluster");
    }

    @Test
    void aSemicolonSeparatedTraceIsSaidToBeOne() {
        Path p = Traces.write(tmp, "p.csv", "timestamp;duration;num_gpus;gpu_time;cluster\n");
        assertThat(Traces.error(Traces.of("philly", p)).getMessage()).isEqualTo("p.csv:1: the header row names"
                + " none of the required columns timestamp, duration, num_gpus, cluster; the file is separated by ';':"
                + " p.csv is comma-separated (CSV)");
    }

    @Test
    void lenientImportsCountAndKeepEveryRejectedRow() {
        Scenario s = Traces.of("philly", Traces.fixture("philly-bad.csv")).lenient(true).read();
        WorkloadTable t = (WorkloadTable) s.workloads();
        assertThat(t).extracting(WorkloadSpec::id).containsExactly("philly-000002", "philly-000010");
        assertThat(s.rejected()).hasSize(7);
        assertThat(s.rejected().get(0)).startsWith("philly-bad.csv:3:1: field 'timestamp'");
        assertThat(s.rejected().get(6)).startsWith("philly-bad.csv:9:4: expected 5 cells");
        assertThat(t.summary().rowsRead()).isEqualTo(9);
        assertThat(t.summary().imported()).isEqualTo(2);
        assertThat(t.summary().rejected()).isEqualTo(7);
    }

    @Test
    void aMissingFileIsAnInputError() {
        Path nowhere = tmp.resolve("nowhere.csv");
        InputException e = Traces.error(Traces.of("philly", nowhere));
        assertError(e, nowhere.toString(), 0, 0, null, "no such file; expected a philly trace file; hint: check the"
                + " file's name");
        assertThat(e.getMessage()).containsOnlyOnce("nowhere.csv");
        assertError(Traces.error(Traces.of("philly", tmp.resolve("gone/nowhere.csv"))), tmp.resolve("gone/nowhere.csv")
                .toString(), 0, 0, null, "no such file; expected a philly trace file; hint: the folder "
                + tmp.resolve("gone") + " does not exist either");
        assertError(Traces.error(Traces.of("philly", tmp)), tmp.toString(), 0, 0, null, "a folder, not a file;"
                + " expected a philly trace file; hint: name the trace file inside it");
        assertError(Traces.error(Traces.of("native", nowhere)), nowhere.toString(), 0, 0, null, "no such file;"
                + " expected a native trace file or folder; hint: check the file's name");
    }
}
