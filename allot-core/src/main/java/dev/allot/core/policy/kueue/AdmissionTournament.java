package dev.allot.core.policy.kueue;

import java.util.Arrays;

/**
 * Which ClusterQueue's head Kueue considers next when fair sharing is on: its tournament over the cohort tree.
 *
 * <p>For every ClusterQueue that still has a head in this round, the shares of the ClusterQueue and of each of its
 * cohorts below the root are computed as if its head were admitted. Then, from the root down, every cohort runs a
 * match among its children (the winners of its child cohorts and the heads of its child ClusterQueues), comparing
 * the children's shares with the candidate admitted:
 * <ol>
 *   <li>a child that would not borrow from the cohort goes first ({@code FairSharingPrioritizeNonBorrowing}, on by
 *   default since Kueue v0.17);</li>
 *   <li>then the lower share;</li>
 *   <li>then the higher priority ({@code PrioritySortingWithinCohort}, on by default);</li>
 *   <li>then the earlier creation time;</li>
 *   <li>then, where Kueue leaves the order to map iteration, the smaller workload id, for determinism.</li>
 * </ol>
 * Shares are recomputed at every pick, so each admission moves its ClusterQueue down at once. They are kept as the
 * parts {@link Share#compare} orders by, not as {@link Share}s: a pass picks a winner for every head it processes.
 */
public final class AdmissionTournament {
    private final Cohorts cohorts;
    /**
     * Per ClusterQueue and level of its path, the share with the head admitted: whether it borrows, whether it is
     * infinite, and its {@link Share#orderKey}.
     */
    private final boolean[][] borrowingAt;
    private final boolean[][] infiniteAt;
    private final double[][] keyAt;
    /**
     * The usage with the head admitted each entry was computed from (-1: none yet): a share depends on its node's
     * usage only (quotas, weights and the lendable quota are fixed), so an unchanged usage keeps the entry.
     */
    private final long[][] usedAt;
    private long[] gpus;
    private int[] priority;
    private long[] submit;
    private String[] id;
    private boolean[] present;
    /** The usage version the present heads' entries were last brought up to in this cycle; -1: not yet. */
    private long refreshedAt = -1;
    /**
     * In a flat tree (every ClusterQueue in the root cohort), the present heads' ClusterQueues sorted by {@link #less}
     * when their entries last changed, and where the next winner is looked for: the match is then the first still
     * present (an entry that did not change keeps its place, and the order is total), instead of a match over every
     * ClusterQueue per pick. Null in a tree with cohorts below the root.
     */
    private final int[] flatOrder;
    private int flatCount;
    private int flatAt;
    private boolean flatValid;

    public AdmissionTournament(Cohorts cohorts) {
        this.cohorts = cohorts;
        int maxDepth = 0;
        for (int n = 0; n < cohorts.nodeCount(); n++) {
            maxDepth = Math.max(maxDepth, cohorts.depth(n));
        }
        this.borrowingAt = new boolean[cohorts.cqCount()][maxDepth + 1];
        this.infiniteAt = new boolean[cohorts.cqCount()][maxDepth + 1];
        this.keyAt = new double[cohorts.cqCount()][maxDepth + 1];
        this.usedAt = new long[cohorts.cqCount()][maxDepth + 1];
        for (long[] u : usedAt) {
            Arrays.fill(u, -1);
        }
        this.flatOrder = cohorts.flat() ? new int[cohorts.cqCount()] : null;
    }

    /**
     * The ClusterQueue whose head goes next, or -1 if none is present. The arrays are indexed by ClusterQueue; only
     * entries with {@code present[cq]} take part.
     */
    public int winner(boolean[] present, long[] gpus, int[] priority, long[] submit, String[] id) {
        beginCycle(present, gpus, priority, submit, id);
        return next();
    }

    /**
     * Starts a cycle whose heads are these (the arrays as for {@link #winner}); {@link #next} then picks its winners
     * one by one while the caller clears {@code present} of those it processed and changes nothing else in the arrays.
     */
    public void beginCycle(boolean[] present, long[] gpus, int[] priority, long[] submit, String[] id) {
        this.present = present;
        this.gpus = gpus;
        this.priority = priority;
        this.submit = submit;
        this.id = id;
        refreshedAt = -1;
        flatValid = false;
    }

