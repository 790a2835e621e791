package dev.allot.core.sched;

import dev.allot.core.state.Job;
import java.util.List;
import java.util.function.Predicate;

/**
 * Whether a reservation's owner may take all of a node's jobs on top of those it took on nodes before: a policy
 * whose preemption rights are budgets across jobs (so job-by-job permission is not enough) answers here. One
 * instance serves one planning pass and remembers what it admitted.
 */
@FunctionalInterface
public interface NodeBudget {
    /**
     * Admits the jobs of {@code jobsOnNode} not {@code gone} (already chosen as victims) if the owner may preempt
     * every one and they fit what is left of the budgets, and then counts them; otherwise changes nothing.
     */
    boolean takeAll(List<Job> jobsOnNode, Predicate<Job> gone);
}
