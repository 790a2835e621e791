package dev.allot.sim.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.input.NodeGroup;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The benchmark preset has the advertised size (its generation speed is measured by 'allot bench', not here). */
class GeneratorBigTest {
    private static final GeneratorSpec BIG = GeneratorSpec.preset("big");

    @Test
    void bigIsAThousandNodesForThirtyDaysWithFortyLeavesUnderSixPrograms() {
        assertThat(NodeGroup.expandAll(BIG.nodeGroups())).hasSize(1024);
        assertThat(BIG.totalGpus()).isEqualTo(8192);
        assertThat(BIG.nodeGroups()).hasSize(32);
        assertThat(BIG.days()).isEqualTo(30);
        AllocationTree tree = BIG.tree();
        assertThat(tree.childrenCount(0)).isEqualTo(6);
        assertThat(tree.leafCount()).isEqualTo(40);
    }

    @Test
    void bigHasAboutAHundredThousandWorkloads() {
        GeneratedScenario g = ScenarioGenerator.generate(BIG, 2);

        assertThat(g.workloads()).hasSizeBetween(99_000, 101_000);
        assertThat(g.healthEvents()).hasSize(12);
        // train 0.90 plus a day and a half of it at time 0: overloaded like the lab (0.95-0.96 over seeds 1-12)
        assertThat(LoadStats.allocatedLoad(g, 30)).isBetween(0.9, 1.0);
        assertThat(g.workloads().stream().filter(w -> w.submitSeconds() == 0))
                .hasSizeBetween(300, 450).allMatch(w -> w.kind().equals("train"));
        Set<String> ids = new HashSet<>();
        for (WorkloadSpec w : g.workloads()) {
            assertThat(ids.add(w.id())).isTrue();
            if (w.kind().equals("train")) {
                assertThat(w.gpusPerNode()).isEqualTo(8);
                assertThat(w.gpus()).isBetween(8, 1024);
            }
        }
        assertThat(g.workloads()).anyMatch(w -> w.gpus() == 1024);
        assertThat(LoadStats.countByKind(g)).containsOnlyKeys("debug", "train", "interactive", "eval", "sweep");
        assertThat(g.toScenario("big").workloads()).hasSize(g.workloads().size());
    }
}
