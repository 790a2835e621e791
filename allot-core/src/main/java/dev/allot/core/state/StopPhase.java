package dev.allot.core.state;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The books of the stopping phase of a {@link ClusterState}: the attempts asked to stop that still hold their GPUs
 * ({@link StoppingAttempt}), and the starts that wait for GPUs to be physically idle before they launch. A GPU the
 * policy counts as free may still be held by a stopping attempt; a start there is decided (it takes the GPUs in the
 * policy's books) but its work does not run yet, so its protection and its charging have not begun.
 *
 * <p>The rule, in one place ({@link #fitsNow}): a start may launch when, on every node of its placement, the GPUs it
 * needs are at most those neither held by launched work nor by stopping attempts, and no earlier attempt of its own
 * workload is still stopping. A driver with exact GPU indexes (the service's lanes) may make a start wait longer,
 * never shorter: what its lanes allow, this count allows too.
 *
 * <p>Apart from {@link ClusterState} because it is an idea of its own; the state calls it from its mutators, and
 * drivers read it through {@link ClusterState#stopPhase()}.
 */
public final class StopPhase {
    /** Per node, GPUs held by attempts that are stopping. */
    final int[] heldOn;
    /** Per node, GPUs of starts that wait to launch. */
    final int[] waitingOn;
    final Set<StoppingAttempt> stopping = new LinkedHashSet<>();
    /** Starts that wait to launch, in the order they were decided. */
    final List<Job> waiting = new ArrayList<>();

    StopPhase(int nodes) {
        this.heldOn = new int[nodes];
        this.waitingOn = new int[nodes];
    }

    StoppingAttempt hold(Job job, Placement p, long time) {
        StoppingAttempt s = new StoppingAttempt(job, p, time);
        stopping.add(s);
        add(heldOn, p, 1);
        return s;
    }

    void release(StoppingAttempt s) {
        if (s.released || !stopping.remove(s)) {
            throw new IllegalStateException("cannot release " + s + ": " + (s.released ? "it has stopped already"
                    : "this state does not hold it"));
        }
        s.released = true;
        add(heldOn, s.placement(), -1);
    }

    void beginWaiting(Job job) {
        waiting.add(job);
        add(waitingOn, job.placement, 1);
    }

    void endWaiting(Job job) {
        waiting.remove(job);
        add(waitingOn, job.placement, -1);
    }

    /** Whether an earlier attempt of this workload is still stopping. */
    boolean ownStillStopping(Job job) {
        for (StoppingAttempt s : stopping) {
            if (s.job() == job) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a start of {@code job} on {@code p} fits on GPUs that are idle now: a start about to be made, or one
     * that waits (its GPUs are then in the policy's free index as taken and in {@link #waitingOn}, which cancel out).
     */
    boolean fitsNow(Job job, Placement p, FreeIndex free) {
        if (ownStillStopping(job)) {
            return false;
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            int n = p.node(i);
            int launched = free.capacity(n) - free.free(n) - waitingOn[n];
            if (launched + heldOn[n] + p.gpusOn(i) > free.capacity(n)) {
                return false;
            }
        }
        return true;
    }

    private static void add(int[] on, Placement p, int sign) {
        for (int i = 0; i < p.nodeCount(); i++) {
            on[p.node(i)] += sign * p.gpusOn(i);
        }
    }

    /** Starts that wait to launch, in the order they were decided. */
    public List<Job> waiting() {
        return Collections.unmodifiableList(waiting);
    }

    /** Attempts that are stopping and still hold their GPUs, in the order they were asked to stop. */
    public Collection<StoppingAttempt> stopping() {
        return Collections.unmodifiableCollection(stopping);
    }

    /** GPUs of a node held by attempts that are stopping. */
    public int heldGpus(int node) {
        return heldOn[node];
    }
}
