package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Story 3 of Kueue's fair sharing design (KEP-1714): "CS contains a single CQ that is given 300 GPU nominal quota. C1
 * contains 3 CQ: 1A, 1B and 1C, among which 1C is considered to be 3 times more important than others. C2 contains
 * only one CQ: 2A. Each of the queues 1A, 1B, 1C and 2A has a long backlog of jobs to execute. [...] Both C1 and C2 get
 * 150 GPUs each [...] Inside C1, out of these 150 GPUs, 1A gets 30, 1B gets 30 and 1C gets 90 GPUs."
 *
 * <p>The production {@link KueuePolicy} with {@code hierarchical-cohorts} on 30 nodes of 10 GPUs, backlogs of
 * 10-GPU workloads: its admission order and its preemption reach that split from any start, and then nothing moves.
 */
class KepStory3Test {

    private static KueueCluster story() {
        return KueueCluster.of(KepStory3.tree(), 30, 10,
                new KueuePolicy(true, false, Duration.ofDays(7), Duration.ofMinutes(5)));
    }

    private static void backlogs(KueueCluster k, List<String> queues) {
        for (String q : queues) {
            for (int i = 0; i < 30; i++) {
                k.waiting(q + "-new-" + i, q, 10, Priority.NORMAL);
            }
        }
    }

    @Test
    void theBorrowableCapacityIsSplitByWeightLevelByLevel() {
        KueueCluster k = story();
        for (int i = 0; i < 30; i++) {
            k.admitted("2A-" + i, "2A", 10, Priority.NORMAL);
        }
        backlogs(k, List.of("1A", "1B", "1C", "2A"));
        List<String> first = k.decide();
        assertThat(first).as("2A gives up half of what it borrowed").filteredOn(d -> d.startsWith("preempt 2A-")).hasSize(15);
        assertThat(k.runningGpus("2A")).isEqualTo(150);
        assertThat(k.runningGpus("1A")).isEqualTo(30);
        assertThat(k.runningGpus("1B")).isEqualTo(30);
        assertThat(k.runningGpus("1C")).isEqualTo(90);
        // at the fair split every share is equal at each level: no strategy lets anyone take more
        assertThat(k.decide()).isEmpty();
    }

    @Test
    void withoutC2TheWholeQuotaIsSplitInsideC1() {
        KueueCluster k = story();
        backlogs(k, List.of("1A", "1B", "1C"));
        k.decide();
        assertThat(k.runningGpus("1A")).isEqualTo(60);
        assertThat(k.runningGpus("1B")).isEqualTo(60);
        assertThat(k.runningGpus("1C")).isEqualTo(180);
        assertThat(k.decide()).isEmpty();
    }
}
