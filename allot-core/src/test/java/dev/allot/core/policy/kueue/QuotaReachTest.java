package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link QuotaReach} against the search it stands in front of: on random flat cohorts (quotas, weights, admitted
 * workloads), whenever {@link FairPreemption#find} finds targets for a preemptor that borrows, the bound must say the
 * quota can be reached; and it must say "no" often, or it would save nothing.
 */
class QuotaReachTest {
    private record Item(int cq, long gpus) {
    }

    private static final FairPreemption.Sizes<Item> SIZES = new FairPreemption.Sizes<>() {
        @Override
        public int cq(Item i) {
            return i.cq();
        }

        @Override
        public long gpus(Item i) {
            return i.gpus();
        }
    };

    @Test
    void neverRulesOutASearchThatFindsTargets() {
        Random random = new Random(7);
        int found = 0;
        int ruledOut = 0;
        for (int round = 0; round < 20_000; round++) {
            int cqs = 2 + random.nextInt(5);
            Cohorts.Builder b = Cohorts.builder("root");
            long[] nominal = new long[cqs];
            for (int q = 0; q < cqs; q++) {
                nominal[q] = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(8);
                b.clusterQueue("cq" + q, 0, nominal[q], random.nextInt(5) == 0 ? 0 : 0.5 + random.nextInt(4));
            }
            Cohorts cohorts = b.build();
            long total = 0;
            for (long n : nominal) {
                total += n;
            }
            // admitted workloads up to the cluster's quota
            List<List<Item>> lists = new ArrayList<>();
            long[] admitted = new long[cqs];
            long used = 0;
            for (int q = 0; q < cqs; q++) {
                lists.add(new ArrayList<>());
            }
            for (int k = random.nextInt(12); k > 0 && used < total; k--) {
                int q = random.nextInt(cqs);
                long g = Math.min(total - used, 1 + random.nextInt(random.nextBoolean() ? 2 : 6));
                lists.get(q).add(new Item(q, g));
                admitted[q] += g;
                used += g;
            }
            cohorts.setUsage(admitted);
            int x = random.nextInt(cqs);
            long gpus = 1 + random.nextInt(8);
            // the preemptor's own list holds its lower-priority workloads: some prefix of its admitted ones
            int ownCount = lists.get(x).isEmpty() ? 0 : random.nextInt(lists.get(x).size() + 1);
            long own = 0;
            for (int i = 0; i < ownCount; i++) {
                own += lists.get(x).get(i).gpus();
            }
            List<FairPreemption.Candidates<Item>> byCq = new ArrayList<>();
            for (int q = 0; q < cqs; q++) {
                FairPreemption.Candidates<Item> c = FairPreemption.Candidates.of(lists.get(q), SIZES);
                byCq.add(q == x ? c.limit(ownCount) : c);
            }
            boolean[] eligible = new boolean[cqs];
            for (int q = 0; q < cqs; q++) {
                eligible[q] = q != x && admitted[q] > 0;
            }
            boolean reachable = QuotaReach.reachable(cohorts, x, gpus, own, eligible, admitted, byCq);
            List<FairPreemption.Target<Item>> targets = FairPreemption.find(cohorts, x, gpus, byCq, SIZES,
                    FairPreemption.Room.unlimited(), i -> true, FairPreemption.DEFAULT_STRATEGIES);
            if (targets != null) {
                found++;
                assertThat(reachable).as("round %d: %s found targets %s", round, "cq" + x, targets).isTrue();
            }
            if (!reachable) {
                ruledOut++;
            }
        }
        assertThat(found).isGreaterThan(1_000);
        assertThat(ruledOut).isGreaterThan(1_000);
    }
}
