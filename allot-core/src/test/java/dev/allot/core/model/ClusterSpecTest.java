package dev.allot.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ClusterSpec}'s answers about its nodes. */
class ClusterSpecTest {
    @Test
    void nodesWithAtLeastCountsTheNodesOfThatManyGpusOrMore() {
        // given nodes of 8, 4, 8 and 2 GPUs
        ClusterSpec c = new ClusterSpec(List.of(NodeSpec.of("a", 8), NodeSpec.of("b", 4), NodeSpec.of("c", 8),
                NodeSpec.of("d", 2)), List.of());
        // then each count is the nodes with at least that many; none beyond the largest; every node at zero or less
        assertThat(List.of(-1, 0, 1, 2, 3, 4, 5, 8, 9, 100).stream().map(c::nodesWithAtLeast).toList())
                .containsExactly(4, 4, 4, 4, 3, 3, 2, 2, 0, 0);
    }
}
