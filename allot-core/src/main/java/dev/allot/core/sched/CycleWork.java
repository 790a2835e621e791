package dev.allot.core.sched;

import dev.allot.core.policy.Decision;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The working set of one scheduling cycle: a private copy of the free-GPU index on which tentative starts and
 * preemptions are played out, the jobs already chosen as victims, and the decisions so far. The live state is
 * never touched; everything here is thrown away when the cycle ends (what-if changes are always undone).
 *
 * <p>The copy is made lazily, on the first tentative change, so a cycle that decides nothing costs no copy.
 * Buffers are reused from cycle to cycle; one {@code CycleWork} belongs to one policy instance and one state.
 */
public final class CycleWork {
    private final ClusterState state;
    private final FreeIndex snapshot;
    private final FreeIndex scratch;
    private final BitSet preempted = new BitSet();
    private final BitSet touchedNodes = new BitSet();
    private final NodeMarks nodeMarks;
    private final List<Decision> decisions = new ArrayList<>();
    /** Where this cycle started each job, by job index (null if it did not), and which indices to clear. */
    private Placement[] startedOn = new Placement[0];
    private int[] startedIndices = new int[16];
    private int startedCount;
    /** Per node, the latest protection end of the protected runs this cycle started there (valid where startedOnNode). */
    private long[] plannedProtectionEnd;
    private final BitSet startedOnNode = new BitSet();
    private boolean copied;
    private long now;
    private long version;

    public CycleWork(ClusterState state) {
        this.state = state;
        this.snapshot = state.nodes().free().copy();
        this.scratch = state.nodes().free().copy();
        this.nodeMarks = new NodeMarks(state.nodes().count());
        this.plannedProtectionEnd = new long[state.nodes().count()];
    }

    /**
     * The latest moment any protection on {@code node} ends, counting the protected runs this cycle started there
     * ({@link dev.allot.core.state.NodeBooks#latestProtectionEnd} knows only the running ones; it may lie in the past).
     */
    public long latestProtectionEnd(int node) {
        long live = state.nodes().latestProtectionEnd(node);
        return startedOnNode.get(node) ? Math.max(live, plannedProtectionEnd[node]) : live;
    }

    /** Reusable per-node marks for one search at a time. */
    public NodeMarks nodeMarks() {
        return nodeMarks;
    }

    public ClusterState state() {
        return state;
    }

    /** Starts a new cycle at {@code now}, forgetting the previous one. */
    public void begin(long nowSeconds) {
        this.now = nowSeconds;
        preempted.clear();
        touchedNodes.clear();
        decisions.clear();
        for (int i = 0; i < startedCount; i++) {
            startedOn[startedIndices[i]] = null;
        }
        startedCount = 0;
        startedOnNode.clear();
        copied = false;
    }

    public long now() {
        return now;
    }

    /** The free GPUs as this cycle sees them: the live index until the first tentative change, then the copy. */
    public FreeIndex free() {
        return copied ? snapshot : state.nodes().free();
    }

    /** A reusable index for what-if checks inside one decision; callers copy into it before use. */
    public FreeIndex scratch() {
        return scratch;
    }

    private void ensureCopy() {
        if (!copied) {
            snapshot.copyFrom(state.nodes().free());
            copied = true;
        }
    }

    public void start(Job job, Placement p, String reason) {
        ensureCopy();
        snapshot.take(p);
        touch(p);
        version++;
        int i = job.index();
        if (i >= startedOn.length) {
            startedOn = java.util.Arrays.copyOf(startedOn, Math.max(i + 1, startedOn.length * 2));
        }
        if (startedOn[i] == null) {
            if (startedCount == startedIndices.length) {
                startedIndices = java.util.Arrays.copyOf(startedIndices, startedCount * 2);
            }
            startedIndices[startedCount++] = i;
        }
        startedOn[i] = p;
        if (job.allocated()) {
            long until = now + job.protectionSecondsIfStarted();
            for (int k = 0; k < p.nodeCount(); k++) {
                int n = p.node(k);
                if (!startedOnNode.get(n) || plannedProtectionEnd[n] < until) {
                    plannedProtectionEnd[n] = until;
                    startedOnNode.set(n);
                }
            }
        }
        decisions.add(new Decision.Start(job, p, reason));
    }

    /**
     * Stops a running job, or one this cycle started (the plan then starts it and stops it at the same instant, as a
     * scheduler that admits a workload and evicts it in its next pass would).
     */
    public void preempt(Job job, PreemptionCause cause) {
        Placement p = placementOf(job);
        if (p == null) {
            throw new IllegalStateException("cannot preempt " + job.id() + ": it neither runs nor was started in this cycle");
        }
        ensureCopy();
        snapshot.give(p);
        touch(p);
        preempted.set(job.index());
        version++;
        decisions.add(new Decision.Preempt(job, cause));
    }

    /** Where a job runs: its live placement, or the one this cycle started it on; null if neither. */
    public Placement placementOf(Job job) {
        Placement p = job.placement();
        return p != null ? p : startedOnThisCycle(job);
    }

    /** Whether this cycle started the job. */
    public boolean startedHere(Job job) {
        return startedOnThisCycle(job) != null;
    }

    private Placement startedOnThisCycle(Job job) {
        int i = job.index();
        return i < startedOn.length ? startedOn[i] : null;
    }

    private void touch(Placement p) {
        for (int i = 0; i < p.nodeCount(); i++) {
            touchedNodes.set(p.node(i));
        }
    }

    /** Nodes on which this cycle has started or preempted something so far. Read only. */
    public BitSet touchedNodes() {
        return touchedNodes;
    }

    /** Whether the running job was already chosen as a victim in this cycle. */
    public boolean isPreempted(Job job) {
        return preempted.get(job.index());
    }

    /** Changes with every tentative start or preemption: equal versions mean the same free GPUs and victims. */
    public long version() {
        return version;
    }

    public List<Decision> decisions() {
        return decisions;
    }
}
