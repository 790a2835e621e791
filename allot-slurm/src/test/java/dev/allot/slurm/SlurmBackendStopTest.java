package dev.allot.slurm;

import static dev.allot.core.backend.AttemptStatus.Phase.NEVER_STARTED;
import static dev.allot.core.backend.AttemptStatus.Phase.RUNNING;
import static dev.allot.core.backend.AttemptStatus.Phase.STOPPED;
import static dev.allot.core.backend.AttemptStatus.Phase.STOPPING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stopping attempts, Slurm's own requeues and duplicate jobs. */
class SlurmBackendStopTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);
    private static final Duration GRACE = Duration.ofSeconds(30);

    private final FakeSlurm slurm = new FakeSlurm("inst1");
    private final SlurmBackend backend = slurm.backend();

    private AttemptStatus only(List<AttemptStatus> statuses) {
        assertThat(statuses).hasSize(1);
        return statuses.get(0);
    }

    /** Starts W1 and lets it run, observed once. Returns its job id. */
    private long running() {
        backend.start(FakeSlurm.launch(W1));
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1"));
        assertThat(only(backend.observe()).phase()).isEqualTo(RUNNING);
        return id;
    }

    private List<String> cancels() {
        return slurm.log.stream().filter(s -> s.startsWith("cancel ")).toList();
    }

    @Test
    void aPreemptionNotesItsPreemptorInTheJobsCommentThenCancelsItAtOnceLeavingTheGraceToSlurm() {
        long id = running();

        backend.stop(W1, GRACE, "preempted by w-7");

        // Noted first, so that the job Slurm records as CANCELLED carries why; no signal route that ends FAILED.
        assertThat(slurm.log).endsWith("comment " + id + " allot:inst1 preempted by w-7", "cancel " + id);
        assertThat(slurm.log).noneMatch(s -> s.startsWith("signal"));
        assertThat(only(backend.observe())).isEqualTo(new AttemptStatus(W1, STOPPED, null, "Slurm job 101 was cancelled"));
    }

    @Test
    void aJobWhoseCommentCarriesAStopNoteIsStillThisInstancesJob() {
        long id = running();
        backend.stop(W1, GRACE, "preempted by w-7");
        slurm.set(id, j -> j.state("COMPLETING"));

        // Still tracked and observed as ours: the note does not hide it, nor make it another instance's.
        assertThat(only(backend.observe()).phase()).isEqualTo(STOPPING);
        assertThat(slurm.jobs.get(id).comment()).isEqualTo("allot:inst1 preempted by w-7");
    }

    @Test
    void askingAgainToStopSendsNothingMore() {
        long id = running();
        backend.stop(W1, GRACE, "preempted by w-7");
        slurm.set(id, j -> j.state("COMPLETING"));
        backend.observe();

        backend.stop(W1, GRACE, "preempted by w-7");

        assertThat(cancels()).containsExactly("cancel " + id);
        assertThat(slurm.log.stream().filter(s -> s.startsWith("comment "))).hasSize(1);
    }

    @Test
    void aStopWithoutWordsCancelsWithoutTouchingTheComment() {
        long id = running();

        backend.stop(W1, Duration.ZERO);

        assertThat(cancels()).containsExactly("cancel " + id);
        assertThat(slurm.log).noneMatch(s -> s.startsWith("comment") || s.startsWith("signal"));
    }

    @Test
    void aPendingJobIsCancelledAtOnceWhateverTheGrace() {
        backend.start(FakeSlurm.launch(W1));
        backend.observe();

        backend.stop(W1, GRACE);

        assertThat(cancels()).containsExactly("cancel " + slurm.idOf(W1));
        assertThat(only(backend.observe()).phase()).isEqualTo(STOPPED);
    }

    @Test
    void stoppingAnAttemptSlurmNeverHadReportsItNeverStarted() {
        AttemptKey never = new AttemptKey("w-9", 1);

        backend.stop(never, GRACE);

        assertThat(only(backend.observe())).isEqualTo(new AttemptStatus(never, NEVER_STARTED, null,
                "Slurm has no job named allot:w-9#1: it never started"));
        assertThat(slurm.log).noneMatch(s -> s.startsWith("cancel") || s.startsWith("signal"));
        backend.forget(never);
        assertThat(backend.observe()).isEmpty();
    }

    @Test
    void forgottenAttemptsAreNoLongerObservedThoughSlurmStillListsThem() {
        backend.start(FakeSlurm.launch(W1));
        slurm.set(slurm.idOf(W1), j -> j.state("COMPLETED").exit(0));
        assertThat(only(backend.observe()).ended()).isTrue();

        backend.forget(W1);

        assertThat(backend.observe()).isEmpty();
        backend.start(FakeSlurm.launch(W1)); // a late repeat of the start does nothing
        assertThat(slurm.submissions()).hasSize(1);
    }

    @Test
    void aJobCancelledByAPersonIsStoppedOutsideAllot() {
        long id = running();
        slurm.set(id, j -> j.state("CANCELLED").exit(36608));

        assertThat(only(backend.observe()))
                .isEqualTo(new AttemptStatus(W1, STOPPED, null, "Slurm job 101 was cancelled outside Allot"));
    }

    @Test
    void aJobSlurmRequeuedIsCancelledAndThenReportedStoppedWithTheRequeue() {
        long id = running();
        slurm.cancelTakesEffect = false;
        slurm.set(id, j -> j.state("PENDING").reason("BeginTime").restarts(1).nodes());

        assertThat(only(backend.observe())).isEqualTo(
                new AttemptStatus(W1, STOPPING, null, "Slurm job 101 was requeued by Slurm; cancelling it"));
        assertThat(cancels()).containsExactly("cancel " + id);
        assertThat(backend.counters()).containsEntry("slurm_requeues", 1L);

        assertThat(only(backend.observe()).phase()).isEqualTo(STOPPING); // not cancelled twice
        assertThat(cancels()).hasSize(1);

        slurm.set(id, j -> j.state("CANCELLED"));
        AttemptStatus s = only(backend.observe());
        assertThat(s.phase()).isEqualTo(STOPPED);
        assertThat(s.detail()).startsWith("Slurm job 101 was requeued by Slurm").contains("Allot cancelled");
        assertThat(backend.counters()).containsEntry("slurm_requeues", 1L);
    }

    @Test
    void aSecondJobWithOneAttemptsNameIsCancelledAndTheTrackedOneKept() {
        long id = running();
        long dup = slurm.add(slurm.job(W1).state("RUNNING").nodes("n2"));

        AttemptStatus s = only(backend.observe());

        assertThat(s).isEqualTo(new AttemptStatus(W1, RUNNING, null, "Slurm job " + id + " is RUNNING on n1"));
        assertThat(cancels()).containsExactly("cancel " + dup);
        assertThat(backend.counters()).containsEntry("duplicates_cancelled", 1L);
    }

    @Test
    void aDuplicateSlurmIsSlowToEndIsCancelledAgainButCountedOnce() {
        running();
        slurm.cancelTakesEffect = false;
        long dup = slurm.add(slurm.job(W1).state("RUNNING").nodes("n2"));

        backend.observe();
        backend.observe();
        backend.observe();

        assertThat(cancels()).containsOnly("cancel " + dup);
        assertThat(backend.counters()).containsEntry("duplicates_cancelled", 1L);
    }

    @Test
    void withTwoJobsFoundAfterARestartTheOlderIsKept() {
        long older = slurm.add(slurm.job(W1).state("RUNNING").nodes("n1"));
        long newer = slurm.add(slurm.job(W1).state("PENDING"));
        SlurmBackend restarted = slurm.backend();

        AttemptStatus s = only(restarted.observe());

        assertThat(s.detail()).startsWith("Slurm job " + older + " ");
        assertThat(cancels()).containsExactly("cancel " + newer);
        assertThat(restarted.counters()).containsEntry("duplicates_cancelled", 1L);
    }

    /** sbatch timed out and a later listing showed no job: the attempt is stopped as never started. */
    private void stoppedAsNeverStartedAfterAnUnansweredSubmit() {
        slurm.nextSubmit(FakeSlurm.Submit.UNAVAILABLE);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1)));
        slurm.clock.advance(Duration.ofSeconds(1));
        backend.stop(W1, GRACE);
    }

    @Test
    void aJobThatShowsUpAfterItsAttemptWasFoundNeverStartedIsCancelledNotAdopted() {
        stoppedAsNeverStartedAfterAnUnansweredSubmit();
        long late = slurm.add(slurm.job(W1).state("RUNNING").nodes("n1")); // slurmctld got the sbatch late

        assertThat(only(backend.observe())).isEqualTo(new AttemptStatus(W1, NEVER_STARTED, null,
                "Slurm has no job named allot:w-1#1: it never started"));
        assertThat(cancels()).containsExactly("cancel " + late);
    }

    @Test
    void aLiveJobOfAForgottenAttemptIsCancelledNotLeftRunningUnseen() {
        stoppedAsNeverStartedAfterAnUnansweredSubmit();
        assertThat(only(backend.observe()).phase()).isEqualTo(NEVER_STARTED);
        backend.forget(W1);
        long late = slurm.add(slurm.job(W1).state("RUNNING").nodes("n1"));

        assertThat(backend.observe()).isEmpty();
        assertThat(cancels()).containsExactly("cancel " + late);
    }

    /**
     * The fault story's race, on the backend's side: Allot's sbatch never reached Slurm, Allot restarted, and the new
     * process preempts the attempt before it has asked the backend to start it again. The stop comes to a backend
     * that never heard of the attempt; it must say "never started" exactly as when its own sbatch failed, whatever
     * failed probes come first, and start nothing afterwards.
     */
    @Test
    void aStopFromARestartedAllotOfAnAttemptWhoseSbatchNeverReachedSlurmReportsItNeverStarted() {
        slurm.nextSubmit(FakeSlurm.Submit.UNAVAILABLE);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1)))
                .isInstanceOf(dev.allot.core.backend.BackendUnavailableException.class);
        SlurmBackend restarted = slurm.backend();
        slurm.clock.advance(Duration.ofSeconds(1));
        slurm.failNextProbes(1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> restarted.stop(W1, GRACE, "preempted by w-7"))
                .isInstanceOf(dev.allot.core.backend.BackendUnavailableException.class); // unknown, not gone

        restarted.stop(W1, GRACE, "preempted by w-7");
        restarted.start(FakeSlurm.launch(W1)); // a late repeat of the start

        assertThat(only(restarted.observe())).isEqualTo(new AttemptStatus(W1, NEVER_STARTED, null,
                "Slurm has no job named allot:w-1#1: it never started"));
        assertThat(slurm.submissions()).containsExactly("submit w-1#1"); // the one that never got there
        assertThat(slurm.jobs.values()).noneMatch(j -> j.name().equals("allot:w-1#1"));
        assertThat(slurm.log).noneMatch(s -> s.startsWith("cancel") || s.startsWith("comment"));
    }

    @Test
    void aLateRepeatOfTheStartOfAnAttemptStoppedAsNeverStartedSubmitsNothing() {
        AttemptKey never = new AttemptKey("w-9", 1);
        backend.stop(never, GRACE);

        backend.start(FakeSlurm.launch(never));

        assertThat(slurm.submissions()).isEmpty();
        assertThat(only(backend.observe()).phase()).isEqualTo(NEVER_STARTED);
    }

    @Test
    void aCancelThatReportsFailureButTookEffectIsReadBackAndAccepted() {
        running();
        slurm.cancelReportsFailure = true;

        backend.stop(W1, Duration.ZERO);

        assertThat(backend.counters()).containsEntry("command_claims_corrected", 1L);
        assertThat(only(backend.observe()).phase()).isEqualTo(STOPPED);
    }

    @Test
    void aCancelThatFailedIsUnavailableAndTriedAgainByTheNextStop() {
        long id = running();
        slurm.cancelReportsFailure = true;
        slurm.cancelTakesEffect = false;

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> backend.stop(W1, Duration.ZERO))
                .isInstanceOf(dev.allot.core.backend.BackendUnavailableException.class)
                .hasMessageContaining("scancel " + id);
        slurm.cancelReportsFailure = false;
        slurm.cancelTakesEffect = true;
        backend.stop(W1, Duration.ZERO);

        assertThat(cancels()).containsExactly("cancel " + id, "cancel " + id);
        assertThat(only(backend.observe()).phase()).isEqualTo(STOPPED);
    }
}
