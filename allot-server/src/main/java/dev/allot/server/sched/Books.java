package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.GpuLanes;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The scheduling loop's books of GPU indexes (lanes): the attempts launched and not yet seen to end, the starts the
 * core has made that wait behind a fence, and which attempt each job the core runs is running as. Chooses the lanes
 * of a start, tells when a fence has cleared, and checks the books against the core. Owned by the loop (not
 * thread-safe).
 */
final class Books {
    /** Attempts the loop started (or adopted) that have not been seen to end, by key (and by node and workload). */
    final LiveAttempts live = new LiveAttempts();
    /** The attempt a job the core counts as running is running as, when it has been launched. */
    final Map<String, AttemptKey> runningAttempt = new HashMap<>();
    /** Starts the core counts as running but that wait for a fence, in the order they were decided. */
    final DeferredStarts deferred = new DeferredStarts();

    /** A start the core has made whose launch waits for its fence. */
    record Deferred(Job job, Placement placement, GpuLanes.Choice lanes) {
    }

    /** {@link #chooseLanes}'s lane sets by core node index; null but for the nodes of the start being chosen. */
    private BitSet[] ownedScratch = new BitSet[0];
    private BitSet[] heldScratch = new BitSet[0];

    /**
     * Lanes for a start: those free for good first, then those a stopping attempt still holds (a fence). Only the
     * placement's own nodes get lane sets (the others stay null and {@link #mark} skips them), and only the live
     * attempts and deferred starts on those nodes are asked ({@link LiveAttempts#onNode},
     * {@link DeferredStarts#onNode}): a cycle of a thousand starts on 1,024 nodes
     * allocated two sets per node for each start and marked every live attempt's lanes.
     */
    GpuLanes.Choice chooseLanes(Placement p, int[] sizes) {
        // The node-indexed arrays are kept from start to start and hold sets only for this placement's nodes while
        // it is chosen: two arrays of a slot per node for every start were most of what the lane choice allocated
        // (some 1,500 starts on 1,024 nodes in the intake of 10,000; issue 21).
        if (ownedScratch.length != sizes.length) {
            ownedScratch = new BitSet[sizes.length];
            heldScratch = new BitSet[sizes.length];
        }
        BitSet[] owned = ownedScratch;
        BitSet[] held = heldScratch;
        try {
            for (int i = 0; i < p.nodeCount(); i++) {
                int n = p.node(i);
                owned[n] = new BitSet(sizes[n]);
                held[n] = new BitSet(sizes[n]);
            }
            for (int i = 0; i < p.nodeCount(); i++) {
                for (LiveAttempt l : live.onNode(p.node(i))) { // one on two of these nodes marks both, twice: harmless
                    mark(l.stopping ? held : owned, l.placement, l.lanes);
                }
            }
            for (int i = 0; i < p.nodeCount(); i++) {
                for (Deferred d : deferred.onNode(p.node(i))) { // as with the live attempts: twice is harmless
                    mark(owned, d.placement(), d.lanes().lanes());
                }
            }
            return GpuLanes.choose(p, owned, held, sizes);
        } finally {
            for (int i = 0; i < p.nodeCount(); i++) {
                owned[p.node(i)] = null;
                held[p.node(i)] = null;
            }
        }
    }

    /**
     * Marks the lanes of a placement (none for a null one: an attempt that holds no GPU the cluster still has) on the
     * nodes that have a set (a null set: a node not asked about).
     */
    static void mark(BitSet[] sets, Placement p, int[][] lanes) {
        if (p == null) {
            return;
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            BitSet set = sets[p.node(i)];
            if (set == null) {
                continue;
            }
            for (int lane : lanes[i]) {
                set.set(lane);
            }
        }
    }

    /** The fences of the live attempts as they are now, for a round of deferred launches ({@link Fences}). */
    Fences fences(int nodes) {
        Fences f = new Fences(nodes);
        for (LiveAttempt l : live.values()) {
            f.add(l);
        }
        return f;
    }

