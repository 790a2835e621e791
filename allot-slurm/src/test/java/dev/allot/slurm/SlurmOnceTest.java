package dev.allot.slurm;

import static dev.allot.core.backend.AttemptStatus.Phase.EXITED;
import static dev.allot.core.backend.AttemptStatus.Phase.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.BackendUnavailableException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One attempt's command runs at most once on Slurm even when it is submitted twice: by an old leader whose sbatch
 * lands after the lease moved and the new leader submitted the same attempt, or by one service whose unanswered
 * sbatch reached slurmctld only after the retry's read-back found nothing. Slurm's scheduler is the fake's
 * ({@link FakeSlurm#schedule}): a job starts as soon as it is scheduled unless a singleton dependency holds it.
 */
class SlurmOnceTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);

    private final FakeSlurm slurm = new FakeSlurm("inst1");
    /** The old leader's backend (its term) and the new leader's: one instance id, one Slurm, as in HA. */
    private final SlurmBackend oldLeader = slurm.backend();
    private final SlurmBackend newLeader = slurm.backend();

    private AttemptStatus only(List<AttemptStatus> statuses) {
        assertThat(statuses).hasSize(1);
        return statuses.get(0);
    }

    private List<String> cancels() {
        return slurm.log.stream().filter(s -> s.startsWith("cancel ")).toList();
    }

    @Test
    void anOldLeadersSbatchLandingAfterTheNewLeaderSubmittedWaitsInSlurmAndIsCancelledWithoutEverRunning() {
        // given the old leader's sbatch in flight while the new leader, finding no job, submits the attempt
        slurm.duringNextSubmit(() -> newLeader.start(FakeSlurm.launch(W1)));
        oldLeader.start(FakeSlurm.launch(W1));
        long first = slurm.named(W1).get(0).id();
        long late = slurm.named(W1).get(1).id();

        // when Slurm schedules, and the new leader observes and Slurm schedules again
        slurm.schedule();
        AttemptStatus s = only(newLeader.observe());
        slurm.schedule();

        // then the first runs, the late one never did: cancelled while it waited
        assertThat(slurm.submissions()).hasSize(2);
        assertThat(slurm.ran).containsExactly(first);
        assertThat(slurm.jobs.get(late).state()).isEqualTo("CANCELLED");
        assertThat(cancels()).containsExactly("cancel " + late);
        assertThat(s).isEqualTo(new AttemptStatus(W1, RUNNING, null, "Slurm job " + first + " is RUNNING on n1"));
        assertThat(newLeader.counters()).containsEntry("duplicates_cancelled", 1L);
    }

    @Test
    void anOldLeadersSbatchLandingFirstIsTheJobThatRunsAndTheNewLeaderFollowsItNotItsOwn() {
        // given the new leader's sbatch in flight (its listing showed no job) when the old leader's lands first
        slurm.duringNextSubmit(() -> oldLeader.start(FakeSlurm.launch(W1)));
        newLeader.start(FakeSlurm.launch(W1));
        long oldLeaders = slurm.named(W1).get(0).id();
        long newLeaders = slurm.named(W1).get(1).id();

        // when Slurm schedules, the new leader observes, and Slurm schedules again
        slurm.schedule();
        AttemptStatus s = only(newLeader.observe());
        slurm.schedule();

        // then the older job runs and stands for the attempt; the new leader's own never ran
        assertThat(slurm.ran).containsExactly(oldLeaders);
        assertThat(slurm.jobs.get(newLeaders).state()).isEqualTo("CANCELLED");
        assertThat(cancels()).containsExactly("cancel " + newLeaders);
        assertThat(s).isEqualTo(new AttemptStatus(W1, RUNNING, null, "Slurm job " + oldLeaders + " is RUNNING on n1"));
        assertThat(newLeader.counters()).containsEntry("duplicates_cancelled", 1L);

        // and its end is the attempt's end
        slurm.complete(oldLeaders);
        assertThat(only(newLeader.observe())).isEqualTo(new AttemptStatus(W1, EXITED, 0,
                "Slurm job " + oldLeaders + " completed"));
    }

    @Test
    void anUnansweredSbatchThatReachesSlurmOnlyAfterTheRetrysReadBackRunsOnceTheLaterJobCancelledWhileWaiting() {
        // given an sbatch that gave up before slurmctld took it in, and a retry whose two listings show nothing
        slurm.nextSubmit(FakeSlurm.Submit.LANDS_LATE);
        assertThatThrownBy(() -> newLeader.start(FakeSlurm.launch(W1))).isInstanceOf(BackendUnavailableException.class);
        slurm.clock.advance(Duration.ofSeconds(1));
        newLeader.start(FakeSlurm.launch(W1));
        long retried = slurm.idOf(W1);

        // when slurmctld takes in the first request after all, and Slurm schedules around an observation
        slurm.landLate();
        long late = slurm.named(W1).get(1).id();
        slurm.schedule();
        AttemptStatus s = only(newLeader.observe());
        slurm.schedule();

        // then one job ran: the retry's; the late one was cancelled before it could start
        assertThat(slurm.submissions()).hasSize(2);
        assertThat(slurm.ran).containsExactly(retried);
        assertThat(slurm.jobs.get(late).state()).isEqualTo("CANCELLED");
        assertThat(s.detail()).startsWith("Slurm job " + retried + " is RUNNING");
        assertThat(newLeader.counters()).containsEntry("duplicates_cancelled", 1L);
    }

    @Test
    void anUnansweredSbatchLandingJustBeforeTheRetrysOwnIsTheJobThatRunsAndTheRetrysIsCancelled() {
        slurm.nextSubmit(FakeSlurm.Submit.LANDS_LATE);
        assertThatThrownBy(() -> newLeader.start(FakeSlurm.launch(W1))).isInstanceOf(BackendUnavailableException.class);
        slurm.clock.advance(Duration.ofSeconds(1));
        slurm.duringNextSubmit(slurm::landLate); // after the retry's read-back, before its sbatch's job exists
        newLeader.start(FakeSlurm.launch(W1));
        long landed = slurm.named(W1).get(0).id();
        long retried = slurm.named(W1).get(1).id();

        slurm.schedule();
        AttemptStatus s = only(newLeader.observe());
        slurm.schedule();

        assertThat(slurm.ran).containsExactly(landed);
        assertThat(slurm.jobs.get(retried).state()).isEqualTo("CANCELLED");
        assertThat(s.detail()).startsWith("Slurm job " + landed + " is RUNNING");
    }

    @Test
    void aStopAskedOfTheLaterJobBeforeTheOlderWasSeenReachesTheOlderToo() {
        slurm.duringNextSubmit(() -> oldLeader.start(FakeSlurm.launch(W1)));
        newLeader.start(FakeSlurm.launch(W1));
        long oldLeaders = slurm.named(W1).get(0).id();
        long newLeaders = slurm.named(W1).get(1).id();
        slurm.schedule();

        newLeader.stop(W1, Duration.ofSeconds(30), "preempted by w-7"); // sent to the job it tracks, its own
        AttemptStatus s = only(newLeader.observe());

        assertThat(cancels()).containsExactly("cancel " + newLeaders, "cancel " + oldLeaders);
        assertThat(slurm.jobs.get(oldLeaders).state()).isEqualTo("CANCELLED");
        assertThat(s.detail()).startsWith("Slurm job " + oldLeaders + " ");
    }

    /**
     * A singleton holds the later job only while the first is pending or running. If the first has ended before any
     * observation saw the later one, Slurm starts the later one: the backend cancels it at once and reports the
     * attempt as the first job ended; what keeps its command from running is the job's script ({@link OnceGuard},
     * which this fake does not run: see {@code OnceGuardTest} and the story on a real Slurm).
     */
    @Test
    void aDuplicateSlurmStartedBecauseTheFirstJobEndedUnseenIsCancelledAndTheAttemptEndsAsTheFirst() {
        slurm.duringNextSubmit(() -> newLeader.start(FakeSlurm.launch(W1)));
        oldLeader.start(FakeSlurm.launch(W1));
        long first = slurm.named(W1).get(0).id();
        long late = slurm.named(W1).get(1).id();
        slurm.schedule();
        slurm.complete(first);
        slurm.schedule();

        AttemptStatus s = only(newLeader.observe());

        assertThat(slurm.ran).containsExactly(first, late); // started by Slurm; its script runs nothing
        assertThat(cancels()).containsExactly("cancel " + late);
        assertThat(s).isEqualTo(new AttemptStatus(W1, EXITED, 0, "Slurm job " + first + " completed"));
    }
}
