package dev.allot.core.explain;

import java.util.List;
import java.util.Map;

/**
 * The whole queue at one instant, as {@link WaitExplainer#queue} reads it from the state: every waiting job in the
 * order the policy would serve it ({@link WaitExplainer#servingOrder}), and, once per allocation that has waiting
 * work, the fair-share numbers per tree level that rank it (the same numbers an explanation of one of its jobs
 * gives: the standings now, before the serving order charges any start).
 *
 * @param atSeconds   the state's time
 * @param entries     the waiting jobs, first served first
 * @param levels      per allocation (leaf path) of an entry, its levels from the top of the tree down to it
 */
public record QueueSnapshot(long atSeconds, List<Entry> entries, Map<String, List<WaitExplanation.FairShareLevel>> levels) {
    public QueueSnapshot {
        entries = List.copyOf(entries);
        levels = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(levels));
    }

    /**
     * One waiting job.
     *
     * @param position             1-based place in the serving order
     * @param positionInAllocation 1-based place among its allocation's entries
     */
    public record Entry(String jobId, String allocation, boolean allocated, int gpus, int position,
                        int positionInAllocation) {
    }
}
