package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.state.Placement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The loop's live attempts: found by node and by workload as they are put, removed and re-placed. */
class LiveAttemptsTest {
    private static LiveAttempt attempt(String job, int n, int[] nodes) {
        int[] gpus = new int[nodes.length];
        int[][] lanes = new int[nodes.length][];
        for (int i = 0; i < nodes.length; i++) {
            gpus[i] = 1;
            lanes[i] = new int[] {0};
        }
        return new LiveAttempt(new AttemptKey(job, n), job, List.of(), 0, new Placement(nodes, gpus), lanes);
    }

    @Test
    void attemptsAreFoundOnTheirNodesAndByWorkloadUntilRemoved() {
        LiveAttempts live = new LiveAttempts();
        LiveAttempt a = attempt("w-1", 1, new int[] {0, 2});
        LiveAttempt b = attempt("w-2", 1, new int[] {2});
        LiveAttempt b2 = attempt("w-2", 2, new int[] {3});
        live.put(a.key, a);
        live.put(b.key, b);
        live.put(b2.key, b2);
        assertThat(live.onNode(0)).containsExactly(a);
        assertThat(live.onNode(2)).containsExactlyInAnyOrder(a, b);
        assertThat(live.onNode(1)).isEmpty();
        assertThat(live.values()).containsExactly(a, b, b2); // key order
        live.remove(b.key);
        assertThat(live.hasJob("w-2")).as("w-2 still has its second attempt").isTrue();
        assertThat(live.onNode(2)).containsExactly(a);
        live.remove(b2.key);
        assertThat(live.hasJob("w-2")).isFalse();
        assertThat(live.hasJob("w-1")).isTrue();
        assertThat(live.remove(b2.key)).isNull();
    }

    @Test
    void aChangedPlacementIsFoundOnItsNewNodesAfterAReindexAndRemovedFromEither() {
        LiveAttempts live = new LiveAttempts();
        LiveAttempt a = attempt("w-1", 1, new int[] {5});
        LiveAttempt b = attempt("w-2", 1, new int[] {5});
        live.put(a.key, a);
        live.put(b.key, b);
        a.placement = new Placement(new int[] {1}, new int[] {1}); // the core's nodes changed
        live.remove(a.key); // before a reindex: taken out from where it was put
        assertThat(live.onNode(5)).containsExactly(b);
        b.placement = null; // none of its GPUs remain
        live.reindex();
        assertThat(live.onNode(5)).isEmpty();
        assertThat(live.hasJob("w-2")).isTrue();
        live.put(a.key, a);
        assertThat(live.onNode(1)).containsExactly(a);
        live.clear();
        assertThat(live.onNode(1)).isEmpty();
        assertThat(live.values()).isEmpty();
    }
}
