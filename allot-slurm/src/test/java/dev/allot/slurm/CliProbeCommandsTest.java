package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.allot.core.backend.BackendUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CliProbe} over stand-in Slurm commands that print captured answers, or fail as Slurm's do. */
class CliProbeCommandsTest {
    private static final String SCRIPT = """
            #!/bin/sh
            d=$(dirname "$0"); n=$(basename "$0")
            echo "$SLURM_CONF" > "$d/$n.conf"
            echo "$TZ" > "$d/$n.tz"
            echo "$*" >> "$d/$n.args"
            a="$d/$n.$(echo "$*" | tr ' ' '_')"; [ -f "$a.rc" ] || a="$d/$n"
            [ -f "$a.err" ] && cat "$a.err" >&2
            [ -f "$a.out" ] && cat "$a.out"
            exit $(cat "$a.rc" 2>/dev/null || echo 0)
            """;
    private static final String LIST = "-o show job";
    private static final String NO_JOBS = "No jobs in the system\n";

    @TempDir
    Path bin;
    private SlurmConfig config;

    @BeforeEach
    void commands() throws IOException {
        for (String c : new String[] {"squeue", "sinfo", "scontrol", "sacct"}) {
            Path p = bin.resolve(c);
            Files.writeString(p, SCRIPT);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        config = SlurmConfig.defaults(Path.of("/etc/test-slurm/slurm.conf"), bin, "inst1").withBinDir(bin)
                .withCommandTimeout(Duration.ofSeconds(20));
    }

    private void answer(String command, int rc, String out, String err) throws IOException {
        Files.writeString(bin.resolve(command + ".out"), out);
        Files.writeString(bin.resolve(command + ".err"), err);
        Files.writeString(bin.resolve(command + ".rc"), Integer.toString(rc));
    }

    /** What {@code command args} answers (other arguments get {@link #answer(String, int, String, String)}'s). */
    private void answer(String command, String args, int rc, String out, String err) throws IOException {
        answer(command + "." + args.replace(' ', '_'), rc, out, err);
    }

    private CliProbe probe(boolean accounting) {
        return new CliProbe(new Commands(config), accounting);
    }

    @Test
    void aCompleteListingReadsAsEveryJobAndTheCommandGetsTheClustersConf() throws IOException {
        answer("scontrol", LIST, 0, Fixtures.read("scontrol-jobs.txt"), "");

        assertThat(probe(false).jobs()).extracting(SlurmJob::id, SlurmJob::name, SlurmJob::state).containsExactly(
                tuple(391L, "allot:lock", "PENDING"), tuple(432L, "allot:w-23#1", "RUNNING"),
                tuple(3L, "allot:w-1#1", "COMPLETED"), tuple(12L, "allot:w-8#1", "CANCELLED"),
                tuple(1L, "rp-probe", "CANCELLED"));
        assertThat(probe(false).jobs().get(3).comment()).isEqualTo("allot:it-replay-c2dd15 preempted by w-11");
        assertThat(Files.readString(bin.resolve("scontrol.args")).strip()).startsWith(LIST);
        assertThat(Files.readString(bin.resolve("scontrol.conf")).strip()).isEqualTo("/etc/test-slurm/slurm.conf");
        assertThat(Files.readString(bin.resolve("scontrol.tz")).strip()).as("its EndTime in UTC").isEqualTo("UTC");
        assertThat(probe(false).jobs().get(2).endedAtMillis())
                .isEqualTo(java.time.Instant.parse("2026-12-03T08:29:28Z").toEpochMilli());
        answer("scontrol", LIST, 0, NO_JOBS, "");
        assertThat(probe(false).jobs()).isEmpty();
    }

    @Test
    void aTruncatedEmptyOrFailedListingIsUnavailableNeverNoJobs() throws IOException {
        String whole = Fixtures.read("scontrol-jobs.txt");
        answer("scontrol", LIST, 0, whole.substring(0, whole.indexOf(" Power=", whole.indexOf("JobId=3 "))), "");
        assertThatThrownBy(() -> probe(false).jobs()).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("scontrol -o show job: line 3 is not a whole job");

        // cut inside the last line after every field Allot reads ("Power= "): the answer lacks its final newline
        answer("scontrol", LIST, 0, whole.substring(0, whole.length() - 1), "");
        assertThatThrownBy(() -> probe(false).jobs()).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("ends inside a line");

        answer("scontrol", LIST, 0, "", "");
        assertThatThrownBy(() -> probe(false).jobs()).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("empty answer");

        answer("scontrol", LIST, 1, "", "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n");
        assertThatThrownBy(() -> probe(false).jobs()).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("exited 1").hasMessageContaining("Unable to contact slurm controller");
    }

    @Test
    void aJobMissingFromTheListingIsReadFromScontrol() throws IOException {
        answer("scontrol", LIST, 0, NO_JOBS, "");
        answer("scontrol", 0, Fixtures.read("scontrol-job-7.txt"), "");

        SlurmJob j = probe(false).job(7).orElseThrow();

        assertThat(j.exitCode()).isEqualTo(3);
        assertThat(j.name()).isEqualTo("allot:w-2#1");
        assertThat(Files.readAllLines(bin.resolve("scontrol.args"))).containsExactly(LIST, "-o show job 7");
    }

    @Test
    void onlySlurmsOwnInvalidJobIdMeansNoSuchJob() throws IOException {
        answer("scontrol", LIST, 0, NO_JOBS, "");
        answer("scontrol", 1, "", "slurm_load_jobs error: Invalid job id specified\n"); // as 22.05.8 prints it
        assertThat(probe(false).job(999999)).isEmpty();

        answer("scontrol", 1, "", "slurm_load_jobs error: Socket timed out on send/recv operation\n");
        assertThatThrownBy(() -> probe(false).job(999999)).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("could not look up Slurm job 999999");
    }

    @Test
    void withAccountingAPurgedJobIsReadFromSacct() throws IOException {
        answer("scontrol", LIST, 0, NO_JOBS, "");
        answer("scontrol", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
        answer("sacct", 0, "7|allot:w-2#1|FAILED|3:0|n[1-2]|own|allot:inst1|2026-12-01T10:09:09\n", "");

        SlurmJob j = probe(true).job(7).orElseThrow();

        assertThat(j.state()).isEqualTo("FAILED");
        assertThat(j.exitCode()).isEqualTo(3);
        assertThat(j.nodes()).containsExactly("n1", "n2");
        assertThat(j.comment()).isEqualTo("allot:inst1");
        assertThat(j.endedAtMillis()).isEqualTo(java.time.Instant.parse("2026-12-01T10:09:09Z").toEpochMilli());
        assertThat(Files.readString(bin.resolve("sacct.args"))).contains("-o JobID,JobName,State,ExitCode,NodeList,"
                + "Partition,Comment,End");
        assertThat(Files.readString(bin.resolve("sacct.tz")).strip()).as("its End in UTC").isEqualTo("UTC");

        answer("sacct", 0, "", "");
        assertThat(probe(true).job(7)).isEmpty();
        answer("sacct", 1, "", "sacct: error: Problem talking to the database: Connection refused\n");
        assertThatThrownBy(() -> probe(true).job(7)).isInstanceOf(BackendUnavailableException.class);
    }

    @Test
    void nodesComeFromSinfoAndItsFailureIsUnavailable() throws IOException {
        answer("sinfo", 0, Fixtures.read("sinfo.json"), "");
        assertThat(probe(false).nodes()).extracting(SlurmNode::name).containsExactly("n1", "n2", "n3", "n4");

        answer("sinfo", 0, "{\"errors\": [], \"nodes\": [", "");
        assertThatThrownBy(() -> probe(false).nodes()).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("sinfo --json");
    }
}
