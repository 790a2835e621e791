package dev.allot.core.sched;

import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The running jobs a cycle might preempt, gathered and sorted once per cycle instead of once per waiting job.
 * The policy supplies which jobs are preemptible at all and its preference order (which must not depend on who
 * preempts); each waiting job then filters the sorted list by its own rights. Also keeps, per node, the GPUs held
 * by preemptible jobs: an upper bound that rejects most hopeless gangs without a search.
 */
public final class VictimPool {
    private final List<Job> sorted = new ArrayList<>();
    private final int[] perNode;
    private boolean built;
    private long sortedForVersion = -1;

    public VictimPool(int nodes) {
        this.perNode = new int[nodes];
    }

    /** Forgets the previous cycle. */
    public void reset() {
        built = false;
        sortedForVersion = -1;
    }

    /**
     * Gathers the candidates (once per cycle) and sorts them (again whenever {@code orderVersion} changed, since the
     * preference may depend on fair-share ratios that move as the cycle starts work).
     *
     * @param source feeds every running job the policy may consider
     */
    public List<Job> sorted(Consumer<Consumer<Job>> source, Predicate<Job> preemptible, Comparator<Job> order, long orderVersion) {
        if (!built) {
            sorted.clear();
            java.util.Arrays.fill(perNode, 0);
            source.accept(j -> {
                if (preemptible.test(j)) {
                    sorted.add(j);
                    Placement p = j.placement();
                    for (int i = 0; i < p.nodeCount(); i++) {
                        perNode[p.node(i)] += p.gpusOn(i);
                    }
                }
            });
            built = true;
        }
        if (sortedForVersion != orderVersion) {
            sorted.sort(order);
            sortedForVersion = orderVersion;
        }
        return sorted;
    }

    /** The fair-share version the list was last sorted for: equal versions mean the same positions. */
    public long sortVersion() {
        return sortedForVersion;
    }

    /**
     * An upper bound on how many usable nodes could offer {@code perNodeGpus} GPUs if every candidate on them were
     * preempted. Valid after {@link #sorted}.
     */
    public int nodesThatCouldHost(FreeIndex free, int perNodeGpus, BitSet excluded) {
        int n = 0;
        for (int node = 0; node < perNode.length; node++) {
            if (free.isSchedulable(node) && (excluded == null || !excluded.get(node))
                    && free.free(node) + perNode[node] >= perNodeGpus) {
                n++;
            }
        }
        return n;
    }
}