    /**
     * The next winner of the cycle ({@link #beginCycle}), or -1 if no head is left. The shares are brought up to the
     * usage only when it changed since the last pick of the cycle: while it did not, every present head's entries
     * were computed from the usage as it is (heads only leave the cycle), and the match reads nothing else.
     */
    public int next() {
        boolean any = false;
        if (refreshedAt == cohorts.usageVersion()) {
            if (flatOrder != null && flatValid) {
                return nextInFlatOrder();
            }
            for (int cq = 0; cq < cohorts.cqCount() && !any; cq++) {
                any = present[cq];
            }
            return any ? match(0) : -1;
        }
        boolean changed = false;
        for (int cq = 0; cq < cohorts.cqCount(); cq++) {
            if (!present[cq]) {
                continue;
            }
            any = true;
            for (int node = cohorts.cqNode(cq); cohorts.parent(node) >= 0; node = cohorts.parent(node)) {
                int level = cohorts.depth(node);
                long used = cohorts.usage(node) + gpus[cq];
                if (usedAt[cq][level] != used) {
                    boolean borrowing = cohorts.borrowsWith(node, used);
                    double weight = cohorts.weight(node);
                    borrowingAt[cq][level] = borrowing;
                    infiniteAt[cq][level] = Share.infinite(borrowing, weight);
                    keyAt[cq][level] = Share.orderKey(borrowing, cohorts.unweightedShare(node, used), weight);
                    usedAt[cq][level] = used;
                    changed = true;
                }
            }
        }
        refreshedAt = cohorts.usageVersion();
        if (flatOrder == null) {
            return any ? match(0) : -1;
        }
        if (changed || !flatValid) {
            sortFlat();
        }
        return nextInFlatOrder();
    }

    /** Sorts the present heads' ClusterQueues by {@link #less} at level 1 (insertion sort: a dozen or so). */
    private void sortFlat() {
        int n = 0;
        for (int cq = 0; cq < cohorts.cqCount(); cq++) {
            if (!present[cq]) {
                continue;
            }
            int j = n++;
            while (j > 0 && less(cq, flatOrder[j - 1], 1)) {
                flatOrder[j] = flatOrder[j - 1];
                j--;
            }
            flatOrder[j] = cq;
        }
        flatCount = n;
        flatAt = 0;
        flatValid = true;
    }

    private int nextInFlatOrder() {
        while (flatAt < flatCount && !present[flatOrder[flatAt]]) {
            flatAt++;
        }
        return flatAt < flatCount ? flatOrder[flatAt] : -1;
    }

    /**
     * The share the winner's ClusterQueue would have with its head admitted: valid after {@link #winner} while the
     * usage stays as it was then.
     */
    public Share shareOf(int cq) {
        return cohorts.shareIfAdded(cohorts.cqNode(cq), gpus[cq]);
    }

    private int match(int cohort) {
        int level = cohorts.depth(cohort) + 1;
        int best = -1;
        for (int child : cohorts.childCohorts(cohort)) {
            int w = match(child);
            if (w >= 0 && (best < 0 || less(w, best, level))) {
                best = w;
            }
        }
        for (int node : cohorts.childClusterQueues(cohort)) {
            int cq = cohorts.cqOf(node);
            if (present[cq] && (best < 0 || less(cq, best, level))) {
                best = cq;
            }
        }
        return best;
    }

    private boolean less(int a, int b, int level) {
        if (borrowingAt[a][level] != borrowingAt[b][level]) {
            return !borrowingAt[a][level];
        }
        int c = Share.compare(infiniteAt[a][level], keyAt[a][level], infiniteAt[b][level], keyAt[b][level]);
        if (c != 0) {
            return c < 0;
        }
        if (priority[a] != priority[b]) {
            return priority[a] > priority[b];
        }
        if (submit[a] != submit[b]) {
            return submit[a] < submit[b];
        }
        return id[a].compareTo(id[b]) < 0;
    }
}
