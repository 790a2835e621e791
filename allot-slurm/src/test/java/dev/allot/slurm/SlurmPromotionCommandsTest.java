package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.Backend.Mirror;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SlurmPromotion} over a stand-in {@code scontrol} that keeps one job (its state, partition, QOS and comment
 * in files) and answers updates as the test says: applied or not, whatever it prints and exits with. The messages
 * are Slurm 22.05.8's own ("Job is no longer pending execution" for a running job's partition) and the seed's
 * ("Access/permission denied" printed for a QOS change Slurm applied).
 */
class SlurmPromotionCommandsTest {
    /**
     * {@code update JobId=N FIELD=VALUE}: prints FIELD.err, stores VALUE unless FIELD.refused exists, exits FIELD.rc.
     * {@code -o show job N}: one line as 22.05.8 prints it, from the stored fields. Fails as an unreachable controller
     * when the file {@code down} exists. Every call is appended to {@code scontrol.args}.
     */
    private static final String SCONTROL = """
            #!/bin/sh
            d=$(dirname "$0")
            echo "$*" >> "$d/scontrol.args"
            if [ -f "$d/down" ]; then
                echo "slurm_load_jobs error: Unable to contact slurm controller (connect failure)" >&2; exit 1
            fi
            case "$1" in
            update)
                kv=$3; field=${kv%%=*}; value=${kv#*=}
                [ -f "$d/$field.err" ] && cat "$d/$field.err" >&2
                [ -f "$d/$field.refused" ] || printf '%s' "$value" > "$d/job.$field"
                exit $(cat "$d/$field.rc" 2>/dev/null || echo 0) ;;
            -o)
                echo "JobId=$4 JobName=allot:w-1#1 UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0\
             Account=(null) QOS=$(cat "$d/job.QOS") JobState=$(cat "$d/job.JobState") Reason=None Dependency=(null)\
             Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:04 TimeLimit=365-00:00:00\
             Partition=$(cat "$d/job.Partition") AllocNode:Sid=localhost:22902 ReqNodeList=n1 NodeList=n1 BatchHost=n1\
             NumNodes=1 WorkDir=/tmp Comment=$(cat "$d/job.Comment")  StdErr=/dev/null StdIn=/dev/null\
             StdOut=/dev/null Power= TresPerNode=gres:gpu:2"
                exit 0 ;;
            esac
            exit 2
            """;
    private static final long JOB = 101;
    private static final Launch.Terms PROTECTED = new Launch.Terms(false, true);
    private static final Instant SINCE = Instant.parse("2026-12-01T10:00:00.250Z");
    private static final String NOTE = "allot:inst1 protected since 2026-12-01T10:00:00Z";

    @TempDir
    Path bin;
    private SlurmConfig partitions;
    private SlurmConfig qos;

    @BeforeEach
    void scontrol() throws IOException {
        Path p = bin.resolve("scontrol");
        Files.writeString(p, SCONTROL);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        partitions = SlurmConfig.defaults(Path.of("/etc/test-slurm/slurm.conf"), bin, "inst1").withBinDir(bin)
                .withCommandTimeout(Duration.ofSeconds(20));
        // As tools/slurm-cluster.sh MODE=qos makes it: one partition, a QOS for each kind of work.
        qos = partitions.withPartitions("allot", null).withQos("allot", "allot-free");
        job("RUNNING", "allot", "allot-free");
    }

    private void job(String state, String partition, String qosName) throws IOException {
        Files.writeString(bin.resolve("job.JobState"), state);
        Files.writeString(bin.resolve("job.Partition"), partition);
        Files.writeString(bin.resolve("job.QOS"), qosName);
        Files.writeString(bin.resolve("job.Comment"), "allot:inst1");
    }

    /** How scontrol answers an update of {@code field}: what it prints, its exit, whether Slurm applies it. */
    private void answers(String field, String err, int rc, boolean applies) throws IOException {
        Files.writeString(bin.resolve(field + ".err"), err);
        Files.writeString(bin.resolve(field + ".rc"), Integer.toString(rc));
        if (!applies) {
            Files.writeString(bin.resolve(field + ".refused"), "");
        }
    }

    private SlurmPromotion.Outcome promote(SlurmConfig config) {
        return new SlurmPromotion(config, new SlurmActions(new Commands(config), config,
                SlurmActionsTest.passwd("root"))).promote(JOB, PROTECTED, SINCE);
    }

    private List<String> calls() throws IOException {
        return Files.readAllLines(bin.resolve("scontrol.args"));
    }

    private String stored(String field) throws IOException {
        return Files.readString(bin.resolve("job." + field));
    }

    @Test
    void theQosIsMovedThenReadBackAndTheCommentNotesSinceWhen() throws IOException {
        SlurmPromotion.Outcome o = promote(qos);

        assertThat(o.mirror()).isEqualTo(new Mirror(true, "Slurm job 101 now has QOS allot (was QOS allot-free);"
                + " its comment reads '" + NOTE + "'"));
        assertThat(o.claimCorrected()).isFalse();
        assertThat(calls()).containsExactly("-o show job 101", "update JobId=101 QOS=allot",
                "update JobId=101 Comment=" + NOTE, "-o show job 101");
        assertThat(stored("QOS")).isEqualTo("allot");
    }

