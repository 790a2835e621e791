package dev.allot.sim.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The most of what is owed whole jobs can pay at one instant, by hand and against brute force. */
class OwedKnapsackTest {
    private static OwedKnapsack.Demand demand(double quota, int... jobs) {
        int[] counts = new int[jobs.length];
        java.util.Arrays.fill(counts, 1);
        return new OwedKnapsack.Demand(quota, jobs, counts);
    }

    @Test
    void aGangLargerThanItsQuotaCannotBePaidBesideAnotherAllocationsWholeQuota() {
        // given 8 GPUs, A owed 4 with one 8-GPU job and B owed 4 with four 1-GPU jobs
        OwedKnapsack.Demand a = demand(4, 8);
        OwedKnapsack.Demand b = new OwedKnapsack.Demand(4, new int[] {1}, new int[] {4});
        // then either A's gang (paying 4 of A's 4) or B's jobs (4 of 4), never both: 4 of the 8 owed
        assertThat(Math.min(a.quotaGpus(), a.totalGpus()) + Math.min(b.quotaGpus(), b.totalGpus())).isEqualTo(8.0);
        assertThat(OwedKnapsack.mostPaid(8, new OwedKnapsack.Demand[] {a, b})).isEqualTo(4.0);
        // with 12 GPUs both are paid in full
        assertThat(OwedKnapsack.mostPaid(12, new OwedKnapsack.Demand[] {a, b})).isEqualTo(8.0);
    }

    @Test
    void anAllocationIsGivenNoMoreThanTheSmallestJobSetThatCoversItsQuota() {
        // given A owed 4 with jobs of 3 and 3, B owed 4 with one job of 4, on 8 GPUs
        OwedKnapsack.Demand a = demand(4, 3, 3);
        OwedKnapsack.Demand b = demand(4, 4);
        // then A's 3 and B's 4 pay 7; A's 6 (worth 4) and nothing for B pay only 4
        assertThat(OwedKnapsack.mostPaid(8, new OwedKnapsack.Demand[] {a, b})).isEqualTo(7.0);
    }

    @Test
    void aFractionalQuotaIsPaidAtMostItsValue() {
        OwedKnapsack.Demand a = demand(2.5, 1, 1, 1);
        assertThat(OwedKnapsack.mostPaid(8, new OwedKnapsack.Demand[] {a})).isEqualTo(2.5);
        assertThat(OwedKnapsack.mostPaid(2, new OwedKnapsack.Demand[] {a})).isEqualTo(2.0);
    }

    @Test
    void reachableCountsAreExactAcrossWordBoundaries() {
        // 40 jobs of 3 GPUs and 2 of 64 on 200 GPUs: every 3k (k <= 40), plus 64 or 128 more, up to 200
        OwedKnapsack.Demand d = new OwedKnapsack.Demand(1000, new int[] {3, 64}, new int[] {40, 2});
        long[] reach = OwedKnapsack.reachable(d, 200);
        for (int x = 0; x <= 200; x++) {
            boolean expected = false;
            for (int big = 0; big <= 2 && !expected; big++) {
                int rest = x - 64 * big;
                expected = rest >= 0 && rest % 3 == 0 && rest / 3 <= 40;
            }
            assertThat(OwedKnapsack.get(reach, x)).as("%d reachable", x).isEqualTo(expected);
        }
    }

    @Test
    void equalsBruteForceOnRandomSmallInstances() {
        Random random = new Random(7);
        for (int round = 0; round < 300; round++) {
            int capacity = 1 + random.nextInt(70);
            int allocations = 1 + random.nextInt(3);
            OwedKnapsack.Demand[] demands = new OwedKnapsack.Demand[allocations];
            List<int[]> jobs = new ArrayList<>();
            for (int l = 0; l < allocations; l++) {
                int n = random.nextInt(5);
                int[] sizes = new int[n];
                for (int i = 0; i < n; i++) {
                    sizes[i] = 1 + random.nextInt(random.nextBoolean() ? 4 : 40);
                }
                jobs.add(sizes);
                demands[l] = demand(random.nextInt(capacity + 1) + random.nextDouble(), sizes);
            }
            assertThat(OwedKnapsack.mostPaid(capacity, demands)).as("round %d", round)
                    .isCloseTo(bruteForce(capacity, demands, jobs), within(1e-9));
        }
    }

    /** Every subset of every allocation's jobs, by enumeration. */
    private static double bruteForce(int capacity, OwedKnapsack.Demand[] demands, List<int[]> jobs) {
        return best(0, capacity, demands, jobs);
    }

    private static double best(int l, int left, OwedKnapsack.Demand[] demands, List<int[]> jobs) {
        if (l == demands.length) {
            return 0;
        }
        int[] sizes = jobs.get(l);
        double best = 0;
        for (int mask = 0; mask < (1 << sizes.length); mask++) {
            int sum = 0;
            for (int i = 0; i < sizes.length; i++) {
                if ((mask & (1 << i)) != 0) {
                    sum += sizes[i];
                }
            }
            if (sum <= left) {
                best = Math.max(best, Math.min(sum, demands[l].quotaGpus()) + best(l + 1, left - sum, demands, jobs));
            }
        }
        return best;
    }
}
