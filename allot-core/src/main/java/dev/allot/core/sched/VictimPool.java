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
    private final BitSet nodesWithCandidates = new BitSet();
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
    public List<Job> sorted(Consumer<Consumer<Job>> source, Predicate<Job> preemptible, Keys keys, long orderVersion) {
        if (!built) {
            sorted.clear();
            for (int n = nodesWithCandidates.nextSetBit(0); n >= 0; n = nodesWithCandidates.nextSetBit(n + 1)) {
                perNode[n] = 0;
            }
            nodesWithCandidates.clear();
            source.accept(j -> {
                if (preemptible.test(j)) {
                    sorted.add(j);
                    Placement p = j.placement();
                    for (int i = 0; i < p.nodeCount(); i++) {
                        perNode[p.node(i)] += p.gpusOn(i);
                        nodesWithCandidates.set(p.node(i));
                    }
                }
            });
            built = true;
        }
        if (sortedForVersion != orderVersion) {
            sortByKeys(keys);
            sortedForVersion = orderVersion;
        }
        return sorted;
    }

    /**
     * The preference order of victims as sort keys, computed once per job per sort: lower {@link #group} first,
     * then higher {@link #overServed} and less {@link #workLost} in the order {@link #workLostFirst} says, then
     * (work lost first) fewer GPUs, then id.
     */
    public interface Keys {
        int group(Job j);

        double overServed(Job j);

        long workLost(Job j);

        /**
         * Whether work lost decides before standing (then fewer GPUs before the id); false: standing before work
         * lost, then the id.
         */
        default boolean workLostFirst() {
            return false;
        }
    }

    private record Keyed(Job job, int group, double overServed, long workLost) {
    }

    /** Group, then higher standing, then less work lost, then id: the Slurm model's order. */
    private static final Comparator<Keyed> STANDING_FIRST = (a, b) -> {
        if (a.group != b.group) {
            return Integer.compare(a.group, b.group);
        }
        int c = Double.compare(b.overServed, a.overServed);
        if (c != 0) {
            return c;
        }
        c = Long.compare(a.workLost, b.workLost);
        return c != 0 ? c : a.job.id().compareTo(b.job.id());
    };

    /** Group, then less work lost, then higher standing, then fewer GPUs, then id: the allocation policy's order. */
    private static final Comparator<Keyed> LOST_FIRST = (a, b) -> {
        if (a.group != b.group) {
            return Integer.compare(a.group, b.group);
        }
        int c = Long.compare(a.workLost, b.workLost);
        if (c != 0) {
            return c;
        }
        c = Double.compare(b.overServed, a.overServed);
        if (c != 0) {
            return c;
        }
        c = Integer.compare(a.job.gpus(), b.job.gpus());
        return c != 0 ? c : a.job.id().compareTo(b.job.id());
    };

    private void sortByKeys(Keys keys) {
        List<Keyed> keyed = new ArrayList<>(sorted.size());
        for (Job j : sorted) {
            keyed.add(new Keyed(j, keys.group(j), keys.overServed(j), keys.workLost(j)));
        }
        keyed.sort(keys.workLostFirst() ? LOST_FIRST : STANDING_FIRST);
        for (int i = 0; i < keyed.size(); i++) {
            sorted.set(i, keyed.get(i).job);
        }
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
        int n = Placer.usableNodesWithAtLeast(free, perNodeGpus, excluded);
        for (int node = nodesWithCandidates.nextSetBit(0); node >= 0; node = nodesWithCandidates.nextSetBit(node + 1)) {
            if (free.isSchedulable(node) && (excluded == null || !excluded.get(node)) && free.free(node) < perNodeGpus
                    && free.free(node) + perNode[node] >= perNodeGpus) {
                n++;
            }
        }
        return n;
    }
}