    @Test
    void aPermissionDeniedThatSlurmAppliedAnywayIsMirroredAndSaidSo() throws IOException {
        answers("QOS", "Access/permission denied for job 101\n", 1, true);

        SlurmPromotion.Outcome o = promote(qos);

        assertThat(o.mirror().mirrored()).isTrue();
        assertThat(o.mirror().detail()).startsWith("Slurm job 101 now has QOS allot (was QOS allot-free); scontrol"
                + " said \"Access/permission denied for job 101\" (exit 1), yet the read-back shows the change");
        assertThat(o.claimCorrected()).isTrue();
    }

    @Test
    void aQosSlurmKeepsIsNotMirroredAndTheDetailSaysWhatSlurmSaid() throws IOException {
        answers("QOS", "Job is no longer pending execution for job 101\n", 1, false);

        SlurmPromotion.Outcome o = promote(qos);

        assertThat(o.mirror()).isEqualTo(new Mirror(false, "Slurm keeps QOS allot-free for job 101: asked for QOS"
                + " allot, scontrol said \"Job is no longer pending execution for job 101\" (exit 1); Allot protects"
                + " it from now (Slurm's own preemption, where enabled, still sees QOS allot-free); its comment reads '"
                + NOTE + "'"));
        assertThat(o.claimCorrected()).isFalse();
        assertThat(stored("QOS")).isEqualTo("allot-free");
    }

    @Test
    void aQosChangeAcceptedInSilenceButNotShownIsNotMirrored() throws IOException {
        // Slurm without accounting: scontrol exits 0 and says nothing, and every job keeps QOS=(null).
        job("RUNNING", "allot", "(null)");
        answers("QOS", "", 0, false);

        Mirror m = promote(qos).mirror();

        assertThat(m.mirrored()).isFalse();
        assertThat(m.detail()).startsWith("Slurm keeps no QOS for job 101: asked for QOS allot, scontrol exited 0"
                + " without a word, but the read-back shows no QOS; Allot protects it from now");
    }

    @Test
    void aRunningJobsPartitionIsNotTouchedOnlyItsCommentAndTheAnswerSaysWhereItStays() throws IOException {
        job("RUNNING", "allot-free", "(null)");

        SlurmPromotion.Outcome o = promote(partitions);

        assertThat(o.mirror()).isEqualTo(new Mirror(false, "Slurm keeps job 101 in partition allot-free: a running"
                + " job's partition cannot change; Allot protects it from now (Slurm's own preemption, where enabled, still sees"
                + " partition allot-free); its comment reads '" + NOTE + "'"));
        assertThat(calls()).containsExactly("-o show job 101", "update JobId=101 Comment=" + NOTE,
                "-o show job 101");
        assertThat(stored("Partition")).isEqualTo("allot-free");
        assertThat(stored("JobState")).isEqualTo("RUNNING");
    }

    @Test
    void aPendingJobIsMovedToTheProtectedPartitionAndReadBack() throws IOException {
        job("PENDING", "allot-free", "(null)");

        Mirror m = promote(partitions).mirror();

        assertThat(m).isEqualTo(new Mirror(true, "Slurm job 101 moved to partition allot (was allot-free); its"
                + " comment reads '" + NOTE + "'"));
        assertThat(calls()).contains("update JobId=101 Partition=allot");
    }

    @Test
    void aCommentSlurmDidNotTakeIsSaidButDoesNotUndoTheMirror() throws IOException {
        answers("Comment", "slurm_update error: Invalid argument\n", 1, false);

        Mirror m = promote(qos).mirror();

        assertThat(m.mirrored()).isTrue();
        assertThat(m.detail()).endsWith("its comment still reads 'allot:inst1' (scontrol said \"slurm_update error:"
                + " Invalid argument\" (exit 1))");
    }

    @Test
    void anEndedJobIsLeftAlone() throws IOException {
        job("COMPLETED", "allot-free", "allot-free");

        Mirror m = promote(qos).mirror();

        assertThat(m).isEqualTo(new Mirror(false, "Slurm job 101 has ended (COMPLETED); nothing to mirror"));
        assertThat(calls()).containsExactly("-o show job 101");
    }

    @Test
    void anUnreachableControllerIsUnavailableNamingTheJobNeverAJobGone() throws IOException {
        Files.writeString(bin.resolve("down"), "");

        assertThatThrownBy(() -> promote(qos)).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("could not read Slurm job 101")
                .hasMessageContaining("Unable to contact slurm controller")
                .hasMessageContaining("nothing concluded");
        assertThat(calls()).containsExactly("-o show job 101");
    }

    @Test
    void aControllerLostAfterTheUpdateIsUnavailableToo() throws IOException {
        // The update answers, the read-back does not: whether the QOS moved is unknown.
        Path down = bin.resolve("down");
        Files.writeString(bin.resolve("QOS.err"), "");
        Files.writeString(bin.resolve("scontrol.args"), "");
        String wrapper = "#!/bin/sh\nd=$(dirname \"$0\")\n\"$d/scontrol.real\" \"$@\"; rc=$?\n"
                + "[ \"$1\" = update ] && touch \"" + down + "\"\nexit $rc\n";
        Files.move(bin.resolve("scontrol"), bin.resolve("scontrol.real"));
        Files.writeString(bin.resolve("scontrol"), wrapper);
        Files.setPosixFilePermissions(bin.resolve("scontrol"), PosixFilePermissions.fromString("rwxr-xr-x"));

        assertThatThrownBy(() -> promote(qos)).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("could not read Slurm job 101")
                .hasMessageContaining("after asking to mirror its new terms");
    }
}
