package dev.allot.core.policy.slurm;

import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Placement;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The idle GPUs as the {@code slurm} policy's walk sees them during one cycle: which nodes a job may not use (those
 * held for grace-waiting preemptors the walk has passed, and, for backfill, those reserved for the blocked job), what
 * fits outside them, and a {@link #stamp} that names the moment.
 *
 * <p>The stamp changes with every cycle, tentative start, preemption, signal and new hold; every protected job may
 * use the same idle GPUs and preempt the same jobs, so an answer for one shape (no placement, no set of victims)
 * holds for every job of that shape until the stamp changes. The memos are keyed by shape and exclusion
 * ({@link #key}). This is bookkeeping of the model, not of Slurm, which tests each job afresh; the property tests
 * check that it never changes a decision ({@code shortcuts=false} decides the same).
 */
final class IdleGpus {
    private final CycleWork work;
    private long epoch;
    private final BitSet holds = new BitSet();
    private BitSet reserved;
    private final BitSet exclusionWithReserved = new BitSet();
    private long exclusionAt;
    // per key: the stamp at which no placement was found
    private long[] placementFailedAt = new long[0];

    IdleGpus(CycleWork work) {
        this.work = work;
    }

    /** A new cycle: a new moment, nothing held and nothing reserved yet. */
    void beginCycle() {
        epoch++;
        holds.clear();
        reserved = null;
    }

    /** Makes room for this many keys (twice the shapes). */
    void ensureCapacity(int keys) {
        if (placementFailedAt.length < keys) {
            placementFailedAt = Arrays.copyOf(placementFailedAt, keys);
        }
    }

    /**
     * Names the free GPUs and candidate victims of this moment: changes with every cycle, tentative start,
     * preemption and signal; never 0. Memos of this moment's placements and victim searches are keyed by it.
     */
    long stamp() {
        return epoch;
    }

    /** The free GPUs or the candidate victims changed: every memo of the last moment is stale. */
    void changed() {
        epoch++;
    }

    /** The memo key of a shape, with or without the reserved nodes excluded. */
    static int key(int shape, boolean withReserved) {
        return shape * 2 + (withReserved ? 1 : 0);
    }

    /** The nodes reserved for the blocked job in this cycle (its {@link Shadow}). */
    void reserve(BitSet nodes) {
        reserved = nodes;
    }

    /**
     * The nodes a job may not use: those held for grace-waiting preemptors the walk has passed, and, with
     * {@code withReserved}, those reserved for the blocked job. Null for none.
     */
    BitSet exclusion(boolean withReserved) {
        if (!withReserved) {
            return holds.isEmpty() ? null : holds;
        }
        if (holds.isEmpty()) {
            return reserved;
        }
        if (exclusionAt != stamp()) {
            exclusionWithReserved.clear();
            exclusionWithReserved.or(reserved);
            exclusionWithReserved.or(holds);
            exclusionAt = stamp();
        }
        return exclusionWithReserved;
    }

    /**
     * Holds these nodes against every job the walk meets from now on (those a grace-waiting preemptor will use, as
     * Slurm's backfill reserves them for it), so that lower-priority work cannot take the idle GPUs it counted on.
     */
    void hold(BitSet nodes) {
        BitSet missing = (BitSet) nodes.clone();
        missing.andNot(holds);
        if (!missing.isEmpty()) {
            holds.or(nodes);
            epoch++; // the memos of placements and victims assumed fewer excluded nodes
        }
    }

    /** Whether the shape fits on idle GPUs outside the exclusion (no placement is built). */
    boolean fits(int shape, boolean withReserved) {
        int key = key(shape, withReserved);
        BitSet excluded = exclusion(withReserved);
        if (placementFailedAt[key] == stamp()) {
            return false;
        }
        ClusterState state = work.state();
        boolean ok = Placer.fits(work.free(), state.shapeGpus(shape), state.shapeGpusPerNode(shape), excluded);
        if (!ok) {
            placementFailedAt[key] = stamp();
        }
        return ok;
    }

    /** A placement on idle GPUs outside the exclusion; a failure holds for the shape until the free GPUs change. */
    Placement place(int shape, boolean withReserved) {
        int key = key(shape, withReserved);
        BitSet excluded = exclusion(withReserved);
        if (placementFailedAt[key] == stamp()) {
            return null;
        }
        ClusterState state = work.state();
        Placement p = Placer.find(work.free(), state.shapeGpus(shape), state.shapeGpusPerNode(shape), excluded);
        if (p == null) {
            placementFailedAt[key] = stamp();
        }
        return p;
    }
}
