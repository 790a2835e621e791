package dev.allot.core.policy.kueue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Kueue's Fair Sharing preemption: which admitted workloads a pending workload may evict to be admitted, with
 * {@code withinClusterQueue: LowerPriority}, {@code reclaimWithinCohort: Any} and the default strategies
 * {@code [LessThanOrEqualToFinalShare, LessThanInitialShare]}.
 *
 * <p>Candidates are the preemptor's ClusterQueue's own workloads of lower priority, and every workload of the other
 * ClusterQueues of the cohort tree that borrow (use more than their nominal quota); each ClusterQueue's list comes
 * in Kueue's candidate order (see {@code KueuePolicy}). With the preemptor's usage added to its ClusterQueue:
 * <ol>
 *   <li><b>First strategy.</b> Repeatedly pick the ClusterQueue to take from: walk down from the root to the child
 *   with the highest share (ClusterQueues that stopped borrowing, and cohorts that did, off the preemptor's path,
 *   are dropped; on ties the later child and, between a cohort and a ClusterQueue, the cohort). From the preemptor's
 *   own ClusterQueue take its next candidate. If the preemptor's ClusterQueue stays within its nominal quota with
 *   the workload admitted, take the next candidate of any borrowing ClusterQueue ({@code FairSharingPreemptWithinNominal},
 *   on by default since v0.17). Otherwise compare the shares of the two AlmostLCAs (the children of the lowest
 *   common cohort on each side): take the first candidate for which <em>LessThanOrEqualToFinalShare</em> holds,
 *   the preemptor's side's share with the workload admitted at most the target's side's share without the
 *   candidate; candidates that fail wait for the second strategy. After each target, stop if the workload fits.</li>
 *   <li><b>Second strategy</b>, <em>LessThanInitialShare</em>, over the candidates the first one left: per
 *   ClusterQueue picked in the same order, take its first such candidate if the preemptor's side's share with the
 *   workload is strictly below the target's side's share now, then never visit that ClusterQueue again.</li>
 *   <li><b>Minimal set.</b> If the workload fits, put targets back in reverse order, all but the last, whenever it
 *   still fits without them.</li>
 * </ol>
 * "Fits" is Kueue's quota check (the workload's GPUs within the tree's unused quota) and, as Kueue does with
 * topology-aware scheduling, a {@link Room} on the nodes. Everything is simulated: the cohorts' usage and the room
 * are as they were when {@link #find} returns.
 *
 * @see <a href="https://kueue.sigs.k8s.io/docs/concepts/preemption/#fair-sharing">Kueue: Preemption, Fair Sharing</a>
 */
public final class FairPreemption {
    private FairPreemption() {
    }

    /** Kueue's preemption reasons. */
    public enum Reason {
        /** A lower-priority workload of the preemptor's own ClusterQueue ({@code InClusterQueue}). */
        IN_CLUSTER_QUEUE,
        /** The preemptor's ClusterQueue stays within its nominal quota ({@code InCohortReclamation}). */
        RECLAMATION,
        /** A fair sharing strategy allowed it ({@code InCohortFairSharing}). */
        FAIR_SHARING
    }

    /** Kueue's fair sharing preemption strategies. */
    public enum Strategy {
        LESS_THAN_OR_EQUAL_TO_FINAL_SHARE("LessThanOrEqualToFinalShare"),
        LESS_THAN_INITIAL_SHARE("LessThanInitialShare");

        private final String kueueName;

        Strategy(String kueueName) {
            this.kueueName = kueueName;
        }

        public String kueueName() {
            return kueueName;
        }
    }

    /**
     * One workload to evict and why. For {@link Reason#FAIR_SHARING}, the shares that decided it (of the AlmostLCAs:
     * the preemptor's side with the workload admitted, the target's side before and without the victim).
     */
    public record Target<T>(T workload, int cq, Reason reason, Strategy strategy, Share preemptorNew, Share targetOld,
                            Share targetNew) {
    }

    /** What the algorithm needs to know of a candidate. */
    public interface Sizes<T> {
        int cq(T workload);

        long gpus(T workload);
    }

    /** The nodes: freeing a candidate's GPUs, taking them back, and whether the preemptor could be placed. */
    public interface Room<T> {
        void free(T workload);

        void unfree(T workload);

        boolean fits();

        /** A room with no physical limit: only quota decides. */
        static <T> Room<T> unlimited() {
            return new Room<>() {
                @Override
                public void free(T workload) {
                }

                @Override
                public void unfree(T workload) {
                }

                @Override
                public boolean fits() {
                    return true;
                }
            };
        }
    }

    /**
     * One ClusterQueue's candidates in order, with the smallest size from each position on (a shortcut: when the
     * smallest remaining candidate fails the first strategy, they all do, since removing more can only lower the
     * target's share). Only the first {@code end} items are candidates.
     */
    public static final class Candidates<T> {
        private final List<T> items;
        private final long[] suffixMin;
        private final int end;
        private final long maxGpus;

        private Candidates(List<T> items, long[] suffixMin, int end, long maxGpus) {
            this.items = items;
            this.suffixMin = suffixMin;
            this.end = end;
            this.maxGpus = maxGpus;
        }

        public static <T> Candidates<T> of(List<T> items, Sizes<T> sizes) {
            long[] m = new long[items.size() + 1];
            m[items.size()] = Long.MAX_VALUE;
            long max = 0;
            for (int i = items.size() - 1; i >= 0; i--) {
                long g = sizes.gpus(items.get(i));
                m[i] = Math.min(m[i + 1], g);
                max = Math.max(max, g);
            }
            return new Candidates<>(items, m, items.size(), max);
        }

        /** The same list cut to its first {@code n} items (its {@link #maxGpus} stays the whole list's). */
        public Candidates<T> limit(int n) {
            return new Candidates<>(items, suffixMin, Math.min(n, items.size()), maxGpus);
        }

        /** The GPUs of the largest candidate of the whole list (0 if it is empty): a bound for any of them. */
        public long maxGpus() {
            return maxGpus;
        }

        public List<T> items() {
            return items;
        }

        public int end() {
            return end;
        }
    }

    /**
     * The workloads to evict so that a workload of {@code gpus} GPUs in ClusterQueue {@code preemptorCq} fits, in the
     * order they were chosen, or null if no allowed set makes it fit.
     *
     * @param byCq    per ClusterQueue its candidates (null for none); the preemptor's own list must already hold only
     *                lower-priority workloads; other ClusterQueues' lists are used only if they borrow
     * @param usable     false for workloads that may no longer be chosen (already evicted)
     * @param strategies Kueue's {@code preemptionStrategies}: one of the lists Kueue accepts, {@link #DEFAULT_STRATEGIES}
     *                   ({@code [LessThanOrEqualToFinalShare, LessThanInitialShare]}), or either strategy alone
     */
    public static <T> List<Target<T>> find(Cohorts cohorts, int preemptorCq, long gpus, List<Candidates<T>> byCq,
                                           Sizes<T> sizes, Room<T> room, Predicate<T> usable, List<Strategy> strategies) {
        return new Search<T>(cohorts, sizes).find(preemptorCq, gpus, byCq, room, usable, strategies);
    }

    /**
     * {@link #find} for one cohort tree, search after search, reusing its working arrays (a simulation searches
     * hundreds of thousands of times; the arrays were a large part of the {@code kueue} policy's allocation).
     */
    public static final class Finder<T> {
        private final Search<T> search;

        public Finder(Cohorts cohorts, Sizes<T> sizes) {
            this.search = new Search<>(cohorts, sizes);
        }

        /** {@link FairPreemption#find} with this finder's tree and sizes. */
        public List<Target<T>> find(int preemptorCq, long gpus, List<Candidates<T>> byCq, Room<T> room,
                                    Predicate<T> usable, List<Strategy> strategies) {
            return search.find(preemptorCq, gpus, byCq, room, usable, strategies);
        }
    }

    /** Kueue's default: {@code [LessThanOrEqualToFinalShare, LessThanInitialShare]}. */
    public static final List<Strategy> DEFAULT_STRATEGIES = List.of(Strategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
            Strategy.LESS_THAN_INITIAL_SHARE);

    /** One search at a time; {@link #find} sets it up anew, reusing the arrays. */
    private static final class Search<T> {
        private final Cohorts cohorts;
        private final Sizes<T> sizes;
        private final Candidates<T>[] lists;
        private final int[] pos;
        private final int[] retryFirst;
        /** Per ClusterQueue, the position {@link #next} last found usable or at the end (-1: none yet). */
        private final int[] checked;
        private final boolean[] dropped;
        private final PreemptionOrdering first;
        private final PreemptionOrdering second;
        private final List<Target<T>> targets = new ArrayList<>();
        private int x;
        private int xNode;
        private long gpus;
        private Room<T> room;
        private Predicate<T> usable;

        @SuppressWarnings("unchecked")
        Search(Cohorts cohorts, Sizes<T> sizes) {
            this.cohorts = cohorts;
            this.sizes = sizes;
            int n = cohorts.cqCount();
            this.lists = (Candidates<T>[]) new Candidates<?>[n];
            this.pos = new int[n];
            this.retryFirst = new int[n];
            this.checked = new int[n];
            this.dropped = new boolean[n];
            this.first = new PreemptionOrdering(cohorts, q -> next(q) >= 0);
            this.second = new PreemptionOrdering(cohorts, q -> retryFirst[q] >= 0 && !dropped[q]);
        }

        List<Target<T>> find(int preemptorCq, long preemptorGpus, List<Candidates<T>> byCq, Room<T> preemptorRoom,
                             Predicate<T> isUsable, List<Strategy> strategies) {
            if (!(strategies.equals(DEFAULT_STRATEGIES) || strategies.size() == 1)) {
                throw new IllegalArgumentException("Kueue accepts [LessThanOrEqualToFinalShare], [LessThanInitialShare]"
                        + " or [LessThanOrEqualToFinalShare, LessThanInitialShare], not " + strategies);
            }
            this.x = preemptorCq;
            this.xNode = cohorts.cqNode(preemptorCq);
            this.gpus = preemptorGpus;
            this.room = preemptorRoom;
            this.usable = isUsable;
            for (int q = 0; q < lists.length; q++) {
                Candidates<T> c = q < byCq.size() ? byCq.get(q) : null;
                // Only the preemptor's own ClusterQueue and ClusterQueues that borrow offer candidates.
                lists[q] = c != null && (q == x || cohorts.borrowing(cohorts.cqNode(q))) ? c : null;
            }
            java.util.Arrays.fill(pos, 0);
            java.util.Arrays.fill(retryFirst, -1);
            java.util.Arrays.fill(checked, -1);
            java.util.Arrays.fill(dropped, false);
            targets.clear();
            try {
                List<Target<T>> found = run(strategies.get(0), strategies.size() > 1);
                return found == null ? null : new ArrayList<>(found);
            } finally {
                targets.clear();
                this.room = null;
                this.usable = null;
            }
        }

        List<Target<T>> run(Strategy first, boolean secondStrategy) {
            cohorts.addUsage(x, gpus);
            boolean fits;
            try {
                fits = firstStrategy(first);
                if (!fits && secondStrategy) {
                    fits = secondStrategy();
                }
            } finally {
                cohorts.addUsage(x, -gpus);
            }
            if (!fits) {
                for (Target<T> t : targets) {
                    restore(t.workload());
                }
                return null;
            }
            // Minimal set: try to do without each target but the last, latest first.
            for (int i = targets.size() - 2; i >= 0; i--) {
                restore(targets.get(i).workload());
                if (fitsAsIs()) {
                    targets.remove(i);
                } else {
                    take(targets.get(i).workload());
                }
            }
            for (Target<T> t : targets) {
                restore(t.workload());
            }
            return targets;
        }

        private boolean fitsAsIs() {
            return gpus <= cohorts.available() && room.fits();
        }

        /** During the strategies the preemptor's usage is simulated: it fits if the tree is not over its quota. */
        private boolean fitsWithPreemptor() {
            return cohorts.available() >= 0 && room.fits();
        }

        private void take(T v) {
            cohorts.addUsage(sizes.cq(v), -sizes.gpus(v));
            room.free(v);
        }

        private void restore(T v) {
            cohorts.addUsage(sizes.cq(v), sizes.gpus(v));
            room.unfree(v);
        }

        /**
         * The next usable position of a ClusterQueue's list in the first strategy, or -1. Whether a candidate is
         * usable does not change during the search, so a position found usable once is not tested again (the
         * ordering asks every ClusterQueue at every pick).
         */
        private int next(int q) {
            Candidates<T> c = lists[q];
            if (c == null) {
                return -1;
            }
            int i = pos[q];
            if (i != checked[q]) {
                while (i < c.end && !usable.test(c.items.get(i))) {
                    i++;
                }
                pos[q] = i;
                checked[q] = i;
            }
            return i < c.end ? i : -1;
        }

        private boolean firstStrategy(Strategy strategy) {
            boolean finalShare = strategy == Strategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE;
            boolean withinNominal = !cohorts.borrowing(xNode);
            PreemptionOrdering ord = first.begin(x);
            for (int y = ord.next(); y >= 0; y = ord.next()) {
                Candidates<T> c = lists[y];
                if (y == x || withinNominal) {
                    int i = next(y);
                    pos[y]++;
                    T v = c.items.get(i);
                    take(v);
                    targets.add(new Target<>(v, y, y == x ? Reason.IN_CLUSTER_QUEUE : Reason.RECLAMATION, null,
                            null, null, null));
                    if (fitsWithPreemptor()) {
                        return true;
                    }
                    continue;
                }
                int yNode = cohorts.cqNode(y);
                int preemptorSide = cohorts.almostLca(xNode, yNode);
                int targetSide = cohorts.almostLca(yNode, xNode);
                // the shares are compared without making them (and without moving the usage to try a candidate);
                // the Shares a target's reason shows are made only for the candidate taken, from the same usage
                int oldOrder = cohorts.compareIfAdded(preemptorSide, 0, targetSide, 0);
                if (oldOrder > 0) {
                    // Removing candidates only lowers the target's share: none can pass either strategy here.
                    int i = next(y);
                    if (retryFirst[y] < 0) {
                        retryFirst[y] = i;
                    }
                    pos[y] = c.end;
                    continue;
                }
                long passMax = 0;
                long failMin = Long.MAX_VALUE;
                for (int i = next(y); i >= 0; i = next(y)) {
                    if (c.suffixMin[i] >= failMin) {
                        if (retryFirst[y] < 0) {
                            retryFirst[y] = i;
                        }
                        pos[y] = c.end;
                        break;
                    }
                    pos[y]++;
                    T v = c.items.get(i);
                    long g = sizes.gpus(v);
                    boolean ok;
                    if (g <= passMax) {
                        ok = true;
                    } else if (g >= failMin) {
                        ok = false;
                    } else {
                        ok = finalShare ? cohorts.compareIfAdded(preemptorSide, 0, targetSide, -g) <= 0 : oldOrder < 0;
                        if (ok) {
                            passMax = g;
                        } else {
                            failMin = g;
                        }
                    }
                    if (ok) {
                        Share preemptorNew = cohorts.share(preemptorSide);
                        Share targetOld = cohorts.share(targetSide);
                        Share targetNew = cohorts.shareIfAdded(targetSide, -g);
                        take(v);
                        targets.add(new Target<>(v, y, Reason.FAIR_SHARING, strategy, preemptorNew, targetOld, targetNew));
                        if (fitsWithPreemptor()) {
                            return true;
                        }
                        break; // the shares moved: pick the ClusterQueue again
                    }
                    if (retryFirst[y] < 0) {
                        retryFirst[y] = i;
                    }
                }
            }
            return false;
        }

        private boolean secondStrategy() {
            PreemptionOrdering ord = second.begin(x);
            for (int y = ord.next(); y >= 0; y = ord.next()) {
                int yNode = cohorts.cqNode(y);
                int targetSide = cohorts.almostLca(yNode, xNode);
                int preemptorSide = cohorts.almostLca(xNode, yNode);
                if (cohorts.compareIfAdded(preemptorSide, 0, targetSide, 0) < 0) {
                    Share preemptorNew = cohorts.share(preemptorSide);
                    Share targetOld = cohorts.share(targetSide);
                    T v = lists[y].items.get(retryFirst[y]);
                    take(v);
                    Share targetNew = cohorts.share(targetSide);
                    targets.add(new Target<>(v, y, Reason.FAIR_SHARING, Strategy.LESS_THAN_INITIAL_SHARE,
                            preemptorNew, targetOld, targetNew));
                    if (fitsWithPreemptor()) {
                        return true;
                    }
                }
                dropped[y] = true;
            }
            return false;
        }
    }
}
