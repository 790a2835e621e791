package dev.allot.core.policy.kueue;

import dev.allot.core.model.Priority;
import dev.allot.core.state.Job;
import java.util.Arrays;

/**
 * The heads of the {@code kueue} policy known to be hopeless: neither placed nor able to preempt (Kueue would set
 * them aside), per ClusterQueue, shape and priority, and the world version they were found so in.
 *
 * <p>Why it is safe: whether a head fits (the Placer on the free GPUs, the tree's unused quota) and which workloads
 * it may evict ({@link PreemptionCandidates#targets}) depend on the head only through its ClusterQueue, its GPUs and
 * GPUs per node (its shape) and its priority, and otherwise only on the world: the admitted workloads with their
 * placements and admission times, the free GPUs and the cohorts' usage. The policy numbers the worlds: a new number
 * at every admission and eviction, and at the start of a pass unless {@link PassWorld} finds the state to be the
 * world the last pass left. An answer kept with the number in force is the answer the search would give again.
 *
 * <p>Why it pays: after a pass that evicted, the simulator asks again at the same instant, and Kueue's rule puts
 * every set-aside head back; most of them were found hopeless in that very world at the end of the last pass.
 */
final class HopelessMemo {
    private static final int PRIORITIES = Priority.values().length;
    private final int cqCount;
    /** Per (shape, ClusterQueue, priority): the world version the head was found hopeless in, or -1. */
    private long[] foundIn = new long[0];

    HopelessMemo(int cqCount) {
        this.cqCount = cqCount;
    }

    /** Whether a head like {@code w} of ClusterQueue {@code cq} was found hopeless in world {@code version}. */
    boolean hopeless(Job w, int cq, long version) {
        int i = index(w, cq);
        return i < foundIn.length && foundIn[i] == version;
    }

    /** A head like {@code w} of ClusterQueue {@code cq} was found hopeless in world {@code version}. */
    void found(Job w, int cq, long version) {
        int i = index(w, cq);
        if (i >= foundIn.length) {
            int old = foundIn.length;
            foundIn = Arrays.copyOf(foundIn, Math.max(i + 1, old * 2));
            Arrays.fill(foundIn, old, foundIn.length, -1);
        }
        foundIn[i] = version;
    }

    private int index(Job w, int cq) {
        return (w.shape() * cqCount + cq) * PRIORITIES + w.spec().priority().ordinal();
    }
}
