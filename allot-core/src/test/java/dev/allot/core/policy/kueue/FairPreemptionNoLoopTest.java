package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Kueue's fair sharing page proves that "two workloads won't preempt each other": if workload A (pending) may
 * preempt workload B of another ClusterQueue, then once A is admitted and B requeued, B may not preempt A. Checked
 * here on seeded random cohorts.
 */
class FairPreemptionNoLoopTest {

    @Test
    void aWorkloadThatWasPreemptedCannotPreemptItsPreemptorBack() {
        SplittableRandom rnd = new SplittableRandom(2024);
        int preemptions = 0;
        for (int trial = 0; trial < 3000; trial++) {
            int cqs = 2 + rnd.nextInt(3);
            Cohorts.Builder b = Cohorts.builder("cohort");
            double[] weights = {0.5, 1, 2, 3};
            long total = 0;
            for (int q = 0; q < cqs; q++) {
                long nominal = rnd.nextInt(9);
                total += nominal;
                b.clusterQueue("q" + q, 0, nominal, weights[rnd.nextInt(weights.length)]);
            }
            Admitted s = new Admitted(b.build());
            int ids = 0;
            while (s.cohorts.available() > 0) {
                int q = rnd.nextInt(cqs);
                long g = Math.min(1 + rnd.nextInt(4), s.cohorts.available());
                s.admit("w" + ids++, q, g, 0);
            }
            int x = rnd.nextInt(cqs);
            long g = 1 + rnd.nextInt(4);
            if (total == 0) {
                continue;
            }
            List<FairPreemption.Target<Admitted.W>> t = s.targetsFor(x, g, 0);
            if (t == null || t.size() != 1 || t.get(0).cq() == x) {
                continue;
            }
            preemptions++;
            Admitted.W victim = t.get(0).workload();
            s.evict(victim);
            Admitted.W a = s.admit("A", x, g, 0);
            // B asks again, with only A as a candidate
            List<FairPreemption.Candidates<Admitted.W>> byCq = new ArrayList<>();
            for (int q = 0; q < cqs; q++) {
                byCq.add(FairPreemption.Candidates.of(q == x ? List.of(a) : List.of(), Admitted.SIZES));
            }
            List<FairPreemption.Target<Admitted.W>> back = FairPreemption.find(s.cohorts, victim.cq(), victim.gpus(), byCq,
                    Admitted.SIZES, FairPreemption.Room.unlimited(), w -> true, FairPreemption.DEFAULT_STRATEGIES);
            assertThat(back).as("trial %d: %s preempted %s and may not be preempted back", trial, a, victim).isNull();
        }
        assertThat(preemptions).as("the trials exercise preemption").isGreaterThan(100);
    }
}
