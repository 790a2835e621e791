package dev.allot.core.policy.kueue;

import dev.allot.core.state.Job;
import java.util.Comparator;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The order in which one ClusterQueue's admitted workloads are offered as preemption candidates: Kueue's
 * {@code CandidatesOrdering} ({@code pkg/scheduler/preemption/common/ordering.go}), the one place the
 * {@code kueue} policy decides which of a ClusterQueue's workloads goes first:
 * <ol>
 *   <li>with Admission Fair Sharing, the workload of the LocalQueue with <em>more</em> decayed usage first (Kueue
 *   compares the two usages the other way round from its comment: the heavier LocalQueue gives way);</li>
 *   <li>the lower priority first;</li>
 *   <li>the one admitted more recently first (Kueue's quota reservation time);</li>
 *   <li>the smaller workload id, where Kueue compares UIDs, for a deterministic order.</li>
 * </ol>
 * Kueue's first two criteria do not arise here: a workload already being evicted is dropped at once (evictions
 * complete at once), and the candidates come one ClusterQueue at a time (fair sharing takes them per ClusterQueue),
 * so "other ClusterQueues before the preemptor's" never compares two workloads of one list.
 */
final class CandidateOrder implements Comparator<Job> {
    private final ToLongFunction<Job> admittedAtSeconds;
    private final ToDoubleFunction<Job> localQueueUsage;

    /**
     * @param admittedAtSeconds when each workload was admitted
     * @param localQueueUsage   with Admission Fair Sharing, the usage of each workload's LocalQueue; null without
     */
    CandidateOrder(ToLongFunction<Job> admittedAtSeconds, ToDoubleFunction<Job> localQueueUsage) {
        this.admittedAtSeconds = admittedAtSeconds;
        this.localQueueUsage = localQueueUsage;
    }

    @Override
    public int compare(Job a, Job b) {
        int c = localQueueUsage == null ? 0
                : Double.compare(localQueueUsage.applyAsDouble(b), localQueueUsage.applyAsDouble(a));
        if (c != 0) {
            return c;
        }
        c = Integer.compare(a.spec().priority().ordinal(), b.spec().priority().ordinal());
        if (c != 0) {
            return c;
        }
        c = Long.compare(admittedAtSeconds.applyAsLong(b), admittedAtSeconds.applyAsLong(a));
        return c != 0 ? c : a.id().compareTo(b.id());
    }
}
