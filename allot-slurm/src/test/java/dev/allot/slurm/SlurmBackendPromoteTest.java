package dev.allot.slurm;

import static dev.allot.core.backend.AttemptStatus.Phase.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend.Mirror;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Promotion in place on Slurm: a running attempt of unallocated work becomes allocated and its job keeps running,
 * the same job; its QOS follows when Slurm lets it (read back, whatever scontrol said), its partition never does
 * while it runs, and its comment says since when Allot protects it.
 */
class SlurmBackendPromoteTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);
    private static final Launch.Terms FREE = new Launch.Terms(true, true);
    private static final Launch.Terms PROTECTED = new Launch.Terms(false, true);
    private static final String NOTE = "allot:inst1 protected since 2026-12-01T10:00:00Z";

    /** Starts W1 as unallocated work and lets it run in the free partition (and QOS, if any). Returns its job id. */
    private static long runningFree(FakeSlurm slurm, SlurmBackend backend) {
        backend.start(SlurmActionsTest.launch(W1.workloadId(), W1.attempt(), FREE, "n1", 2));
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1").partition(SlurmConfig.DEFAULT_FREE_PARTITION));
        if (slurm.config.freeQos() != null) {
            slurm.qos.put(id, slurm.config.freeQos());
        }
        assertThat(backend.observe()).extracting(AttemptStatus::phase).containsExactly(RUNNING);
        return id;
    }

    /** What the backend asked of Slurm that could move, stop or duplicate a job. */
    private static List<String> disruptive(FakeSlurm slurm) {
        return slurm.log.stream().filter(s -> s.startsWith("submit ") || s.startsWith("cancel ")
                || s.contains(" Partition=") || s.startsWith("signal ")).toList();
    }

    @Test
    void withPartitionsTheRunningJobStaysWhereItIsTheSameJobAndItsCommentSaysItIsProtected() {
        FakeSlurm slurm = new FakeSlurm("inst1");
        SlurmBackend backend = slurm.backend();
        long id = runningFree(slurm, backend);

        Mirror m = backend.promote(W1, PROTECTED);

        assertThat(m).isEqualTo(new Mirror(false, "Slurm keeps job " + id + " in partition allot-free: a running job's"
                + " partition cannot change; Allot protects it from now (Slurm's own preemption, where enabled, still sees partition"
                + " allot-free); its comment reads '" + NOTE + "'"));
        assertThat(disruptive(slurm)).containsExactly("submit w-1#1");
        assertThat(slurm.named(W1)).singleElement().satisfies(j -> {
            assertThat(j.id()).isEqualTo(id);
            assertThat(j.state()).isEqualTo("RUNNING");
            assertThat(j.partition()).isEqualTo("allot-free");
            assertThat(j.comment()).isEqualTo(NOTE);
        });
        // Still this instance's job, still running: the note does not hide it.
        assertThat(backend.observe()).containsExactly(new AttemptStatus(W1, RUNNING, null, "Slurm job " + id
                + " is RUNNING on n1"));
        assertThat(backend.counters()).containsEntry("promotions_not_mirrored", 1L)
                .containsEntry("promotions_mirrored", 0L);
    }

    @Test
    void withQosTheJobMovesToTheProtectedQosReadBackButNotToAnotherPartition() {
        FakeSlurm slurm = new FakeSlurm("inst1").withQos("allot", "allot-free");
        slurm.qosChangesWhileRunning = true;
        slurm.qosUpdateExit = 0;
        slurm.qosUpdateErr = "";
        SlurmBackend backend = slurm.backend();
        long id = runningFree(slurm, backend);

        Mirror m = backend.promote(W1, PROTECTED);

        // This configuration's partitions differ too (allot-free for free work): that part cannot follow.
        assertThat(m).isEqualTo(new Mirror(false, "Slurm job " + id + " now has QOS allot (was QOS allot-free); Slurm"
                + " keeps job " + id + " in partition allot-free: a running job's partition cannot change; Allot"
                + " protects it from now (Slurm's own preemption, where enabled, still sees partition allot-free); its"
                + " comment reads '" + NOTE + "'"));
        assertThat(slurm.qos).containsEntry(id, "allot");
        assertThat(slurm.log).containsSubsequence("show " + id, "update " + id + " QOS=allot",
                "update " + id + " Comment=" + NOTE, "show " + id);
        assertThat(disruptive(slurm)).containsExactly("submit w-1#1");
    }

    @Test
    void aPermissionDeniedThatSlurmAppliedIsMirroredAndCountedAsACorrectedClaim() {
        FakeSlurm slurm = new FakeSlurm("inst1").withQos("allot", "allot-free");
        slurm.config = slurm.config.withPartitions("allot", null);
        slurm.actions = slurm.new Actions(slurm.config);
        slurm.qosChangesWhileRunning = true;
        slurm.qosUpdateErr = "Access/permission denied";
        SlurmBackend backend = slurm.backend();
        backend.start(SlurmActionsTest.launch(W1.workloadId(), W1.attempt(), FREE, "n1", 2));
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1"));
        slurm.qos.put(id, "allot-free");

        Mirror m = backend.promote(W1, PROTECTED);

        assertThat(m).isEqualTo(new Mirror(true, "Slurm job " + id + " now has QOS allot (was QOS allot-free);"
                + " scontrol said \"Access/permission denied\" (exit 1), yet the read-back shows the change; its"
                + " comment reads '" + NOTE + "'"));
        assertThat(backend.counters()).containsEntry("command_claims_corrected", 1L)
                .containsEntry("promotions_mirrored", 1L);
    }

    @Test
    void aQosSlurmRefusesForARunningJobIsNotMirroredAndTheJobRunsOn() {
        FakeSlurm slurm = new FakeSlurm("inst1").withQos("allot", "allot-free");
        slurm.config = slurm.config.withPartitions("allot", null);
        slurm.actions = slurm.new Actions(slurm.config);
        SlurmBackend backend = slurm.backend();
        backend.start(SlurmActionsTest.launch(W1.workloadId(), W1.attempt(), FREE, "n1", 2));
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1"));
        slurm.qos.put(id, "allot-free");

        Mirror m = backend.promote(W1, PROTECTED);

        assertThat(m).isEqualTo(new Mirror(false, "Slurm keeps QOS allot-free for job " + id + ": asked for QOS"
                + " allot, scontrol said \"Job is no longer pending execution for job " + id + "\" (exit 1); Allot"
                + " protects it from now (Slurm's own preemption, where enabled, still sees QOS allot-free); its comment"
                + " reads '" + NOTE + "'"));
        assertThat(slurm.jobs.get(id).state()).isEqualTo("RUNNING");
        assertThat(disruptive(slurm)).containsExactly("submit w-1#1");
    }

    @Test
    void afterARestartTheAttemptsJobIsFoundByNameAndPromotedNotSubmittedAgain() {
        FakeSlurm slurm = new FakeSlurm("inst1");
        long id = runningFree(slurm, slurm.backend());

        SlurmBackend restarted = slurm.backend();
        Mirror m = restarted.promote(W1, PROTECTED);

        assertThat(m.detail()).startsWith("Slurm keeps job " + id + " in partition allot-free");
        assertThat(disruptive(slurm)).containsExactly("submit w-1#1");
        assertThat(restarted.counters()).containsEntry("adoptions", 1L);
    }

    @Test
    void anAttemptWithoutAJobOrBeingStoppedHasNothingToMirror() {
        FakeSlurm slurm = new FakeSlurm("inst1");
        SlurmBackend backend = slurm.backend();

        assertThat(backend.promote(W1, PROTECTED)).isEqualTo(new Mirror(false, "Slurm has no job named allot:w-1#1;"
                + " nothing to mirror"));

        long id = runningFree(slurm, backend);
        backend.stop(W1, Duration.ofSeconds(5), "preempted by w-9");
        slurm.set(id, j -> j.state("COMPLETING"));
        assertThat(backend.promote(W1, PROTECTED)).isEqualTo(new Mirror(false, "Slurm job " + id + " of w-1#1 is being"
                + " stopped; nothing to mirror"));
        assertThat(slurm.log).noneMatch(s -> s.startsWith("update "));
    }

    @Test
    void slurmUnreachableIsUnavailableNamingTheJobAndNothingIsTouched() {
        FakeSlurm slurm = new FakeSlurm("inst1");
        SlurmBackend backend = slurm.backend();
        long id = runningFree(slurm, backend);
        slurm.scontrolDown = true;

        assertThatThrownBy(() -> backend.promote(W1, PROTECTED)).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("could not read Slurm job " + id)
                .hasMessageContaining("Unable to contact slurm controller");
        assertThat(slurm.log).noneMatch(s -> s.startsWith("update "));
        assertThat(backend.counters()).containsEntry("probe_failures", 1L);

        // Not tracked (a restart) and the listing fails: unknown too, never "no job".
        SlurmBackend restarted = slurm.backend();
        slurm.failNextProbes(1);
        assertThatThrownBy(() -> restarted.promote(W1, PROTECTED)).isInstanceOf(BackendUnavailableException.class);
        assertThat(disruptive(slurm)).containsExactly("submit w-1#1");
    }
}
