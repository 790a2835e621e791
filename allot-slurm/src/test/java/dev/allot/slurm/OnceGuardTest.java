package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job script's check: an attempt's command runs in its oldest job only, run by sh as sbatch --wrap runs it. */
class OnceGuardTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);

    @TempDir
    Path dir;

    /** What the script did: its exit status, what it printed to stderr, and whether the command ran. */
    private record Run(int exit, String err, boolean ran, String squeueArgs) {
    }

    /** Runs the script of a uniform job (it carries the singleton) as job {@code jobId}; see below. */
    private Run run(long jobId, String squeue) throws IOException, InterruptedException {
        return run(jobId, squeue, true);
    }

    /** Runs the script as job {@code jobId} with a stand-in squeue whose body is {@code squeue}. */
    private Run run(long jobId, String squeue, boolean singleton) throws IOException, InterruptedException {
        Path sq = dir.resolve("squeue");
        Files.writeString(sq, "#!/bin/sh\necho \"$@\" >> " + dir.resolve("args") + "\n" + squeue + "\n");
        Files.setPosixFilePermissions(sq, PosixFilePermissions.fromString("rwx------"));
        Path marker = dir.resolve("ran");
        String command = SlurmActions.shellCommand(List.of("touch", marker.toString()));
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", OnceGuard.script(W1, "inst1", sq.toString(), command, singleton));
        pb.environment().put("SLURM_JOB_ID", Long.toString(jobId));
        pb.environment().put("SLURM_JOB_UID", "1001");
        pb.redirectError(dir.resolve("err").toFile());
        Process p = pb.start();
        int exit = p.waitFor();
        Path args = dir.resolve("args");
        return new Run(exit, Files.readString(dir.resolve("err"), StandardCharsets.UTF_8), Files.exists(marker),
                Files.exists(args) ? Files.readString(args, StandardCharsets.UTF_8) : "");
    }

    @Test
    void theOnlyJobOfItsAttemptRunsItsCommand() throws Exception {
        Run r = run(101, "echo 101 allot:inst1");

        assertThat(r.ran()).isTrue();
        assertThat(r.exit()).isZero();
        assertThat(r.squeueArgs()).isEqualTo("-h -a -t all -u 1001 -n allot:w-1#1 -o %A %k\n");
    }

    @Test
    void theOlderOfTwoJobsRunsItsCommandSeeingOnlyALaterOne() throws Exception {
        assertThat(run(101, "echo 101 allot:inst1; echo 102 allot:inst1").ran()).isTrue();
    }

    @Test
    void aLaterJobSeeingAnOlderOneOfItsAttemptExits125HavingRunNothing() throws Exception {
        Run r = run(102, "echo 101 allot:inst1; echo 102 allot:inst1"); // the older may be running, pending or ended

        assertThat(r.ran()).isFalse();
        assertThat(r.exit()).isEqualTo(OnceGuard.OLDER_JOB_STATUS);
        assertThat(r.err()).contains("Slurm job 101 of attempt w-1#1 is older than this one (102); running nothing");
    }

    @Test
    void anOlderJobWhoseCommentStillNamesThisInstanceAfterAStopNoteCounts() throws Exception {
        Run r = run(102, "echo '101 allot:inst1 preempted by w-7'; echo 102 allot:inst1");

        assertThat(r.ran()).isFalse();
        assertThat(r.exit()).isEqualTo(OnceGuard.OLDER_JOB_STATUS);
    }

    @Test
    void anOlderJobOfTheSameNameOfAnotherInstanceDoesNotCount() throws Exception {
        // another Allot (or an earlier installation) used the name; its ended job stays listed
        Run r = run(102, "echo '90 allot:other'; echo '95 allot:inst10'; echo 102 allot:inst1");

        assertThat(r.ran()).isTrue();
    }

    @Test
    void aHeterogeneousJobThatCannotAskSlurmRunsNothing() throws Exception {
        // no singleton can hold a second job of it: it cannot tell whether it is the second
        Run r = run(101, "echo 'squeue: error: Unable to contact slurm controller' >&2; exit 1", false);

        assertThat(r.ran()).isFalse();
        assertThat(r.exit()).isEqualTo(OnceGuard.OLDER_JOB_STATUS);
        assertThat(r.squeueArgs().lines()).hasSize(OnceGuard.TRIES);
        assertThat(r.err()).contains("could not ask Slurm whether an older job of attempt w-1#1 exists");
    }

    @Test
    void aUniformJobThatCannotAskSlurmRunsItsCommandSayingWhy() throws Exception {
        // the singleton holds any other job of the attempt while this one runs; a controller that does not answer
        // for three seconds must not fail the workload
        Run r = run(101, "echo 'squeue: error: Unable to contact slurm controller' >&2; exit 1", true);

        assertThat(r.ran()).isTrue();
        assertThat(r.exit()).isZero();
        assertThat(r.squeueArgs().lines()).hasSize(OnceGuard.TRIES);
        assertThat(r.err()).contains("could not ask Slurm whether an older job of attempt w-1#1 exists; running it:"
                + " the singleton dependency holds any other job of it while this one runs");
    }

    @Test
    void aJobWhoseFirstQuestionFailsAsksAgainAndRuns() throws Exception {
        Path once = dir.resolve("failed-once");
        Run r = run(101, "if [ ! -e " + once + " ]; then touch " + once + "; exit 1; fi; echo 101 allot:inst1");

        assertThat(r.ran()).isTrue();
        assertThat(r.squeueArgs().lines()).hasSize(2);
    }
}
