package dev.allot.sim.metrics;

import java.util.ArrayList;
import java.util.List;

/**
 * The most of what is owed that any schedule could pay over a run's instants <i>while paying every allocation at
 * least a share {@code floor} of what it is owed over them</i> (issue 15's pair of goals: 98% overall, 95% for the
 * worst allocation), along the run's own demand.
 *
 * <p>Why: {@link OwedKnapsack} bounds each instant on its own, and its best choice may leave one allocation unpaid at
 * every instant (a 3% team whose only work is a 64-GPU gang pays 7.7 GPUs of what is owed and costs others 56). Paying
 * that team its share of the instants costs the others theirs, so the two goals bound each other. Whether both can
 * hold at once is a question over all instants together: maximise the sum of what is paid, subject to each
 * allocation's sum reaching {@code floor} x what it is owed, each instant a {@link OwedKnapsack}.
 *
 * <p>How: Lagrangian relaxation. With a weight {@code 1 + lambda_a} on what allocation {@code a} is paid, the
 * instants separate, each a weighted {@link OwedKnapsack}, and for every {@code lambda >= 0}
 * {@code sum over instants of the weighted best - floor x sum of lambda_a x owed_a} is at least the constrained
 * optimum (weak duality). Subgradient steps lower the bound; every step's bound is valid, and the least is kept. A
 * schedule that pays every allocation the floor pays at least {@code floor} x all that is owed, so when a step's
 * bound falls below that, there is no such schedule. Like the per-instant bound it
 * ignores nodes, protection and the cost of preempting, so it is an upper bound, not a schedule.
 */
final class FairPaidBound {
    /** Subgradient steps (each solves every recorded instant once), at most. */
    static final int STEPS = 120;
    /**
     * Knapsack cells (GPU counts x options, summed over allocations and instants, times steps) one solve may update:
     * about 20 s of one core. A run larger than that takes fewer steps (each bound stays valid, only less tight).
     */
    static final double MAX_CELLS = 2e11;
    /** Fewer steps than this would say little: the bound is then not computed. */
    static final int MIN_STEPS = 10;

    /** One recorded state: how many instants it lasted, the GPUs any schedule had, and each allocation's demand. */
    record Instant(long count, int capacity, OwedKnapsack.Demand[] demands, double[] owed) {
    }

    /**
     * @param boundGpus the bound, in GPUs summed over the instants; -1 when no schedule pays every allocation the
     *                  floor (the bound fell below {@code floor} x everything owed, which any such schedule pays);
     *                  NaN when the run is too large to solve ({@link #MAX_CELLS})
     * @param steps     the subgradient steps taken
     */
    record Result(double floor, double boundGpus, int steps) {
    }

    private final List<Instant> instants = new ArrayList<>();
    private final List<int[][]> options = new ArrayList<>();

    void add(Instant i) {
        instants.add(i);
        int[][] opts = new int[i.demands().length][];
        for (int l = 0; l < opts.length; l++) {
            OwedKnapsack.Demand d = i.demands()[l];
            opts[l] = d == null || d.totalGpus() == 0 || d.quotaGpus() <= 0 ? new int[0]
                    : OwedKnapsack.worthGiving(d, i.capacity());
        }
        options.add(opts);
    }

