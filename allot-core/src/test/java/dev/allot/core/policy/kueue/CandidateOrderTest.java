package dev.allot.core.policy.kueue;

import static dev.allot.core.model.Priority.HIGH;
import static dev.allot.core.model.Priority.LOW;
import static dev.allot.core.model.Priority.NORMAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kueue's {@code CandidatesOrdering} as {@link CandidateOrder} states it, on the jobs of a cluster state. */
class CandidateOrderTest {

    /** One ClusterQueue's admitted workloads, one second apart in this order. */
    private static List<Job> admitted() {
        KueueCluster k = KueueCluster.flat(new String[] {"A"}, new int[] {8})
                .admitted("old-low", "A", 1, LOW).admitted("high", "A", 1, HIGH).admitted("new-low", "A", 1, LOW)
                .admitted("normal", "A", 1, NORMAL);
        return new ArrayList<>(k.state().jobs());
    }

    @Test
    void lowerPriorityFirstThenAdmittedMoreRecentlyThenId() {
        List<Job> jobs = admitted();
        jobs.sort(new CandidateOrder(Job::attemptStartSeconds, null));
        assertThat(jobs).extracting(Job::id).containsExactly("new-low", "old-low", "normal", "high");
        // same priority, same admission time: the smaller id first ("new-low" although given after "old-low")
        List<Job> tied = admitted().subList(0, 3);
        tied.sort(new CandidateOrder(j -> 5, null));
        assertThat(tied).extracting(Job::id).containsExactly("new-low", "old-low", "high");
    }

    @Test
    void withAdmissionFairSharingTheHeavierLocalQueueGivesWayFirst() {
        Map<String, Double> usage = Map.of("old-low", 1.0, "high", 9.0, "new-low", 1.0, "normal", 5.0);
        List<Job> jobs = admitted();
        jobs.sort(new CandidateOrder(Job::attemptStartSeconds, j -> usage.get(j.id())));
        assertThat(jobs).extracting(Job::id).containsExactly("high", "normal", "new-low", "old-low");
    }
}
