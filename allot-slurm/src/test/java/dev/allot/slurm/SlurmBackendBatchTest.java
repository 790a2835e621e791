package dev.allot.slurm;

import static dev.allot.core.backend.AttemptStatus.Phase.STOPPED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cycle's starts and stops handed over together ({@link SlurmBackend#startAll}, {@link SlurmBackend#stopAll}):
 * their commands are in flight at once (each command here waits until the batch's others have begun, so one after
 * another they would time out), each attempt is still submitted once, a job Slurm already has is adopted, each
 * command's answer is applied to its own attempt, and a job's comment still comes before its cancel.
 */
class SlurmBackendBatchTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);
    private static final AttemptKey W2 = new AttemptKey("w-2", 1);
    private static final AttemptKey W3 = new AttemptKey("w-3", 1);
    private static final Duration GRACE = Duration.ofSeconds(30);

    private final FakeSlurm slurm = new FakeSlurm("inst1");
    /** How many of the next commands must be in flight together before any of them goes on. */
    private volatile CountDownLatch together = new CountDownLatch(0);
    private SlurmBackend backend;

    @BeforeEach
    void connect() {
        backend = new SlurmBackend(slurm.config, slurm, new Overlapping(), slurm.clock);
        backend.takeLock(Duration.ZERO);
    }

    private static List<Launch> launches(AttemptKey... keys) {
        List<Launch> out = new ArrayList<>();
        for (AttemptKey k : keys) {
            out.add(FakeSlurm.launch(k));
        }
        return out;
    }

    @Test
    void aCyclesStartsAreSubmittedAtOnceEachAttemptOnce() {
        together = new CountDownLatch(3);

        Map<AttemptKey, BackendException> failed = backend.startAll(launches(W1, W2, W3, W1), Backend.OPEN);

        assertThat(failed).isEmpty();
        assertThat(slurm.submissions()).containsExactlyInAnyOrder("submit w-1#1", "submit w-2#1", "submit w-3#1");
        assertThat(backend.observe()).extracting(AttemptStatus::attempt).containsExactly(W1, W2, W3);
        assertThat(List.of(slurm.idOf(W1), slurm.idOf(W2), slurm.idOf(W3))).doesNotHaveDuplicates();
    }

    @Test
    void aJobSlurmAlreadyHasIsAdoptedWhileTheOthersAreSubmitted() {
        long existing = slurm.add(slurm.job(W1));
        slurm.clock.advance(Duration.ofSeconds(3)); // the lock's listing is too old to say that W1 has no job
        together = new CountDownLatch(2);

        assertThat(backend.startAll(launches(W1, W2, W3), Backend.OPEN)).isEmpty();

        assertThat(slurm.submissions()).containsExactlyInAnyOrder("submit w-2#1", "submit w-3#1");
        assertThat(slurm.idOf(W1)).isEqualTo(existing);
    }

    @Test
    void eachSubmissionsAnswerIsItsAttemptsAlone() {
        together = new CountDownLatch(3);
        refuse = W2;
        unanswered = W3;

        Map<AttemptKey, BackendException> failed = backend.startAll(launches(W1, W2, W3), Backend.OPEN);

        assertThat(failed).containsOnlyKeys(W2, W3);
        assertThat(failed.get(W2)).isNotInstanceOf(BackendUnavailableException.class).hasMessageContaining("refused");
        assertThat(failed.get(W3)).isInstanceOf(BackendUnavailableException.class);
        assertThat(backend.observe()).extracting(AttemptStatus::attempt).containsExactly(W1);
        // The unanswered one is looked for in a fresh listing before it is submitted again: Slurm has none.
        unanswered = null;
        int probes = slurm.probeCalls;
        backend.start(FakeSlurm.launch(W3));
        assertThat(slurm.probeCalls).isGreaterThan(probes);
        assertThat(slurm.named(W3)).hasSize(1);
    }

    @Test
    void aClosedGateBeginsNoCommandAndLeavesTheOutcomeToBeAskedAgain() {
        Map<AttemptKey, BackendException> failed = backend.startAll(launches(W1, W2), () -> {
            throw new BackendUnavailableException("not the leader");
        });

        assertThat(failed).containsOnlyKeys(W1, W2);
        assertThat(failed.values()).allMatch(e -> e instanceof BackendUnavailableException);
        assertThat(slurm.submissions()).isEmpty();
        backend.start(FakeSlurm.launch(W1));
        assertThat(slurm.submissions()).containsExactly("submit w-1#1");
    }

    @Test
    void aCyclesStopsAreSentAtOnceEachJobsCommentBeforeItsCancel() {
        together = new CountDownLatch(3);
        assertThat(backend.startAll(launches(W1, W2, W3), Backend.OPEN)).isEmpty();
        List<Long> ids = List.of(slurm.idOf(W1), slurm.idOf(W2), slurm.idOf(W3));
        for (long id : ids) {
            slurm.set(id, j -> j.state("RUNNING").nodes("n1"));
        }
        backend.observe();
        together = new CountDownLatch(3);

        Map<AttemptKey, BackendException> failed = backend.stopAll(List.of(new Backend.Stop(W1, GRACE, "preempted by w-9"),
                new Backend.Stop(W2, GRACE, "cancelled"), new Backend.Stop(W3, GRACE, null)), Backend.OPEN);

        assertThat(failed).isEmpty();
        List<String> log = List.copyOf(slurm.log);
        assertThat(log.indexOf("comment " + ids.get(0) + " allot:inst1 preempted by w-9"))
                .isNotNegative().isLessThan(log.indexOf("cancel " + ids.get(0)));
        assertThat(log.indexOf("comment " + ids.get(1) + " allot:inst1 cancelled"))
                .isNotNegative().isLessThan(log.indexOf("cancel " + ids.get(1)));
        assertThat(log).contains("cancel " + ids.get(2)).noneMatch(s -> s.startsWith("comment " + ids.get(2)));
        assertThat(backend.observe()).extracting(AttemptStatus::phase).containsOnly(STOPPED);
    }

    /** Refused by sbatch (no job made); null: none. */
    private volatile AttemptKey refuse;
    /** sbatch gives no answer (no job made); null: none. */
    private volatile AttemptKey unanswered;

    /** The fake's actions, each sbatch and scancel waiting for {@link #together}, then acting under the fake's lock. */
    private final class Overlapping extends SlurmActions {
        Overlapping() {
            super(new Commands(slurm.config), slurm.config, SlurmActionsTest.passwd("root"));
        }

        private void inFlightTogether() {
            CountDownLatch l = together;
            l.countDown();
            try {
                if (!l.await(10, TimeUnit.SECONDS)) {
                    throw new AssertionError("the batch's commands were not in flight together");
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        long submit(Launch launch, JobIdentity who) {
            inFlightTogether();
            if (launch.attempt().equals(refuse)) {
                throw new BackendException("Slurm refused " + launch.attempt() + ": Invalid partition name specified");
            }
            if (launch.attempt().equals(unanswered)) {
                throw new BackendUnavailableException("sbatch did not answer within 10000 ms (killed)");
            }
            synchronized (slurm) {
                return slurm.actions.submit(launch, who);
            }
        }

        @Override
        boolean comment(long jobId, String comment) {
            synchronized (slurm) {
                return slurm.actions.comment(jobId, comment);
            }
        }

        @Override
        boolean cancel(long jobId) {
            inFlightTogether();
            synchronized (slurm) {
                return slurm.actions.cancel(jobId);
            }
        }

        @Override
        SlurmAllocation allocation(long jobId) {
            synchronized (slurm) {
                return slurm.actions.allocation(jobId);
            }
        }

        @Override
        long submitLock() {
            synchronized (slurm) {
                return slurm.actions.submitLock();
            }
        }
    }
}