    /** The bound for {@code floor} (0 to 1), over every instant added. */
    Result solve(double floor) {
        if (instants.isEmpty()) {
            return new Result(floor, 0, 0);
        }
        int leaves = instants.get(0).demands().length;
        double[] owedSum = new double[leaves];
        for (Instant i : instants) {
            for (int l = 0; l < leaves; l++) {
                owedSum[l] += i.count() * i.owed()[l];
            }
        }
        double owedTotal = 0;
        for (double o : owedSum) {
            owedTotal += o;
        }
        // any schedule that pays every allocation the floor pays at least this much in all
        double leastFeasible = floor * owedTotal - 1e-9 * Math.max(1, owedTotal);
        double[] lambda = new double[leaves];
        double[] paid = new double[leaves];
        int maxCapacity = 0;
        double cellsPerStep = 0;
        for (int t = 0; t < instants.size(); t++) {
            Instant i = instants.get(t);
            maxCapacity = Math.max(maxCapacity, i.capacity());
            for (int[] o : options.get(t)) {
                cellsPerStep += (double) o.length * (i.capacity() + 1);
            }
        }
        int maxSteps = (int) Math.min(STEPS, Math.floor(MAX_CELLS / Math.max(1, cellsPerStep)));
        if (maxSteps < MIN_STEPS) {
            return new Result(floor, Double.NaN, 0);
        }
        Scratch scratch = new Scratch(leaves, maxCapacity);
        double best = Double.POSITIVE_INFINITY;
        int steps = 0;
        for (int k = 1; k <= maxSteps; k++) {
            steps = k;
            java.util.Arrays.fill(paid, 0);
            double value = 0;
            for (int t = 0; t < instants.size(); t++) {
                value += solveInstant(instants.get(t), options.get(t), lambda, paid, scratch);
            }
            double bound = value;
            for (int l = 0; l < leaves; l++) {
                bound -= floor * lambda[l] * owedSum[l];
            }
            best = Math.min(best, bound);
            if (best < leastFeasible) {
                return new Result(floor, -1, k); // below what any such schedule pays: there is none
            }
            boolean feasible = true;
            double step = 4 / Math.sqrt(k);
            for (int l = 0; l < leaves; l++) {
                if (owedSum[l] <= 0) {
                    continue;
                }
                double g = (paid[l] - floor * owedSum[l]) / owedSum[l];
                feasible &= g >= -1e-12;
                lambda[l] = Math.max(0, lambda[l] - step * g);
            }
            if (feasible && lambdaZero(lambda)) {
                break; // the unconstrained best pays every allocation the floor: it is the answer
            }
        }
        return new Result(floor, best, steps);
    }

    private static boolean lambdaZero(double[] lambda) {
        for (double v : lambda) {
            if (v != 0) {
                return false;
            }
        }
        return true;
    }

    /** The buffers of {@link #solveInstant}, made once per solve: it runs once per instant and step. */
    private static final class Scratch {
        double[] best;
        double[] next;
        final int[][] choice;

        Scratch(int leaves, int maxCapacity) {
            best = new double[maxCapacity + 1];
            next = new double[maxCapacity + 1];
            choice = new int[leaves][maxCapacity + 1];
        }
    }

    /**
     * The weighted best of one instant (times its count), adding what each allocation is paid in it (times its count)
     * to {@code paid}: a group knapsack with back-pointers ({@code choice[l][c]}: the GPUs allocation {@code l} gets
     * when the first {@code l + 1} allocations share at most {@code c}; 0 for an allocation with nothing to give).
     */
    private static double solveInstant(Instant inst, int[][] opts, double[] lambda, double[] paid, Scratch s) {
        int cap = inst.capacity();
        int leaves = opts.length;
        double[] best = s.best;
        double[] next = s.next;
        java.util.Arrays.fill(best, 0, cap + 1, 0);
        for (int l = 0; l < leaves; l++) {
            int[] ch = s.choice[l];
            java.util.Arrays.fill(ch, 0, cap + 1, 0);
            if (opts[l].length == 0) {
                continue;
            }
            double q = inst.demands()[l].quotaGpus();
            double w = 1 + lambda[l];
            System.arraycopy(best, 0, next, 0, cap + 1);
            for (int x : opts[l]) {
                double v = w * Math.min(x, q);
                for (int c = cap; c >= x; c--) {
                    double cand = best[c - x] + v;
                    if (cand > next[c]) {
                        next[c] = cand;
                        ch[c] = x;
                    }
                }
            }
            double[] swap = best;
            best = next;
            next = swap;
        }
        s.best = best;
        s.next = next;
        int c = cap;
        for (int l = leaves - 1; l >= 0; l--) {
            int x = s.choice[l][c];
            if (x > 0) {
                paid[l] += inst.count() * Math.min(x, inst.demands()[l].quotaGpus());
                c -= x;
            }
        }
        return inst.count() * best[cap];
    }
}
