package dev.allot.core.explain;

import java.util.List;

/**
 * What a waiting workload waits for, as the allocation policy sees the state at one moment. GPU counts are counts,
 * not places: they say whether enough GPUs exist, not whether a gang's shape fits them (a gang that does not fit is
 * told apart by {@link Gang}).
 *
 * <ul>
 *   <li>{@link StartsNow}: nothing blocks it; a scheduling cycle on this state starts it (perhaps after
 *       preempting the workloads named).</li>
 *   <li>{@link HigherRankedWork}: enough GPUs are idle or preemptible for it, but work ahead of it in the order
 *       the policy serves takes them (or holds them in a reservation) first.</li>
 *   <li>{@link Gang}: a gang (a fixed number of GPUs on each of several nodes, often whole nodes) for which too
 *       few nodes have that many idle GPUs now.</li>
 *   <li>{@link ProtectedUntil}: too few GPUs now, but enough at {@code untilSeconds}, when the minimum runtime of
 *       the workloads named ends and it may preempt them (if the ranks stay as they are now).</li>
 *   <li>{@link Gpus}: too few GPUs now and none coming from protection ends that it may take: it waits for work it
 *       may not preempt to end, or for its allocation to rank higher.</li>
 *   <li>{@link Unallocated}: unallocated work (minimum runtime 0) runs only on GPUs that no waiting allocated work
 *       uses, and never preempts.</li>
 * </ul>
 */
public sealed interface WaitsFor {
    /** A short lower-case name for the kind, for JSON and tables. */
    String kind();

    /** It starts in the next cycle; {@code preemptsIds} are the workloads the policy would stop for it (sorted). */
    record StartsNow(List<String> preemptsIds) implements WaitsFor {
        public StartsNow {
            preemptsIds = List.copyOf(preemptsIds);
        }

        @Override
        public String kind() {
            return "starts-now";
        }
    }

    /**
     * Enough GPUs exist for it ({@code idleGpus} idle plus {@code preemptibleGpus} it may take now), but the
     * {@code waitingAhead} allocated workloads ahead of it in serving order, asking {@code gpusAhead} GPUs in all,
     * are served first.
     */
    record HigherRankedWork(int neededGpus, int idleGpus, long preemptibleGpus, int waitingAhead, long gpusAhead)
            implements WaitsFor {
        @Override
        public String kind() {
            return "higher-ranked-work";
        }
    }

    /**
     * A gang of {@code nodesNeeded} nodes with {@code gpusPerNode} GPUs each ({@code wholeNodes} when that is a whole
     * node of the largest kind); only {@code nodesWithRoom} healthy nodes have that many idle GPUs now.
     * {@code roomAtSeconds} is when enough nodes would have room if it preempted, on each node, the work it may
     * preempt as soon as that work's protection ends ({@code protectedWork}, sorted by end, then id, are those whose
     * protection it waits for); -1 when protection ends never make enough nodes (it waits for work it may not
     * preempt to end). Like {@link ProtectedUntil}, this holds only if the ranks stay as they are now.
     */
    record Gang(int nodesNeeded, int gpusPerNode, boolean wholeNodes, int nodesWithRoom, long roomAtSeconds,
                List<ProtectedWork> protectedWork) implements WaitsFor {
        public Gang {
            protectedWork = List.copyOf(protectedWork);
        }

        @Override
        public String kind() {
            return "gang";
        }
    }

    /**
     * It needs {@code neededGpus}; {@code idleGpus} are idle and {@code preemptibleGpus} could be taken now, which is
     * too few; at {@code untilSeconds} the protection of {@code protectedWork} (sorted by end, then id) has ended and
     * it may preempt them, which makes enough.
     */
    record ProtectedUntil(long untilSeconds, int neededGpus, int idleGpus, long preemptibleGpus,
                          List<ProtectedWork> protectedWork) implements WaitsFor {
        public ProtectedUntil {
            protectedWork = List.copyOf(protectedWork);
        }

        @Override
        public String kind() {
            return "protected-until";
        }
    }

    /**
     * A running workload that may not be preempted yet, and when it may: the end of its minimum runtime, or
     * ({@code turn}) later, when its run has lasted the shortest turn (allocation.min-turn) a preemptor whose
     * allocation is not owed must leave it.
     */
    record ProtectedWork(String id, String allocation, int gpus, long untilSeconds, boolean turn) {
        public ProtectedWork(String id, String allocation, int gpus, long untilSeconds) {
            this(id, allocation, gpus, untilSeconds, false);
        }
    }

    /**
     * It needs {@code neededGpus}; {@code idleGpus} are idle, {@code preemptibleGpus} could be taken now and
     * {@code preemptibleLaterGpus} more once their protection ends: not enough even then.
     */
    record Gpus(int neededGpus, int idleGpus, long preemptibleGpus, long preemptibleLaterGpus) implements WaitsFor {
        @Override
        public String kind() {
            return "gpus";
        }
    }

    /**
     * Its start would take its allocation beyond its quota with protected work, and the burst reserve holds it back:
     * {@code quickGpus} could be handed over at once (idle, unallocated, unprotected beyond a quota), which after
     * its {@code neededGpus} would not cover {@code reserve} x the other allocations' unused quotas
     * ({@code roomGpus}). It starts when that changes, or on GPUs unallocated work leaves idle.
     */
    record BurstReserve(int neededGpus, long quickGpus, double roomGpus, double reserve) implements WaitsFor {
        @Override
        public String kind() {
            return "burst-reserve";
        }
    }

    /**
     * Unallocated: it needs {@code neededGpus}; {@code idleGpus} are idle now, and {@code allocatedWaiting}
     * allocated workloads wait, which come first.
     */
    record Unallocated(int neededGpus, int idleGpus, int allocatedWaiting) implements WaitsFor {
        @Override
        public String kind() {
            return "unallocated";
        }
    }
}
