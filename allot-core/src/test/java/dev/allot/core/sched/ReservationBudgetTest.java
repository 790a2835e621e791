package dev.allot.core.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A whole-node reservation is planned only on nodes whose work the owner may take all together: with per-allocation
 * budgets, job-by-job permission is not enough (a reservation that said "room at this time" while the budget could
 * never free those nodes kept other work off them for nothing).
 */
class ReservationBudgetTest {
    private final RunningJobs fixture =
            new RunningJobs(3, AllocationTree.builder("lab").leaf("A", 50).leaf("B", 50).build());
    private final ClusterState s = fixture.state;

    private Job runB(String id, int node) {
        return fixture.run(id, "B", node, 8);
    }

    /** The rights of waiting work of A (leaf 0) that may take up to {@code budgetB} GPUs of B's work. */
    private static PreemptionRules.Rights rightsOnB(long budgetB) {
        return new PreemptionRules.Rights(0, 1, new long[] {0, budgetB}, Long.MAX_VALUE, 0, null);
    }

    @Test
    void theBudgetTrackerAdmitsJobsOnlyWhileTheyFitTogether() {
        Job b1 = runB("b1", 0);
        Job b2 = runB("b2", 1);
        Job b3 = runB("b3", 2);
        var tracker = PreemptionRules.budgetTracker(rightsOnB(16));
        assertThat(tracker.takeAll(List.of(b1), j -> false)).isTrue();
        assertThat(tracker.takeAll(List.of(b2), j -> false)).isTrue();
        assertThat(tracker.takeAll(List.of(b3), j -> false)).as("24 GPUs of B exceed the budget of 16").isFalse();
        assertThat(tracker.takeAll(List.of(b3), j -> j == b3)).as("a job already gone costs nothing").isTrue();
        // each job on its own fits the budget: the job-by-job rule would have admitted all three
        assertThat(PreemptionRules.mayPreempt(rightsOnB(16), b3)).isTrue();
    }

    @Test
    void givenABudgetForTwoOfThreeNodesAThreeNodeGangGetsNoReservation() {
        runB("b1", 0);
        runB("b2", 1);
        runB("b3", 2);
        Job gang = s.register(WorkloadSpec.builder("g").allocation("A").gpus(24).gpusPerNode(8).build());
        s.submit(gang, 0);
        CycleWork work = fixture.work();
        PreemptionRules.Rights two = rightsOnB(16);
        assertThat(Reservation.plan(work, gang, j -> PreemptionRules.mayPreempt(two, j), null, null))
                .as("job by job, every node looks takeable").isNotNull();
        assertThat(Reservation.plan(work, gang, j -> PreemptionRules.mayPreempt(two, j),
                PreemptionRules.budgetTracker(two), null)).isNull();
        PreemptionRules.Rights three = rightsOnB(24);
        Reservation r = Reservation.plan(work, gang, j -> PreemptionRules.mayPreempt(three, j),
                PreemptionRules.budgetTracker(three), null);
        assertThat(r).isNotNull();
        assertThat(r.nodes().cardinality()).isEqualTo(3);
    }
}
