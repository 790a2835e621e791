package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Story 3 of Kueue's fair sharing design (KEP-1714): "CS contains a single CQ that is given 300 GPU nominal quota. C1
 * contains 3 CQ: 1A, 1B and 1C, among which 1C is considered to be 3 times more important than others. C2 contains
 * only one CQ: 2A. Each of the queues 1A, 1B, 1C and 2A has a long backlog of jobs to execute. [...] Both C1 and C2 get
 * 150 GPUs each [...] Inside C1, out of these 150 GPUs, 1A gets 30, 1B gets 30 and 1C gets 90 GPUs."
 *
 * <p>Admission (the tournament) and preemption (the strategies) reach that split from any start; here 2A starts
 * with all 300 GPUs and the others' backlogs arrive after, in 10-GPU workloads.
 */
class KepStory3Test {

    @Test
    void theBorrowableCapacityIsSplitByWeightLevelByLevel() {
        Admitted s = new Admitted(KepStory3.cohorts());
        for (int i = 0; i < 30; i++) {
            s.admit("2A-" + i, KepStory3.Q2A, 10, 0);
        }
        runToFixedPoint(s, List.of(KepStory3.Q1A, KepStory3.Q1B, KepStory3.Q1C, KepStory3.Q2A));
        assertThat(s.usage(KepStory3.Q2A)).isEqualTo(150);
        assertThat(s.usage(KepStory3.Q1A)).isEqualTo(30);
        assertThat(s.usage(KepStory3.Q1B)).isEqualTo(30);
        assertThat(s.usage(KepStory3.Q1C)).isEqualTo(90);
        // at the fair split every share is equal at each level: no strategy lets anyone take more
        Cohorts c = s.cohorts;
        assertThat(c.share(c.parent(c.cqNode(KepStory3.Q1A))).weighted())
                .isEqualTo(c.share(c.parent(c.cqNode(KepStory3.Q2A))).weighted());
        assertThat(c.share(c.cqNode(KepStory3.Q1A)).weighted()).isEqualTo(c.share(c.cqNode(KepStory3.Q1C)).weighted());
    }

    @Test
    void withoutC2TheWholeQuotaIsSplitInsideC1() {
        Admitted s = new Admitted(KepStory3.cohorts());
        runToFixedPoint(s, List.of(KepStory3.Q1A, KepStory3.Q1B, KepStory3.Q1C));
        assertThat(s.usage(KepStory3.Q1A)).isEqualTo(60);
        assertThat(s.usage(KepStory3.Q1B)).isEqualTo(60);
        assertThat(s.usage(KepStory3.Q1C)).isEqualTo(180);
    }

    /**
     * Kueue's scheduling cycles with endless backlogs of 10-GPU workloads in the given ClusterQueues: each cycle takes
     * every head in tournament order and admits it if it fits, or after the preemptions the strategies allow.
     */
    static void runToFixedPoint(Admitted s, List<Integer> backlogs) {
        int n = s.cohorts.cqCount();
        AdmissionTournament t = new AdmissionTournament(s.cohorts);
        int[] next = new int[n];
        boolean changed = true;
        for (int cycle = 0; changed; cycle++) {
            if (cycle > 1000) {
                throw new AssertionError("no fixed point after 1000 cycles");
            }
            changed = false;
            boolean[] present = new boolean[n];
            long[] gpus = new long[n];
            int[] prio = new int[n];
            long[] submit = new long[n];
            String[] id = new String[n];
            for (int q : backlogs) {
                present[q] = true;
                gpus[q] = 10;
                id[q] = s.cohorts.cqName(q) + "-new-" + next[q];
            }
            for (int k = 0; k < backlogs.size(); k++) {
                int q = t.winner(present, gpus, prio, submit, id);
                present[q] = false;
                if (s.cohorts.available() < 10) {
                    List<FairPreemption.Target<Admitted.W>> targets = s.targetsFor(q, 10, 0);
                    if (targets == null) {
                        continue;
                    }
                    targets.forEach(x -> s.evict(x.workload()));
                }
                s.admit(id[q], q, 10, 0);
                next[q]++;
                changed = true;
            }
        }
    }
}