    /**
     * The lanes the live attempts hold, node by node, and the jobs that have one: what tells whether a deferred
     * start's fence has cleared ({@link #cleared}: no live attempt holds one of its lanes, nor is its own workload's
     * earlier attempt). Built once for a round of deferred launches and told of each attempt launched during it
     * ({@link #add}), because asking every live attempt for every deferred start was a third of the loop's own time in
     * the cycle that takes in 10,000 submissions (some 500 deferred starts behind 2,300 live attempts; issue 21).
     */
    static final class Fences {
        private final BitSet[] held;
        private final java.util.Set<String> jobs = new java.util.HashSet<>();

        private Fences(int nodes) {
            held = new BitSet[nodes];
        }

        /** Counts a live attempt's lanes (none for one that holds no GPU the cluster still has) as held. */
        void add(LiveAttempt l) {
            jobs.add(l.jobId);
            for (int i = 0; l.placement != null && i < l.placement.nodeCount(); i++) {
                int node = l.placement.node(i);
                if (held[node] == null) {
                    held[node] = new BitSet();
                }
                for (int lane : l.lanes[i]) {
                    held[node].set(lane);
                }
            }
        }

        /** Whether no live attempt counted holds a lane of the deferred start, nor is its own workload's. */
        boolean cleared(Deferred d) {
            if (jobs.contains(d.job().id())) {
                return false;
            }
            int[][] lanes = d.lanes().lanes();
            for (int i = 0; i < d.placement().nodeCount(); i++) {
                BitSet set = held[d.placement().node(i)];
                if (set == null) {
                    continue;
                }
                for (int lane : lanes[i]) {
                    if (set.get(lane)) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    /**
     * Checks that the loop's books agree with the core: every job the core runs is either launched (one live
     * attempt, not stopping) or deferred, never both; and on every node the lanes of those runs are as many as the
     * GPUs the core counts as used. For tests.
     *
     * @throws IllegalStateException when they disagree
     */
    void check(ClusterState state, int[] sizes, List<String> nodeNames) {
        int[] used = new int[sizes.length];
        for (Job j : state.jobs()) {
            if (j.state() != JobState.RUNNING) {
                if (runningAttempt.containsKey(j.id()) || deferred.containsKey(j.id())) {
                    throw new IllegalStateException(j.id() + " is " + j.state() + " in the core but has a run");
                }
                continue;
            }
            AttemptKey key = runningAttempt.get(j.id());
            boolean isDeferred = deferred.containsKey(j.id());
            if (isDeferred != j.awaitingLaunch()) {
                throw new IllegalStateException(j.id() + (isDeferred ? " is deferred but the core does not make it wait"
                        : " waits to launch in the core but is not deferred"));
            }
            if ((key == null) == !isDeferred) {
                throw new IllegalStateException(j.id() + " runs in the core but is " + (isDeferred ? "both launched and"
                        + " deferred" : "neither launched nor deferred"));
            }
            if (key != null && (!live.containsKey(key) || live.get(key).stopping)) {
                throw new IllegalStateException(j.id() + " runs in the core but its attempt " + key + " is not live");
            }
            for (int i = 0; i < j.placement().nodeCount(); i++) {
                used[j.placement().node(i)] += j.placement().gpusOn(i);
            }
        }
        BitSet[] owned = new BitSet[sizes.length];
        for (int n = 0; n < sizes.length; n++) {
            owned[n] = new BitSet(sizes[n]);
        }
        for (LiveAttempt l : live.values()) {
            if (!l.stopping) {
                if (!l.key.equals(runningAttempt.get(l.jobId))) {
                    throw new IllegalStateException("attempt " + l.key + " runs but the core does not run it");
                }
                mark(owned, l.placement, l.lanes);
            }
        }
        for (Deferred d : deferred.values()) {
            mark(owned, d.placement(), d.lanes().lanes());
        }
        for (int n = 0; n < sizes.length; n++) {
            if (owned[n].cardinality() != used[n]) {
                throw new IllegalStateException("node " + nodeNames.get(n) + ": the core uses " + used[n]
                        + " GPUs, the loop's lanes say " + owned[n].cardinality());
            }
        }
    }
}
