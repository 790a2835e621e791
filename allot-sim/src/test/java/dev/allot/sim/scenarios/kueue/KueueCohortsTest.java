package dev.allot.sim.scenarios.kueue;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Kueue: one flat cohort against cohorts that follow the allocation tree. */
class KueueCohortsTest {

    /**
     * org1 {a1, a2} and org2 {b1}, equal shares at each level: nominal 4, 4 and 8 of 16 GPUs. a1 borrows 2, b1
     * borrows 2, a2 runs nothing; then a2 asks for 2 GPUs, within its nominal quota, so it reclaims from a borrower.
     */
    private static ScenarioBuilder scenario() {
        List<ScenarioBuilder.W> ws = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            ws.add(w("x" + i).in("a1").gpus(2).runs("10h").at("0s"));
        }
        for (int i = 1; i <= 5; i++) {
            ws.add(w("y" + i).in("b1").gpus(2).runs("10h").at("0s"));
        }
        ws.add(w("z").in("a2").gpus(2).runs("1h").at("1h"));
        return given().nodes(2, 8)
                .allocations(t -> t.child("org1", 1).leaf("a1", 1).leaf("a2", 1).up().child("org2", 1).leaf("b1", 1).up())
                .workloads(ws);
    }

    @Test
    void inOneCohortTheClusterQueueWithTheHighestShareGivesBack() {
        // flat: a1 borrows 2 at weight 0.25 (share 500), b1 2 at weight 0.5 (250): a1 gives back
        Run run = scenario().run("kueue");
        assertThat(run.story()).filteredOn(l -> l.startsWith("1h ")).first().asString()
                .startsWith("1h preempt x1 by z fair_share");
    }

    @Test
    void withHierarchicalCohortsTheBorrowingOrganisationGivesBack() {
        // by organisation: org1 with z uses exactly its 8 GPUs (share 0) while org2 borrows 2: b1 gives back
        Run run = scenario().set("kueue.hierarchical-cohorts", "true").run("kueue");
        assertThat(run.story()).filteredOn(l -> l.startsWith("1h ")).first().asString()
                .startsWith("1h preempt y1 by z fair_share");
    }
}
