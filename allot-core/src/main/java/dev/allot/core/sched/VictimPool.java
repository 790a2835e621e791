package dev.allot.core.sched;

import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    /** The candidates with their keys, in the order of {@link #sorted}; rebuilt when the candidates are gathered. */
    private Keyed[] keyed = new Keyed[0];
    private long sortedForVersion = -1;
    /** Which order the candidates' {@link Keyed#tie} numbers were given for. */
    private boolean tiesForLostFirst;
    /** Per shared standing of the candidates: one candidate that asks for it, and its value at the last sort. */
    private Job[] standingOf = new Job[0];
    private double[] standingValue = new double[0];
    /** The candidates whose standing is their own ({@link Keys#sharedStanding} -1), by place in {@link #keyed}. */
    private int[] ownStanding = new int[0];

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
            keyed = new Keyed[0];
            standingOf = new Job[0];
            standingValue = new double[0];
            ownStanding = new int[0];
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

        /**
         * Which standing decides {@link #overServed} of {@code j}, when jobs share one (the allocation policy's:
         * every job of one allocation stands where its allocation does): jobs with the same number get the same
         * {@code overServed}, so the pool asks once per number per sort. -1: the job's own, asked for every job.
         */
        default int sharedStanding(Job j) {
            return -1;
        }
    }

    /**
     * A candidate with its sort keys, kept all cycle (one per candidate, not one per candidate per sort) and given
     * fresh keys at every sort.
     */
    private static final class Keyed {
        final Job job;
        int group;
        double overServed;
        long workLost;
        /** The candidate's place among all of them on the order's last keys (fewer GPUs then id, or the id). */
        int tie;
        /** Its {@link Keys#sharedStanding}'s place in {@link #standingOf}, or -1 when its standing is its own. */
        int standing = -1;

        Keyed(Job job) {
            this.job = job;
        }
    }

    /** Group, then higher standing, then less work lost, then id (its {@link Keyed#tie}): the Slurm model's order. */
    private static final Comparator<Keyed> STANDING_FIRST = (a, b) -> {
        if (a.group != b.group) {
            return Integer.compare(a.group, b.group);
        }
        int c = Double.compare(b.overServed, a.overServed);
        if (c != 0) {
            return c;
        }
        c = Long.compare(a.workLost, b.workLost);
        return c != 0 ? c : Integer.compare(a.tie, b.tie);
    };

    /**
     * Group, then less work lost, then higher standing, then fewer GPUs, then id (the last two as its
     * {@link Keyed#tie}): the allocation policy's order.
     */
    private static final Comparator<Keyed> LOST_FIRST = (a, b) -> {
        if (a.group != b.group) {
            return Integer.compare(a.group, b.group);
        }
        int c = Long.compare(a.workLost, b.workLost);
        if (c != 0) {
            return c;
        }
        c = Double.compare(b.overServed, a.overServed);
        return c != 0 ? c : Integer.compare(a.tie, b.tie);
    };

    /** The last keys of each order, which never change for a job: fewer GPUs then id, or the id alone. */
    private static final Comparator<Job> GPUS_THEN_ID = Comparator.comparingInt(Job::gpus).thenComparing(Job::id);
    private static final Comparator<Job> BY_ID = Comparator.comparing(Job::id);

    /**
     * Sorts the candidates by their keys as they are now. Both orders end in the id, so the sorted order is the one
     * order the keys define, however it is reached: when the keys still stand in order (a start moved standings
     * that decide nothing between these candidates), the list is left as it is instead of being sorted again, and
     * the keys live in one array kept all cycle (issue 21: the cycle taking in 10,000 submissions sorted its 1,800
     * candidates 430 times, a new key record each time, for a third of its decision's CPU and 19 of its 22 MB; 255
     * of those sorts found the order unchanged). When only standings moved, only the runs of candidates with the same
     * leading keys are sorted again ({@link #sortWithinRuns}), and the last keys compare as numbers ({@link #rankTies}):
     * the intake's 430 sorts took about 24 ms of its 50 ms decision, then about 12.
     * <p>
     * Only the standings are asked again at a later sort of the same cycle: a candidate's group and work lost
     * depend on the job and the cycle's time alone, and neither changes while the pool is built (the cycle decides
     * on a fixed state; {@link #reset} starts the next). The standings are asked once per shared standing
     * ({@link Keys#sharedStanding}: the allocation policy's 1,800 candidates share a few dozen), and when none moved
     * the order is the last one.
     */
    private void sortByKeys(Keys keys) {
        boolean fresh = keyed.length != sorted.size();
        boolean lostFirst = keys.workLostFirst();
        if (fresh || tiesForLostFirst != lostFirst) {
            keyed = new Keyed[sorted.size()];
            for (int i = 0; i < keyed.length; i++) {
                keyed[i] = new Keyed(sorted.get(i));
            }
            rankTies(lostFirst);
            fresh = true;
        }
        Comparator<Keyed> order = lostFirst ? LOST_FIRST : STANDING_FIRST;
        if (fresh) {
            giveAllKeys(keys);
        } else if (!standingsMoved(keys)) {
            return;
        }
        boolean inOrder = true;
        for (int i = 1; i < keyed.length && inOrder; i++) {
            inOrder = order.compare(keyed[i - 1], keyed[i]) <= 0;
        }
        if (inOrder) {
            return;
        }
        if (fresh) {
            Arrays.sort(keyed, order);
        } else {
            sortWithinRuns(order, lostFirst);
        }
        for (int i = 0; i < keyed.length; i++) {
            sorted.set(i, keyed[i].job);
        }
    }

    /** Every key of every candidate, at the first sort of the cycle; numbers the shared standings. */
    private void giveAllKeys(Keys keys) {
        Map<Integer, Integer> places = new HashMap<>();
        List<Job> sharers = new ArrayList<>();
        int own = 0;
        int[] owners = new int[keyed.length];
        for (int i = 0; i < keyed.length; i++) {
            Keyed k = keyed[i];
            k.group = keys.group(k.job);
            k.workLost = keys.workLost(k.job);
            k.overServed = keys.overServed(k.job);
            int shared = keys.sharedStanding(k.job);
            if (shared < 0) {
                k.standing = -1;
                owners[own++] = i;
            } else {
                Integer place = places.get(shared);
                if (place == null) {
                    place = sharers.size();
                    places.put(shared, place);
                    sharers.add(k.job);
                }
                k.standing = place;
            }
        }
        ownStanding = Arrays.copyOf(owners, own);
        standingOf = sharers.toArray(new Job[0]);
        standingValue = new double[standingOf.length];
        for (int s = 0; s < standingOf.length; s++) {
            standingValue[s] = keys.overServed(standingOf[s]);
        }
    }

    /**
     * Asks the standings again (once per shared standing, and each own one) and gives the candidates the moved ones;
     * false when none moved (then every key is what it was at the last sort, and so is the order).
     */
    private boolean standingsMoved(Keys keys) {
        boolean sharedMoved = false;
        boolean[] moved = new boolean[standingOf.length];
        for (int s = 0; s < standingOf.length; s++) {
            double v = keys.overServed(standingOf[s]);
            if (Double.doubleToLongBits(v) != Double.doubleToLongBits(standingValue[s])) {
                standingValue[s] = v;
                moved[s] = true;
                sharedMoved = true;
            }
        }
        boolean any = sharedMoved;
        for (int i : ownStanding) {
            Keyed k = keyed[i];
            double v = keys.overServed(k.job);
            if (Double.doubleToLongBits(v) != Double.doubleToLongBits(k.overServed)) {
                k.overServed = v;
                any = true;
            }
        }
        if (sharedMoved) {
            for (Keyed k : keyed) {
                if (k.standing >= 0 && moved[k.standing]) {
                    k.overServed = standingValue[k.standing];
                }
            }
        }
        return any;
    }

    /**
     * Numbers the candidates once in the order of the order's last keys, so that a sort compares two numbers
     * instead of two ids (the ids are unique, so the numbers are, and the order is the same).
     */
    private void rankTies(boolean lostFirst) {
        Keyed[] byTie = keyed.clone();
        Comparator<Job> tieOrder = lostFirst ? GPUS_THEN_ID : BY_ID;
        Arrays.sort(byTie, (a, b) -> tieOrder.compare(a.job, b.job));
        for (int i = 0; i < byTie.length; i++) {
            byTie[i].tie = i;
        }
        tiesForLostFirst = lostFirst;
    }

    /**
     * Sorts each run of candidates with the same leading keys (the group, and with work lost first the work lost),
     * when none of those keys changed since the last sort: the list is then still in order on them, and only the
     * standings (a start moved its allocation's) can reorder candidates, inside such a run. The same order as a sort
     * of the whole list (the order is total), without sorting all 1,800 candidates of the intake of 10,000 again
     * whenever a start moved one allocation's standing.
     */
    private void sortWithinRuns(Comparator<Keyed> order, boolean lostFirst) {
        int from = 0;
        while (from < keyed.length) {
            Keyed first = keyed[from];
            int to = from + 1;
            boolean runInOrder = true;
            while (to < keyed.length && keyed[to].group == first.group
                    && (!lostFirst || keyed[to].workLost == first.workLost)) {
                runInOrder = runInOrder && order.compare(keyed[to - 1], keyed[to]) <= 0;
                to++;
            }
            if (!runInOrder) {
                Arrays.sort(keyed, from, to, order);
            }
            from = to;
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
