package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Kueue's fair sharing page proves that "two workloads won't preempt each other": if workload A (pending) may
 * preempt workload B of another ClusterQueue, then once A is admitted and B requeued, B may not preempt A. Checked
 * here on seeded random flat cohorts with the production {@link KueuePolicy}: one instant in which A evicts exactly
 * one workload B of another ClusterQueue, then the state after it (A admitted last, B waiting) given to a fresh
 * policy, which remembers no eviction (so its own guard against loops plays no part), must not evict A for B.
 */
class FairPreemptionNoLoopTest {

    @Test
    void aWorkloadThatWasPreemptedCannotPreemptItsPreemptorBack() {
        SplittableRandom rnd = new SplittableRandom(2024);
        int preemptions = 0;
        for (int trial = 0; trial < 500; trial++) {
            int cqs = 2 + rnd.nextInt(3);
            String[] names = new String[cqs];
            int[] nominal = new int[cqs];
            int total = 0;
            for (int q = 0; q < cqs; q++) {
                names[q] = "q" + q;
                nominal[q] = rnd.nextInt(9);
                total += nominal[q];
            }
            if (total == 0) {
                continue;
            }
            KueueCluster before = KueueCluster.flat(names, nominal);
            int ids = 0;
            for (int free = total; free > 0; ) {
                int g = Math.min(1 + rnd.nextInt(4), free);
                before.admitted("w" + ids++, names[rnd.nextInt(cqs)], g, Priority.NORMAL);
                free -= g;
            }
            String x = names[rnd.nextInt(cqs)];
            before.waiting("A", x, Math.min(1 + rnd.nextInt(4), total), Priority.NORMAL);
            List<String> decided = before.decide();
            List<String> evicted = decided.stream().filter(d -> d.startsWith("preempt ")).toList();
            if (evicted.size() != 1 || !decided.contains("start A")) {
                continue;
            }
            Job victim = before.state().job(evicted.get(0).substring("preempt ".length())).orElseThrow();
            if (victim.spec().allocation().equals(x)) {
                continue;
            }
            preemptions++;
            KueueCluster after = KueueCluster.flat(names, nominal);
            before.state().jobs().stream().filter(j -> j.state() == JobState.RUNNING)
                    .sorted(Comparator.comparingLong(Job::attemptStartSeconds).thenComparing(Job::id))
                    .forEach(j -> after.admitted(j.id(), j.spec().allocation(), j.gpus(), Priority.NORMAL));
            after.waiting(victim.id(), victim.spec().allocation(), victim.gpus(), Priority.NORMAL);
            assertThat(after.decide()).as("trial %d: A preempted %s, which may not preempt A back", trial, victim.id())
                    .doesNotContain("preempt A");
        }
        assertThat(preemptions).as("the trials exercise preemption").isGreaterThan(100);
    }
}
