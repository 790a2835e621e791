package dev.allot.core.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ClusterState#rerank}: the order of jobs of one priority submitted in the same second, and nothing else. */
class ClusterStateRerankTest {
    private static ClusterState state() {
        ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("n1", 8)), List.of());
        AllocationTree tree = AllocationTree.builder("lab").leaf("A", 1).leaf("B", 1).build();
        return new ClusterState(cluster, tree, SchedulerConfig.defaults(), 0);
    }

    private static Job waiting(ClusterState s, String id, long submit, Priority p) {
        Job j = s.register(WorkloadSpec.builder(id).allocation("A").gpus(1).submitAt(submit)
                .minRuntime(Duration.ZERO).priority(p).resumable().build());
        s.submit(j, submit);
        return j;
    }

    @Test
    void aLowerRankGoesFirstAmongJobsOfOnePrioritySubmittedTogether() {
        ClusterState s = state();
        Job a = waiting(s, "c-s0", 0, Priority.NORMAL);
        Job b = waiting(s, "c-s1", 0, Priority.NORMAL);
        Job c = waiting(s, "c-s2", 0, Priority.NORMAL);
        assertThat(s.pending().bestHead(0, false)).isSameAs(a); // all rank 0: the id decides, as before
        s.rerank(a, 2);
        s.rerank(b, 1);
        s.rerank(c, 0);
        assertThat(s.pending().bestHead(0, false)).isSameAs(c);
        assertThat(s.pending().shapeQueues(0, false).get(c.shape())).containsExactly(c, b, a);
        assertThat(s.pending().count(0, false)).isEqualTo(3);
    }

    @Test
    void theRankNeverOvertakesPriorityOrAnEarlierSubmission() {
        ClusterState s = state();
        Job early = waiting(s, "x-early", 0, Priority.NORMAL);
        Job urgent = waiting(s, "x-urgent", 60, Priority.HIGH);
        Job shard = waiting(s, "c-s0", 60, Priority.NORMAL);
        s.rerank(shard, -5);
        s.rerank(early, 7);
        assertThat(s.pending().shapeQueues(0, false).get(shard.shape())).containsExactly(urgent, early, shard);
    }

    @Test
    void aRunningJobKeepsItsRankForWhenItWaitsAgainAndAnEndedOneCannotBeRanked() {
        ClusterState s = state();
        Job a = waiting(s, "c-s0", 0, Priority.NORMAL);
        Job b = waiting(s, "c-s1", 0, Priority.NORMAL);
        s.start(a, new Placement(new int[] {0}, new int[] {1}), 0);
        s.rerank(a, 3);
        assertThat(a.queueRank()).isEqualTo(3);
        s.preempt(a, 60);
        assertThat(s.pending().shapeQueues(0, false).get(a.shape())).containsExactly(b, a);
        s.cancel(b, 60);
        assertThatThrownBy(() -> s.rerank(b, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot rerank c-s1: it ended (CANCELLED)");
    }
}
