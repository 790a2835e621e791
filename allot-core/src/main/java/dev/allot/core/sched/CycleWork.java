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
    private final java.util.Map<Job, Placement> startedHere = new java.util.HashMap<>();
    private boolean copied;
    private long now;
    private long version;

    public CycleWork(ClusterState state) {
        this.state = state;
        this.snapshot = state.freeIndex().copy();
        this.scratch = state.freeIndex().copy();
        this.nodeMarks = new NodeMarks(state.nodeCount());
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
        startedHere.clear();
        copied = false;
    }

    public long now() {
        return now;
    }

    /** The free GPUs as this cycle sees them: the live index until the first tentative change, then the copy. */
    public FreeIndex free() {
        return copied ? snapshot : state.freeIndex();
    }

    /** A reusable index for what-if checks inside one decision; callers copy into it before use. */
    public FreeIndex scratch() {
        return scratch;
    }

    private void ensureCopy() {
        if (!copied) {
            snapshot.copyFrom(state.freeIndex());
            copied = true;
        }
    }

    public void start(Job job, Placement p, String reason) {
        ensureCopy();
        snapshot.take(p);
        touch(p);
        version++;
        startedHere.put(job, p);
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
        return p != null ? p : startedHere.get(job);
    }

    /** Whether this cycle started the job. */
    public boolean startedHere(Job job) {
        return startedHere.containsKey(job);
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
