package dev.allot.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.allocation.FairShare;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FairShareTest {
    private static final long H = 3600;

    /** lab > {nlp 50: {pretrain 1, posttrain 1}, vision 50: {video 1}} on 4 x 8 GPUs. */
    private static ClusterState state() {
        ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("n1", 8), NodeSpec.of("n2", 8), NodeSpec.of("n3", 8),
                NodeSpec.of("n4", 8)), List.of());
        AllocationTree tree = AllocationTree.builder("lab")
                .child("nlp", 50).leaf("pretrain", 1).leaf("posttrain", 1).up()
                .child("vision", 50).leaf("video", 1).up().build();
        return new ClusterState(cluster, tree, SchedulerConfig.defaults(), 0);
    }

    private static Job start(ClusterState s, String id, String alloc, int node, int gpus) {
        Job j = s.register(WorkloadSpec.builder(id).allocation(alloc).gpus(gpus).minRuntime(Duration.ofMinutes(1))
                .duration(Duration.ofHours(10)).build());
        s.submit(j, 0);
        s.start(j, new Placement(new int[] {node}, new int[] {gpus}), 0);
        return j;
    }

    private static String[] order(FairShare fs, ClusterState s) {
        return Arrays.stream(fs.leafOrder()).mapToObj(l -> s.tree().leafName(l)).toArray(String[]::new);
    }

    @Test
    void siblingsAreRankedByUsageOverEntitlementLevelByLevel() {
        ClusterState s = state();
        // pretrain used a lot, posttrain nothing: nlp as a whole used more than vision
        Job p1 = start(s, "p1", "pretrain", 0, 8);
        Job v1 = start(s, "v1", "video", 1, 4);
        s.complete(p1, 10 * H);
        s.complete(v1, 10 * H);
        FairShare fs = new FairShare(s.tree(), 32, s.ledger().windowSeconds());
        fs.reset(s);
        // vision ranks first at the top level although posttrain, inside nlp, used nothing at all
        assertThat(order(fs, s)).containsExactly("video", "posttrain", "pretrain");
        int video = s.tree().leaf("video").orElseThrow();
        int posttrain = s.tree().leaf("posttrain").orElseThrow();
        int pretrain = s.tree().leaf("pretrain").orElseThrow();
        assertThat(fs.ranksAbove(video, posttrain)).isTrue();
        assertThat(fs.ranksAbove(posttrain, video)).isFalse();
        assertThat(fs.ranksAbove(posttrain, pretrain)).isTrue();
    }

    @Test
    void committedProtectedTimeCountsAsUsage() {
        ClusterState s = state();
        Job j = s.register(WorkloadSpec.builder("p").allocation("pretrain").gpus(8).minRuntime(Duration.ofHours(8)).build());
        s.submit(j, 0);
        s.start(j, new Placement(new int[] {0}, new int[] {8}), 0);
        FairShare fs = new FairShare(s.tree(), 32, s.ledger().windowSeconds());
        fs.reset(s);
        assertThat(fs.usageGpuSeconds(s.tree().leafNode(s.tree().leaf("pretrain").orElseThrow()))).isEqualTo(8 * 8 * H);
        assertThat(order(fs, s)).containsExactly("video", "posttrain", "pretrain");
    }

    @Test
    void chargingInACycleMovesAnAllocationDownAtOnce() {
        ClusterState s = state();
        FairShare fs = new FairShare(s.tree(), 32, s.ledger().windowSeconds());
        fs.reset(s);
        assertThat(order(fs, s)).containsExactly("posttrain", "pretrain", "video");
        fs.charge(s.tree().leaf("posttrain").orElseThrow(), 1000);
        assertThat(order(fs, s)).containsExactly("video", "pretrain", "posttrain");
    }

    @Test
    void tiesNeverPreempt() {
        ClusterState s = state();
        FairShare fs = new FairShare(s.tree(), 32, s.ledger().windowSeconds());
        fs.reset(s);
        assertThat(fs.ranksAbove(0, 1)).isFalse();
        assertThat(fs.ranksAbove(1, 0)).isFalse();
    }
}
