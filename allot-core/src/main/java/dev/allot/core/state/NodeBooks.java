package dev.allot.core.state;

import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The per-node books of a {@link ClusterState} ({@link ClusterState#nodes()}): each node's free GPUs, health and
 * running jobs, how many of those are protected and when the last protection on it ends, the nodes in the order
 * preemption could free them wholly, the whole-node index, and the nodes that drained since the driver last asked.
 *
 * <p>Apart from the state because it is an idea of its own (what each node holds and whether it takes work) that
 * policies read on their own; the state's mutators keep it exact when jobs start, stop and lose their protection.
 */
public final class NodeBooks {
    /** What a node is doing, for explanations and reports. */
    public enum Status { HEALTHY, DRAINING, DRAINED }

    private final ClusterSpec cluster;
    final int count;
    final FreeIndex free;
    final boolean[] healthy;
    final List<List<Job>> jobsOnNode;
    final BitSet unhealthyBusy = new BitSet();
    final long[] latestProtectionEnd;
    final int[] protectedJobsOn;
    private final WholeNodeIndex wholeNodes;
    final TreeSet<Integer> byLatestProtectionEnd;
    final List<Integer> drainNotices = new ArrayList<>();

    NodeBooks(ClusterSpec cluster) {
        this.cluster = cluster;
        this.count = cluster.nodes().size();
        int[] capacity = new int[count];
        for (int i = 0; i < count; i++) {
            capacity[i] = cluster.nodes().get(i).gpus();
        }
        this.free = new FreeIndex(capacity);
        this.healthy = new boolean[count];
        Arrays.fill(healthy, true);
        this.jobsOnNode = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            jobsOnNode.add(new ArrayList<>(4));
        }
        this.protectedJobsOn = new int[count];
        this.wholeNodes = new WholeNodeIndex(count, cluster.maxGpusPerNode());
        this.latestProtectionEnd = new long[count];
        Arrays.fill(latestProtectionEnd, Long.MIN_VALUE);
        this.byLatestProtectionEnd = new TreeSet<>((a, b) -> latestProtectionEnd[a] != latestProtectionEnd[b]
                ? Long.compare(latestProtectionEnd[a], latestProtectionEnd[b]) : Integer.compare(a, b));
        for (int i = 0; i < count; i++) {
            byLatestProtectionEnd.add(i);
            refileWholeNode(i);
        }
    }

    /** Files a node in the whole-node index, or takes it out, after anything on it changed. */
    void refileWholeNode(int node) {
        wholeNodes.update(node, healthy[node] && protectedJobsOn[node] == 0
                && cluster.nodes().get(node).gpus() == wholeNodes.wholeNodeGpus(), jobsOnNode.get(node));
    }

    void raiseLatestProtectionEnd(int node, long until) {
        if (until > latestProtectionEnd[node]) {
            byLatestProtectionEnd.remove(node);
            latestProtectionEnd[node] = until;
            byLatestProtectionEnd.add(node);
        }
    }

    void recomputeLatestProtectionEnd(int node) {
        long latest = Long.MIN_VALUE;
        for (Job j : jobsOnNode.get(node)) {
            if (j.allocated()) {
                latest = Math.max(latest, j.protectedUntilSeconds);
            }
        }
        if (latest != latestProtectionEnd[node]) {
            byLatestProtectionEnd.remove(node);
            latestProtectionEnd[node] = latest;
            byLatestProtectionEnd.add(node);
        }
    }

    /** A job's attempt takes its placement: its GPUs, and a place among each node's jobs. */
    void place(Job job, Placement p) {
        free.take(p);
        for (int i = 0; i < p.nodeCount(); i++) {
            jobsOnNode.get(p.node(i)).add(job);
            if (!healthy[p.node(i)]) {
                unhealthyBusy.set(p.node(i)); // only by resume: work adopted on a node that is down
            }
        }
    }

    /**
     * A job's attempt gives its placement back; a node that is unhealthy and now empty has drained. Nodes whose
     * latest protection end was this job's are recomputed.
     */
    void unplace(Job job, Placement p) {
        free.give(p);
        for (int i = 0; i < p.nodeCount(); i++) {
            int n = p.node(i);
            List<Job> on = jobsOnNode.get(n);
            on.remove(job);
            if (on.isEmpty() && !healthy[n]) {
                unhealthyBusy.clear(n);
                drainNotices.add(n);
            }
            if (job.allocated() && latestProtectionEnd[n] == job.protectedUntilSeconds) {
                recomputeLatestProtectionEnd(n);
            }
        }
    }

    /** Whether the node's health changed. */
    boolean setHealthy(int node, boolean value) {
        if (healthy[node] == value) {
            return false;
        }
        healthy[node] = value;
        free.setSchedulable(node, value);
        refileWholeNode(node);
        if (value) {
            unhealthyBusy.clear(node);
        } else if (jobsOnNode.get(node).isEmpty()) {
            drainNotices.add(node);
        } else {
            unhealthyBusy.set(node);
        }
        return true;
    }

    void refileWholeNodes(Placement p) {
        for (int i = 0; i < p.nodeCount(); i++) {
            refileWholeNode(p.node(i));
        }
    }

    /** Nodes that became drained (unhealthy and empty) since the last call, in the order it happened. */
    public List<Integer> takeDrainNotices() {
        if (drainNotices.isEmpty()) {
            return List.of();
        }
        List<Integer> out = List.copyOf(drainNotices);
        drainNotices.clear();
        return out;
    }

    public int count() {
        return count;
    }

    public String name(int node) {
        return cluster.nodes().get(node).name();
    }

    public NodeSpec spec(int node) {
        return cluster.nodes().get(node);
    }

    public boolean isHealthy(int node) {
        return healthy[node];
    }

    public Status status(int node) {
        if (healthy[node]) {
            return Status.HEALTHY;
        }
        return jobsOnNode.get(node).isEmpty() ? Status.DRAINED : Status.DRAINING;
    }

    /**
     * Nodes in order of the latest protection end among the allocated jobs on them (nodes without allocated jobs
     * first), then by index: the order in which nodes can be wholly freed by preemption.
     */
    public NavigableSet<Integer> byLatestProtectionEnd() {
        return Collections.unmodifiableNavigableSet(byLatestProtectionEnd);
    }

    /** Nodes that could be wholly freed by preemption, grouped by the allocations on them. Read only. */
    public WholeNodeIndex wholeNodes() {
        return wholeNodes;
    }

    /** How many running jobs on a node are inside their minimum runtime. */
    public int protectedJobsOn(int node) {
        return protectedJobsOn[node];
    }

    /** The latest protection end of the allocated jobs on a node; {@link Long#MIN_VALUE} when it runs none. */
    public long latestProtectionEnd(int node) {
        return latestProtectionEnd[node];
    }

    /** The free-GPU index of the live state. Read it or copy it; never change it. */
    public FreeIndex free() {
        return free;
    }

    public int healthyGpus() {
        int g = 0;
        for (int n = 0; n < count; n++) {
            if (healthy[n]) {
                g += free.capacity(n);
            }
        }
        return g;
    }

    public List<Job> jobsOn(int node) {
        return Collections.unmodifiableList(jobsOnNode.get(node));
    }

    /** Unhealthy nodes that still run work, lowest index first. */
    public int nextUnhealthyBusy(int from) {
        return unhealthyBusy.nextSetBit(from);
    }
}
