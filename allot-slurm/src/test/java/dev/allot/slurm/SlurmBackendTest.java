package dev.allot.slurm;

import static dev.allot.core.backend.AttemptStatus.Phase.EXITED;
import static dev.allot.core.backend.AttemptStatus.Phase.FAILED_TO_START;
import static dev.allot.core.backend.AttemptStatus.Phase.RUNNING;
import static dev.allot.core.backend.AttemptStatus.Phase.STARTING;
import static dev.allot.core.backend.AttemptStatus.Phase.STOPPED;
import static dev.allot.core.backend.AttemptStatus.Phase.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Starting and observing attempts: the statuses, and exactly one Slurm job per attempt whatever fails. */
class SlurmBackendTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);

    private final FakeSlurm slurm = new FakeSlurm("inst1");
    private final SlurmBackend backend = slurm.backend();

    private AttemptStatus only(List<AttemptStatus> statuses) {
        assertThat(statuses).hasSize(1);
        return statuses.get(0);
    }

    @Test
    void anAttemptIsSubmittedTaggedThenStartingRunningAndExitedZero() {
        backend.start(FakeSlurm.launch(W1));

        assertThat(slurm.submissions()).containsExactly("submit w-1#1");
        long id = slurm.idOf(W1);
        assertThat(slurm.jobs.get(id).comment()).isEqualTo("allot:inst1");
        assertThat(only(backend.observe())).isEqualTo(new AttemptStatus(W1, STARTING, null, "Slurm job 101 is PENDING"));

        slurm.set(id, j -> j.state("RUNNING").nodes("n1", "n2"));
        assertThat(only(backend.observe()))
                .isEqualTo(new AttemptStatus(W1, RUNNING, null, "Slurm job 101 is RUNNING on n1,n2"));

        slurm.set(id, j -> j.state("COMPLETED").exit(0));
        assertThat(only(backend.observe())).isEqualTo(new AttemptStatus(W1, EXITED, 0, "Slurm job 101 completed"));
        assertThat(backend.counters()).containsEntry("submissions", 1L).containsEntry("adoptions", 0L);
    }

    @Test
    void anAttemptWithAnAccountIsSubmittedAsItAndOneThatMayNotRunIsRefusedBeforeReachingSlurm() {
        backend.start(SlurmActionsTest.as(FakeSlurm.launch(W1), "alice"));
        assertThat(slurm.submissions()).containsExactly("submit w-1#1 as alice");

        AttemptKey w2 = new AttemptKey("w-2", 1);
        assertThatThrownBy(() -> backend.start(SlurmActionsTest.as(FakeSlurm.launch(w2), "carol")))
                .isInstanceOf(BackendException.class).hasMessageContaining("'carol', which does not exist");
        SlurmBackend strict = new FakeSlurm("inst2").withRootWorkloads(false).backend();
        assertThatThrownBy(() -> strict.start(FakeSlurm.launch(w2))).isInstanceOf(BackendException.class)
                .hasMessageContaining("would run as root");
        assertThat(slurm.submissions()).containsExactly("submit w-1#1 as alice");
        assertThat(backend.observe()).extracting(AttemptStatus::attempt).containsExactly(W1);
    }

    @Test
    void aJobSeenEndedLongAfterItEndedReportsTheEndSlurmRecorded() {
        backend.start(FakeSlurm.launch(W1));
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1"));
        assertThat(only(backend.observe()).endedAtMillis()).as("running: no end").isNull();
        java.time.Instant end = slurm.clock.instant().plusSeconds(300);
        slurm.set(id, j -> j.state("COMPLETED").exit(0).endTime(end));
        slurm.clock.advance(java.time.Duration.ofMinutes(50)); // slurmctld could not be reached, or Allot was down

        AttemptStatus s = only(backend.observe());

        assertThat(s.phase()).isEqualTo(EXITED);
        assertThat(s.endedAtMillis()).isEqualTo(end.toEpochMilli());
    }

    @Test
    void aFailedJobExitsWithTheCodeInItsWaitStatus() {
        backend.start(FakeSlurm.launch(W1));
        slurm.set(slurm.idOf(W1), j -> j.state("FAILED").reason("NonZeroExitCode").exit(768).nodes("n1"));

        assertThat(only(backend.observe()))
                .isEqualTo(new AttemptStatus(W1, EXITED, 3, "Slurm job 101 ended FAILED: NonZeroExitCode"));
    }

    @Test
    void aJobKilledBySignalHasNoExitCodeAndSaysWhichSignal() {
        backend.start(FakeSlurm.launch(W1));
        slurm.set(slurm.idOf(W1), j -> j.state("FAILED").reason("None").exit(9).nodes("n1"));

        AttemptStatus s = only(backend.observe());
        assertThat(s.phase()).isEqualTo(EXITED);
        assertThat(s.exitCode()).isNull();
        assertThat(s.detail()).isEqualTo("Slurm job 101 ended FAILED (signal 9)");
    }

    @Test
    void aRetriedStartAfterAnAppliedButUnansweredSubmitAdoptsTheJob() {
        slurm.nextSubmit(FakeSlurm.Submit.APPLIED_BUT_UNAVAILABLE);
        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isInstanceOf(BackendUnavailableException.class);

        backend.start(FakeSlurm.launch(W1)); // the loop retries at once

        assertThat(slurm.submissions()).containsExactly("submit w-1#1");
        assertThat(slurm.named(W1)).hasSize(1);
        assertThat(backend.counters()).containsEntry("adoptions", 1L).containsEntry("submissions", 0L);
        assertThat(only(backend.observe()).phase()).isEqualTo(STARTING);
    }

    @Test
    void aRetryWhoseProbeFailsThrowsAndTheNextRetryStillDoesNotSubmitAgain() {
        slurm.nextSubmit(FakeSlurm.Submit.APPLIED_BUT_UNAVAILABLE);
        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isInstanceOf(BackendUnavailableException.class);

        slurm.failNextProbes(1);
        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isInstanceOf(BackendUnavailableException.class);
        int probes = slurm.probeCalls;
        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))) // right after a failure: fails fast
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("cannot tell whether w-1#1");
        assertThat(slurm.probeCalls).isEqualTo(probes);

        slurm.clock.advance(Duration.ofSeconds(1));
        backend.start(FakeSlurm.launch(W1));

        assertThat(slurm.submissions()).containsExactly("submit w-1#1");
        assertThat(slurm.named(W1)).hasSize(1);
    }

    @Test
    void aRetryWhoseListingIsCutShortBeforeTheUnansweredJobLooksAgainAndAdoptsIt() {
        // given an sbatch that reached Slurm but whose answer was lost
        slurm.nextSubmit(FakeSlurm.Submit.APPLIED_BUT_UNAVAILABLE);
        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isInstanceOf(BackendUnavailableException.class);

        // when the retry's listing is cut short at the end of the line before that job (it reads as whole)
        slurm.cutNextListings(1);
        backend.start(FakeSlurm.launch(W1));

        // then a second listing finds the job: adopted, never submitted twice
        assertThat(slurm.submissions()).containsExactly("submit w-1#1");
        assertThat(slurm.named(W1)).hasSize(1);
        assertThat(backend.counters()).containsEntry("adoptions", 1L);
    }

    @Test
    void aSubmitThatNeverReachedSlurmIsSubmittedAgainOnRetry() {
        slurm.nextSubmit(FakeSlurm.Submit.UNAVAILABLE);
        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isInstanceOf(BackendUnavailableException.class);

        backend.start(FakeSlurm.launch(W1));

        assertThat(slurm.submissions()).hasSize(2);
        assertThat(slurm.named(W1)).hasSize(1);
        assertThat(backend.counters()).containsEntry("submissions", 1L);
    }

    @Test
    void aRefusalThatSlurmKeptAsAJobThatNeverRanIsStillARefusal() {
        slurm.nextSubmit(FakeSlurm.Submit.APPLIED_BUT_REFUSED); // as 22.05 does for a gres no node has

        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("Requested node configuration is not available")
                .hasMessageContaining("Slurm job 101, FAILED BadConstraints, never ran");
        assertThat(slurm.named(W1)).hasSize(1);
        AttemptStatus s = only(backend.observe());
        assertThat(s.phase()).isEqualTo(FAILED_TO_START);
        assertThat(s.detail()).contains("Slurm job 101 never ran", "BadConstraints");
    }

    @Test
    void aRealRefusalIsABackendExceptionAndLeavesNothingToObserve() {
        slurm.nextSubmit(FakeSlurm.Submit.REFUSED);

        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("Requested node configuration is not available");
        assertThat(backend.observe()).isEmpty();
    }

    @Test
    void startingAnAttemptTwiceSubmitsOnce() {
        backend.start(FakeSlurm.launch(W1));
        backend.start(FakeSlurm.launch(W1));

        assertThat(slurm.submissions()).hasSize(1);
    }

    @Test
    void anObserveWhoseProbeFailsThrowsAndChangesNothing() {
        backend.start(FakeSlurm.launch(W1));
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1"));
        assertThat(only(backend.observe()).phase()).isEqualTo(RUNNING);
        int actions = slurm.log.size();

        slurm.failNextProbes(1);
        assertThatThrownBy(backend::observe).isInstanceOf(BackendUnavailableException.class);

        assertThat(slurm.log).hasSize(actions);
        assertThat(backend.counters()).containsEntry("probe_failures", 1L);
        slurm.set(id, j -> j.state("COMPLETED").exit(0));
        assertThat(only(backend.observe())).isEqualTo(new AttemptStatus(W1, EXITED, 0, "Slurm job 101 completed"));
    }

    @Test
    void aTrackedJobMissingFromTheListingIsLookedUpById() {
        backend.start(FakeSlurm.launch(W1));
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1"));
        slurm.hiddenFromListing.add(id);

        assertThat(only(backend.observe())).isEqualTo(new AttemptStatus(W1, RUNNING, null, "Slurm job 101 is RUNNING on n1"));
    }

    @Test
    void aTrackedJobSlurmNoLongerKnowsIsStoppedAndSaysItWasConfirmed() {
        backend.start(FakeSlurm.launch(W1));
        slurm.jobs.remove(slurm.idOf(W1));

        AttemptStatus s = only(backend.observe());
        assertThat(s.phase()).isEqualTo(STOPPED);
        assertThat(s.detail()).contains("no longer knows job 101", "confirmed by id");
        assertThat(backend.counters()).containsEntry("missing_confirmed", 1L);
    }

    @Test
    void aMissingJobWhoseLookupFailsIsUnknownNeverEnded() {
        backend.start(FakeSlurm.launch(W1));
        slurm.hiddenFromListing.add(slurm.idOf(W1));
        slurm.lookupsFail = true;

        AttemptStatus s = only(backend.observe());
        assertThat(s.phase()).isEqualTo(UNKNOWN);
        assertThat(s.ended()).isFalse();
        assertThat(s.detail()).contains("Slurm job 101 is missing from the listing", "Socket timed out");

        slurm.lookupsFail = false;
        assertThat(only(backend.observe()).phase()).isEqualTo(STARTING);
    }

    @Test
    void theCountersAnswerWhileACommandIsInProgress() {
        // given an sbatch that takes long (slurmctld is down: it waits for its timeout), /metrics reads the counters
        java.util.concurrent.atomic.AtomicReference<Object> read = new java.util.concurrent.atomic.AtomicReference<>();
        slurm.duringNextSubmit(() -> {
            try {
                read.set(java.util.concurrent.CompletableFuture.supplyAsync(backend::counters)
                        .get(2, java.util.concurrent.TimeUnit.SECONDS));
            } catch (java.util.concurrent.TimeoutException e) {
                read.set("not answered within 2 s: the counters wait for the command");
            } catch (Exception e) {
                read.set(e);
            }
        });

        backend.start(FakeSlurm.launch(W1));

        // then they answer at once, with what was counted before the command
        assertThat(read.get()).isInstanceOf(java.util.Map.class);
        @SuppressWarnings("unchecked")
        java.util.Map<String, Long> during = (java.util.Map<String, Long>) read.get();
        assertThat(during).containsEntry("submissions", 0L);
        assertThat(backend.counters()).containsEntry("submissions", 1L);
    }
}
