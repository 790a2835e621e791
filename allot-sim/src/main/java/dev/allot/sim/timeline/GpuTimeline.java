package dev.allot.sim.timeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Who ran on which GPU and when: one bar per GPU per run of a workload, stored column by column (a run of a
 * 16-GPU gang is 16 bars), so a month of a thousand-GPU cluster stays a few arrays rather than a million objects.
 * Bars are in the order their runs ended; {@link TimelineRecorder} fills it.
 *
 * <p>A bar says where ({@linkplain #node node}, {@linkplain #lane GPU lane} on that node, {@linkplain #gpuRow row}
 * counting all GPUs before it), when ({@linkplain #startSeconds start}, {@linkplain #endSeconds end}), from when the
 * workload was preemptible ({@linkplain #preemptibleFromSeconds}: the end of its minimum runtime, its start when it
 * ran unallocated, never when the run ended protected), which workload ({@linkplain #workload index} into
 * {@link #workloadIds}) and how the run ended.
 */
public final class GpuTimeline {
    /** How a run ended. */
    public enum End {
        COMPLETED, PREEMPTED, REQUEUED, RUNNING_AT_END
    }

    private final int[] firstRowOfNode;
    private int size;
    private int[] node = new int[64];
    private int[] lane = new int[64];
    private long[] start = new long[64];
    private long[] end = new long[64];
    private long[] preemptibleFrom = new long[64];
    private int[] workload = new int[64];
    private byte[] endKind = new byte[64];
    private final List<String> workloadIds = new ArrayList<>();
    private final List<NodePeriod> nodePeriods = new ArrayList<>();

    /** What a node was doing for a while: unhealthy (draining or drained), or drained (empty, waiting for repair). */
    public enum NodeState {
        UNHEALTHY, DRAINED
    }

    /** A node's unhealthy or drained period; {@code toSeconds} is when it became healthy or the run ended. */
    public record NodePeriod(int node, NodeState state, long fromSeconds, long toSeconds) {
    }

    GpuTimeline(int[] gpusPerNode) {
        firstRowOfNode = new int[gpusPerNode.length + 1];
        for (int n = 0; n < gpusPerNode.length; n++) {
            firstRowOfNode[n + 1] = firstRowOfNode[n] + gpusPerNode[n];
        }
    }

    /** Rows (GPUs) in the cluster. */
    public int gpuCount() {
        return firstRowOfNode[firstRowOfNode.length - 1];
    }

    public int nodeCount() {
        return firstRowOfNode.length - 1;
    }

    /** GPUs (lanes) of a node. */
    public int gpusOn(int nodeIndex) {
        return firstRowOfNode[nodeIndex + 1] - firstRowOfNode[nodeIndex];
    }

    /** The row of a node's first GPU. */
    public int firstRow(int nodeIndex) {
        return firstRowOfNode[nodeIndex];
    }

    public int size() {
        return size;
    }

    public int node(int bar) {
        return node[check(bar)];
    }

    public int lane(int bar) {
        return lane[check(bar)];
    }

    public int gpuRow(int bar) {
        return firstRowOfNode[node[check(bar)]] + lane[bar];
    }

    public long startSeconds(int bar) {
        return start[check(bar)];
    }

    public long endSeconds(int bar) {
        return end[check(bar)];
    }

    /** When the run became preemptible; {@code Long.MAX_VALUE} if it never was while it ran. */
    public long preemptibleFromSeconds(int bar) {
        return preemptibleFrom[check(bar)];
    }

    public int workload(int bar) {
        return workload[check(bar)];
    }

    public String workloadId(int bar) {
        return workloadIds.get(workload(bar));
    }

    public End end(int bar) {
        return End.values()[endKind[check(bar)]];
    }

    /** Workload ids by the index bars carry, in the order workloads first ran. */
    public List<String> workloadIds() {
        return Collections.unmodifiableList(workloadIds);
    }

    /** Unhealthy and drained periods of nodes, in the order they ended. */
    public List<NodePeriod> nodePeriods() {
        return Collections.unmodifiableList(nodePeriods);
    }

    void addPeriod(NodePeriod p) {
        nodePeriods.add(p);
    }

    int workloadIndex(String id, int known) {
        if (known >= 0) {
            return known;
        }
        workloadIds.add(id);
        return workloadIds.size() - 1;
    }

    void add(int nodeIndex, int laneIndex, long startAt, long endAt, long preemptibleAt, int workloadIndex, End how) {
        if (size == node.length) {
            int n = size * 2;
            node = Arrays.copyOf(node, n);
            lane = Arrays.copyOf(lane, n);
            start = Arrays.copyOf(start, n);
            end = Arrays.copyOf(end, n);
            preemptibleFrom = Arrays.copyOf(preemptibleFrom, n);
            workload = Arrays.copyOf(workload, n);
            endKind = Arrays.copyOf(endKind, n);
        }
        node[size] = nodeIndex;
        lane[size] = laneIndex;
        start[size] = startAt;
        end[size] = endAt;
        preemptibleFrom[size] = preemptibleAt;
        workload[size] = workloadIndex;
        endKind[size] = (byte) how.ordinal();
        size++;
    }

    private int check(int bar) {
        if (bar < 0 || bar >= size) {
            throw new IndexOutOfBoundsException("bar " + bar + " of " + size);
        }
        return bar;
    }
}
