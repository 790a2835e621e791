package dev.allot.slurm;

import static dev.allot.core.backend.AttemptStatus.Phase.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.BackendException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Restarts, the instance lock and other Allot instances on the same cluster. */
class SlurmBackendInstanceTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);
    private static final AttemptKey W2 = new AttemptKey("w-2", 1);

    private final FakeSlurm slurm = new FakeSlurm("inst1");

    @Test
    void theFirstStartMakesALockJobAndARestartKeepsIt() {
        SlurmBackend first = slurm.backend();
        SlurmBackend restarted = slurm.backend();

        assertThat(slurm.log).containsExactly("submitLock");
        assertThat(restarted.lockJobId()).isEqualTo(first.lockJobId()).isEqualTo(100);
        assertThat(slurm.jobs.get(100L).name()).isEqualTo("allot:lock");
        assertThat(slurm.jobs.get(100L).comment()).isEqualTo("allot:inst1");
    }

    @Test
    void aRestartedBackendReportsItsJobsAndAdoptsThemWithoutSubmitting() {
        SlurmBackend before = slurm.backend();
        before.start(FakeSlurm.launch(W1));
        before.start(FakeSlurm.launch(W2));
        slurm.set(slurm.idOf(W1), j -> j.state("RUNNING").nodes("n1"));

        SlurmBackend after = slurm.backend();

        assertThat(after.observe()).extracting(AttemptStatus::attempt, AttemptStatus::phase)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(W1, RUNNING),
                        org.assertj.core.groups.Tuple.tuple(W2, AttemptStatus.Phase.STARTING));
        after.start(FakeSlurm.launch(W1));
        assertThat(slurm.submissions()).hasSize(2);
        assertThat(after.counters()).containsEntry("adoptions", 2L).containsEntry("submissions", 0L);
    }

    @Test
    void afterARestartJobsThatHadEndedAreReportedButNotTrackedSoNothingIsLookedUpOnceSlurmForgetsThem() {
        SlurmBackend before = slurm.backend();
        before.start(FakeSlurm.launch(W1));
        slurm.set(slurm.idOf(W1), j -> j.state("COMPLETED").exit(0).nodes("n1"));

        SlurmBackend after = slurm.backend();
        assertThat(after.observe()).extracting(AttemptStatus::attempt, AttemptStatus::phase)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(W1, AttemptStatus.Phase.EXITED));
        assertThat(after.counters()).containsEntry("adoptions", 0L);

        // Past MinJobAge Slurm purges it: the restarted backend neither reports nor looks it up.
        slurm.jobs.remove(slurm.idOf(W1));
        int probes = slurm.probeCalls;
        assertThat(after.observe()).isEmpty();
        assertThat(slurm.probeCalls - probes).as("probes: one listing, no lookup").isEqualTo(1);
    }

    @Test
    void aRestartedBackendAskedToStartBeforeObservingAdoptsTooWithoutSubmitting() {
        slurm.backend().start(FakeSlurm.launch(W1));

        SlurmBackend after = slurm.backend();
        after.start(FakeSlurm.launch(W1));

        assertThat(slurm.submissions()).hasSize(1);
        assertThat(after.counters()).containsEntry("adoptions", 1L);
    }

    @Test
    void anotherInstancesOlderLockRefusesThisOneNamingItAndHowToClearIt() {
        slurm.add(new FakeSlurm.Job(JobTag.LOCK_NAME).id(42).comment("allot:other").reason("JobHeldUser"));

        assertThatThrownBy(slurm::backend).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("'other'").hasMessageContaining("lock job 42").hasMessageContaining("scancel 42")
                .hasMessageContaining("'inst1'");
        assertThat(slurm.log).doesNotContain("submitLock");
    }

    @Test
    void anEndedLockOfAnotherInstanceDoesNotCount() {
        slurm.add(new FakeSlurm.Job(JobTag.LOCK_NAME).id(42).comment("allot:other").state("CANCELLED"));

        SlurmBackend backend = slurm.backend();

        assertThat(backend.lockJobId()).isEqualTo(100);
        assertThat(slurm.log).containsExactly("submitLock");
    }

    @Test
    void anAttemptNameTakenByAnotherInstanceIsRefusedNotAdopted() {
        SlurmBackend backend = slurm.backend();
        slurm.add(new FakeSlurm.Job(JobTag.name(W1)).comment("allot:other").state("RUNNING").nodes("n3"));
        assertThat(backend.observe()).isEmpty(); // not ours to report

        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("another Allot instance 'other'");
        assertThat(slurm.submissions()).isEmpty();
    }

    @Test
    void anEndedJobOfAnotherInstanceWithTheSameNameIsIgnored() {
        SlurmBackend backend = slurm.backend();
        slurm.add(new FakeSlurm.Job(JobTag.name(W1)).comment("allot:other").state("COMPLETED"));

        backend.start(FakeSlurm.launch(W1));

        assertThat(slurm.submissions()).hasSize(1);
    }

    @Test
    void anInstanceWhoseLockWasTakenOverLaunchesNothing() {
        SlurmBackend backend = slurm.backend();
        slurm.set(backend.lockJobId(), j -> j.state("CANCELLED")); // an operator removed it
        slurm.add(new FakeSlurm.Job(JobTag.LOCK_NAME).comment("allot:other").reason("JobHeldUser"));
        backend.observe();

        assertThatThrownBy(() -> backend.start(FakeSlurm.launch(W1))).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("'other'");
        assertThat(slurm.submissions()).isEmpty();
    }

    @Test
    void takingTheLockWhileSlurmCannotBeReadFailsWithoutPatience() {
        slurm.failNextProbes(1);
        SlurmBackend b = new SlurmBackend(slurm.config, slurm, slurm.actions, slurm.clock);

        assertThatThrownBy(() -> b.takeLock(Duration.ZERO)).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("could not take the instance lock within 0 s, as Slurm's jobs could not be listed: ");
        assertThat(slurm.log).isEmpty();
    }

    @Test
    void slurmctldUnreachableAtStartSaysWhichSettingsSayWhereItIsAndHowToTryThem() {
        // On the loopback cluster, a slurm.conf with the wrong SlurmctldPort gave, after 30 s: "could not take the
        // instance lock within 30 s, as Slurm's jobs could not be listed: could not list Slurm's jobs: scontrol -o ...
        // exited 1: slurm_load_jobs error: Unable to contact slurm controller (connect failure)", and no hint.
        slurm.failNextProbes(1);
        SlurmBackend b = new SlurmBackend(slurm.config, slurm, slurm.actions, slurm.clock);

        assertThatThrownBy(() -> b.takeLock(Duration.ZERO)).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("is slurmctld running where").hasMessageContaining("SlurmctldPort")
                .hasMessageContaining("scontrol ping").hasMessageContaining("--slurm-conf");
    }

    @Test
    void ofTwoInstancesStartingTogetherTheLaterLockCancelsItselfAndRefuses() {
        slurm.beforeSubmitLock = () -> slurm.add(new FakeSlurm.Job(JobTag.LOCK_NAME).comment("allot:other"));

        assertThatThrownBy(slurm::backend).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("lock job 100");
        assertThat(slurm.log).containsExactly("submitLock", "cancel 101");
        assertThat(slurm.jobs.get(101L).state()).isEqualTo("CANCELLED");
    }

    @Test
    void aSpareLockFromAnEarlierTryIsCancelledAndTheOldestKept() {
        slurm.add(new FakeSlurm.Job(JobTag.LOCK_NAME).comment("allot:inst1"));
        slurm.add(new FakeSlurm.Job(JobTag.LOCK_NAME).comment("allot:inst1"));

        assertThat(slurm.backend().lockJobId()).isEqualTo(100);
        assertThat(slurm.log).containsExactly("cancel 101");
    }
}
