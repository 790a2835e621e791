package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptOutput;
import dev.allot.core.backend.BackendException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot logs} on Slurm. On the loopback cluster, {@code allot logs w-3} answered "the output of w-3 attempt 1
 * is not kept by this service (hint: ... allot-<Slurm job id>.out in the submitter's home ...)" while the job's output
 * sat in {@code /tmp/allot-5.out} on the same machine (the demo's account, nobody, has no home). Now the service reads
 * the file Slurm says the job writes, when it can, and it is Allot's own file of that job; else it names it.
 */
class SlurmOutputTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);

    @TempDir
    Path dir;

    private final FakeSlurm slurm = new FakeSlurm("inst1");
    private final SlurmBackend backend = slurm.backend();
    private int uid;

    @BeforeEach
    void jobsWriteToTheTempFolderAsThisUser() throws Exception {
        uid = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        slurm.outputDir = dir;
        slurm.outputUser = "someone(" + uid + ")";
    }

    private long running() {
        backend.start(FakeSlurm.launch(W1));
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1"));
        return id;
    }

    @Test
    void theOutputOfARunningJobIsReadFromTheFileSlurmSaysItWrites() throws Exception {
        long id = running();
        Files.writeString(dir.resolve("allot-" + id + ".out"), "line one\nline two\n");

        assertThat(backend.output(W1, 64 * 1024)).contains(new AttemptOutput("line one\nline two\n", 18, 0));
        // the end only, from a line's start, as the local backend's logs
        assertThat(backend.output(W1, 12)).contains(new AttemptOutput("line two\n", 18, 9));
    }

    @Test
    void aJobStillPendingHasWrittenNothing() {
        backend.start(FakeSlurm.launch(W1));

        assertThat(backend.output(W1, 1024)).contains(new AttemptOutput("", 0, 0));
    }

    @Test
    void aJobSlurmNoLongerKnowsLeavesTheGeneralWordOnWhereOutputGoes() {
        assertThat(backend.output(W1, 1024)).isEmpty();
        assertThat(backend.outputElsewhere()).contains("allot-<Slurm job id>.out").contains("/tmp for an account");
    }

    @Test
    void aFileNotOnThisHostIsNamedWithTheNodeThatRanTheJob() {
        long id = running();

        assertThatThrownBy(() -> backend.output(W1, 1024)).isInstanceOf(BackendException.class)
                .hasMessageContaining("Slurm job " + id + " writes w-1#1's output to "
                        + dir.resolve("allot-" + id + ".out") + " on n1")
                .hasMessageContaining("not on this host");
    }

    @Test
    void aLinkOrAFileOfAnotherUserInThePlaceOfTheOutputIsNotRead() throws Exception {
        // The service may run as root and the file lies in the job's user's folder: a link there must not make it
        // read a file that user could not.
        long id = running();
        Path secret = Files.writeString(dir.resolve("secret"), "root's secret\n");
        Files.createSymbolicLink(dir.resolve("allot-" + id + ".out"), secret);

        assertThatThrownBy(() -> backend.output(W1, 1024)).isInstanceOf(BackendException.class)
                .hasMessageContaining("not a regular file").hasMessageNotContaining("root's secret");

        Files.delete(dir.resolve("allot-" + id + ".out"));
        Files.writeString(dir.resolve("allot-" + id + ".out"), "someone else's\n");
        slurm.outputUser = "other(" + (uid + 1) + ")";
        assertThatThrownBy(() -> backend.output(W1, 1024)).isInstanceOf(BackendException.class)
                .hasMessageContaining("owned by uid " + uid + " where the job ran as uid " + (uid + 1));
    }

    @Test
    void aFileSlurmNamesThatIsNotAllotsOwnIsNotRead() {
        assertThatThrownBy(() -> SlurmOutput.readOwned(Path.of("/etc/shadow"), 7, 0, 1024, "Slurm job 7 writes"))
                .isInstanceOf(BackendException.class).hasMessageContaining("not a file Allot names (allot-7.out)");
    }

    @Test
    void anotherInstancesJobOfTheSameNameIsNotRead() throws Exception {
        slurm.add(new FakeSlurm.Job(JobTag.name(W1)).comment(JobTag.comment("other")).state("RUNNING").nodes("n2"));

        assertThat(backend.output(W1, 1024)).isEmpty();
    }
}
