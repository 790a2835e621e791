package dev.allot.slurm;

import static dev.allot.core.backend.AttemptStatus.Phase.FAILED_TO_START;
import static dev.allot.core.backend.AttemptStatus.Phase.RUNNING;
import static dev.allot.core.backend.AttemptStatus.Phase.STARTING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Launch;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Slurm runs what Allot placed, or the attempt failed to start: the allocation of a job first seen running is
 * compared with its placement; heterogeneous jobs (uneven placements) read as one job.
 */
class SlurmBackendPlacementTest {
    private static final AttemptKey W1 = new AttemptKey("w-1", 1);

    private final FakeSlurm slurm = new FakeSlurm("inst1");
    private final SlurmBackend backend = slurm.backend();

    private static Launch sixPlusTwo() {
        return SlurmActionsTest.launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 6, "n2", 2);
    }

    private AttemptStatus only(List<AttemptStatus> statuses) {
        assertThat(statuses).hasSize(1);
        return statuses.get(0);
    }

    @Test
    void aJobThatGotExactlyItsPlacementRunsAndIsCheckedOnce() {
        backend.start(sixPlusTwo());
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1", "n2"));

        assertThat(only(backend.observe()).phase()).isEqualTo(RUNNING);
        assertThat(only(backend.observe()).phase()).isEqualTo(RUNNING);

        assertThat(slurm.log.stream().filter(s -> s.startsWith("allocation "))).containsExactly("allocation " + id);
    }

    @Test
    void givenSlurmSplitSixPlusTwoAsSevenPlusOneWhenSeenRunningThenItIsCancelledAndFailedToStartNamingBoth() {
        backend.start(sixPlusTwo());
        long id = slurm.idOf(W1);
        slurm.allocated.put(id, new SlurmAllocation(Map.of(
                "n1", new SlurmAllocation.NodeGres(7, List.of(0, 1, 2, 3, 4, 5, 6)),
                "n2", new SlurmAllocation.NodeGres(1, List.of(0)))));
        slurm.cancelTakesEffect = false; // Slurm takes a moment to end it
        slurm.set(id, j -> j.state("RUNNING").nodes("n1", "n2"));

        AttemptStatus s = only(backend.observe());

        // Never reported running; while Slurm ends it, it is still starting.
        assertThat(s.phase()).isEqualTo(STARTING);
        assertThat(slurm.log).contains("cancel " + id, "comment " + id
                + " allot:inst1 cancelled: not the GPUs Allot placed");
        slurm.set(id, j -> j.state("CANCELLED"));
        assertThat(only(backend.observe())).isEqualTo(new AttemptStatus(W1, FAILED_TO_START, null, "Slurm job " + id
                + " did not get the GPUs Allot placed it on: Slurm allocated n1: 7 GPUs (IDX 0-6), n2: 1 GPU (IDX 0)"
                + " where Allot placed n1: 6 GPUs (IDX 0-5), n2: 2 GPUs (IDX 0-1); Allot cancelled it"));
        assertThat(backend.counters()).containsEntry("allocation_mismatches", 1L);
    }

    @Test
    void theRightCountsOnOtherGpuIndexesRunAndAreCountedNotFailed() {
        backend.start(sixPlusTwo());
        long id = slurm.idOf(W1);
        slurm.allocated.put(id, new SlurmAllocation(Map.of(
                "n1", new SlurmAllocation.NodeGres(6, List.of(2, 3, 4, 5, 6, 7)),
                "n2", new SlurmAllocation.NodeGres(2, List.of(0, 1)))));
        slurm.set(id, j -> j.state("RUNNING").nodes("n1", "n2"));

        assertThat(only(backend.observe()).phase()).isEqualTo(RUNNING);
        assertThat(slurm.log).noneMatch(s -> s.startsWith("cancel"));
        assertThat(backend.counters()).containsEntry("allocation_index_differences", 1L)
                .containsEntry("allocation_mismatches", 0L);
    }

    @Test
    void anAllocationThatCannotBeReadYetKeepsTheAttemptStartingUntilItCan() {
        backend.start(sixPlusTwo());
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1", "n2"));
        slurm.allocationUnreadable = true;

        assertThat(only(backend.observe()).phase()).isEqualTo(STARTING);
        slurm.allocationUnreadable = false;
        assertThat(only(backend.observe()).phase()).isEqualTo(RUNNING);
        assertThat(slurm.log).noneMatch(s -> s.startsWith("cancel"));
    }

    @Test
    void aHeterogeneousJobsComponentsAreOneJobOfTheLeadersIdWithEveryComponentsNodes() throws Exception {
        // Real squeue --json with heterogeneous jobs 2 (2+3), 4 (4,5,6), 8 (8,9), 13 (13,14,15) and plain ones.
        List<SlurmJob> listed = SlurmJson.jobs("squeue --json", Fixtures.read("squeue-het.json"));
        assertThat(listed).hasSize(16);

        List<SlurmJob> jobs = SlurmJob.joinComponents(listed);

        assertThat(jobs).extracting(SlurmJob::id).containsExactly(1L, 2L, 4L, 7L, 8L, 10L, 11L, 12L, 13L, 16L);
        SlurmJob het = jobs.stream().filter(j -> j.id() == 13).findFirst().orElseThrow();
        assertThat(het.nodes()).containsExactly("n4", "n2", "n3");
        assertThat(het.name()).isEqualTo("allot:w#3");
        assertThat(het.state()).isEqualTo("COMPLETED");
        assertThat(jobs.stream().filter(j -> j.id() == 10).findFirst().orElseThrow().nodes())
                .containsExactly("n1", "n2");
    }

    @Test
    void theComponentsOfAnAttemptsHeterogeneousJobAreNotTakenForDuplicatesOfIt() {
        backend.start(sixPlusTwo());
        long id = slurm.idOf(W1);
        slurm.set(id, j -> j.state("RUNNING").nodes("n1").het(id, 0));
        slurm.add(slurm.job(W1).id(id + 1).state("RUNNING").nodes("n2").het(id, 1));

        AttemptStatus s = only(backend.observe());

        assertThat(s.phase()).isEqualTo(RUNNING);
        assertThat(s.detail()).isEqualTo("Slurm job " + id + " is RUNNING on n1,n2");
        assertThat(slurm.log).noneMatch(l -> l.startsWith("cancel"));
        assertThat(backend.counters()).containsEntry("duplicates_cancelled", 0L);
    }
}
