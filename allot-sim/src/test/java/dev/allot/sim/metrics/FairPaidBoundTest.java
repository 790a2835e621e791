package dev.allot.sim.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The bound with a floor for every allocation, on instants small enough to solve by hand. */
class FairPaidBoundTest {
    private static OwedKnapsack.Demand demand(double quota, int... jobs) {
        int[] counts = new int[jobs.length];
        java.util.Arrays.fill(counts, 1);
        return new OwedKnapsack.Demand(quota, jobs, counts);
    }

    /** Owed at one instant: min(quota, all the GPUs its jobs ask for). */
    private static double owed(OwedKnapsack.Demand d) {
        return Math.min(d.quotaGpus(), d.totalGpus());
    }

    private static FairPaidBound.Instant instant(long count, int capacity, OwedKnapsack.Demand... demands) {
        double[] owed = new double[demands.length];
        for (int l = 0; l < demands.length; l++) {
            owed[l] = owed(demands[l]);
        }
        return new FairPaidBound.Instant(count, capacity, demands, owed);
    }

    /**
     * Given 8 GPUs at 4 instants, A entitled to 2 with only an 8-GPU gang, B to 6 with six 1-GPU jobs: each instant
     * runs the gang (pays 2) or B's jobs (pays 6). Alone the best pays B every instant, 24 of the 32 owed, and A
     * nothing. A floor of a quarter each means the gang one instant in four: 2 + 3 x 6 = 20.
     */
    @Test
    void givenAGangOnlyTeamBesideSmallWorkPayingItItsFloorCostsTheOthersTheirs() {
        FairPaidBound f = new FairPaidBound();
        f.add(instant(4, 8, demand(2, 8), demand(6, 1, 1, 1, 1, 1, 1)));
        assertThat(f.solve(0).boundGpus()).as("no floor: the best of each instant").isEqualTo(24.0);
        assertThat(f.solve(0.25).boundGpus()).as("the gang one instant in four").isBetween(20.0, 20.0 + 0.05);
        assertThat(f.solve(0.95).boundGpus()).as("A's 95% leaves B far below its own").isNegative();
    }

    @Test
    void givenTwoTeamsThatCannotBothBePaidAtOnceNoScheduleGivesEachNinetyFivePercent() {
        FairPaidBound f = new FairPaidBound();
        // 8 GPUs; A (4) has only an 8-GPU gang, B (4) four 1-GPU jobs: whoever runs pays 4 of the 8 owed
        f.add(instant(4, 8, demand(4, 8), demand(4, 1, 1, 1, 1)));
        assertThat(f.solve(0.95).boundGpus()).as("each needs 95% of 16; at most 16 in all can be paid").isNegative();
        assertThat(f.solve(0.5).boundGpus()).as("half each: the gang two instants, B's jobs two").isBetween(16.0, 16.0 + 1e-6);
    }

    @Test
    void aRunTooLargeToSolveInTimeIsNotSolved() {
        FairPaidBound f = new FairPaidBound();
        int capacity = 100_000;
        // 100,000 GPU counts worth giving at each of 3 instants of 100,001 cells: 3e10 cells a step, so fewer than
        // MIN_STEPS steps fit in MAX_CELLS
        OwedKnapsack.Demand many = new OwedKnapsack.Demand(capacity, new int[] {1}, new int[] {capacity});
        for (int t = 0; t < 3; t++) {
            f.add(instant(1, capacity, many));
        }
        FairPaidBound.Result r = f.solve(0.95);
        assertThat(r.boundGpus()).isNaN();
        assertThat(r.steps()).isZero();
    }

    /** The bound never lies below what a feasible schedule pays, found by trying every choice on small random runs. */
    @Test
    void theBoundIsAtLeastTheBestScheduleThatPaysEveryAllocationTheFloor() {
        SplittableRandom random = new SplittableRandom(15);
        for (int round = 0; round < 200; round++) {
            int capacity = 4 + random.nextInt(9);
            int leaves = 2 + random.nextInt(2);
            int instants = 1 + random.nextInt(3);
            FairPaidBound f = new FairPaidBound();
            OwedKnapsack.Demand[][] all = new OwedKnapsack.Demand[instants][leaves];
            for (int t = 0; t < instants; t++) {
                for (int l = 0; l < leaves; l++) {
                    int[] jobs = new int[1 + random.nextInt(2)];
                    for (int j = 0; j < jobs.length; j++) {
                        jobs[j] = 1 + random.nextInt(capacity);
                    }
                    all[t][l] = demand((double) capacity / leaves, jobs);
                }
                f.add(instant(1, capacity, all[t]));
            }
            double floor = 0.5;
            double best = bruteForce(all, capacity, floor);
            FairPaidBound.Result r = f.solve(floor);
            if (best < 0) {
                continue; // infeasible: the dual may or may not prove it
            }
            assertThat(r.boundGpus()).as("round %d", round).isGreaterThanOrEqualTo(best - 1e-9);
        }
    }

    /** The best total over every choice of job subsets per instant that pays each allocation the floor; -1 if none. */
    private static double bruteForce(OwedKnapsack.Demand[][] all, int capacity, double floor) {
        int leaves = all[0].length;
        double[] owedSum = new double[leaves];
        for (OwedKnapsack.Demand[] inst : all) {
            for (int l = 0; l < leaves; l++) {
                owedSum[l] += owed(inst[l]);
            }
        }
        return search(all, 0, capacity, floor, new double[leaves], owedSum);
    }

    private static double search(OwedKnapsack.Demand[][] all, int t, int capacity, double floor, double[] paid,
                                 double[] owedSum) {
        int leaves = paid.length;
        if (t == all.length) {
            double total = 0;
            for (int l = 0; l < leaves; l++) {
                if (paid[l] < floor * owedSum[l] - 1e-9) {
                    return -1;
                }
                total += paid[l];
            }
            return total;
        }
        double best = -1;
        int[][] subsets = new int[leaves][];
        for (int l = 0; l < leaves; l++) {
            subsets[l] = sums(all[t][l]);
        }
        int[] idx = new int[leaves];
        while (true) {
            int used = 0;
            for (int l = 0; l < leaves; l++) {
                used += subsets[l][idx[l]];
            }
            if (used <= capacity) {
                double[] next = paid.clone();
                for (int l = 0; l < leaves; l++) {
                    next[l] += Math.min(subsets[l][idx[l]], all[t][l].quotaGpus());
                }
                best = Math.max(best, search(all, t + 1, capacity, floor, next, owedSum));
            }
            int l = 0;
            while (l < leaves && ++idx[l] == subsets[l].length) {
                idx[l++] = 0;
            }
            if (l == leaves) {
                return best;
            }
        }
    }

    /** Every GPU count a subset of the demand's jobs adds up to (with repeats; 0 included). */
    private static int[] sums(OwedKnapsack.Demand d) {
        int n = d.sizes().length;
        int[] out = new int[1 << n];
        for (int m = 0; m < out.length; m++) {
            for (int i = 0; i < n; i++) {
                if ((m & (1 << i)) != 0) {
                    out[m] += d.sizes()[i];
                }
            }
        }
        return out;
    }
}
