package dev.allot.sim.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.generate.GeneratorSpec.Program;
import dev.allot.sim.generate.GeneratorSpec.Team;
import dev.allot.sim.input.NodeGroup;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Presets, their lookup, the cluster and tree they describe, overrides and validation. */
class GeneratorSpecTest {
    private static final GeneratorSpec LAB = GeneratorSpec.preset("lab");

    @Test
    void presetsAreNamedAndAnUnknownNameListsTheValidOnes() {
        assertThat(GeneratorSpec.presetNames()).containsExactly("lab", "big");
        assertThat(GeneratorSpec.preset("big").name()).isEqualTo("big");
        assertThatThrownBy(() -> GeneratorSpec.preset("huge"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'huge'")
                .hasMessageContaining("lab, big");
    }

    @Test
    void labIsThirtyTwoH100NodesInFourRacks() {
        List<NodeGroup> groups = LAB.nodeGroups();
        List<NodeSpec> nodes = NodeGroup.expandAll(groups);

        assertThat(groups).hasSize(4);
        assertThat(nodes).hasSize(32);
        assertThat(nodes).allSatisfy(n -> {
            assertThat(n.gpus()).isEqualTo(8);
            assertThat(n.gpuType()).isEqualTo("h100");
        });
        assertThat(nodes.get(0).name()).isEqualTo("gpu-r1-01");
        assertThat(nodes.get(31).name()).isEqualTo("gpu-r4-08");
        assertThat(nodes).extracting(n -> n.labels().get("rack")).containsOnly("r1", "r2", "r3", "r4");
        assertThat(nodes.stream().filter(n -> n.labels().get("rack").equals("r3"))).hasSize(8);
        assertThat(LAB.totalGpus()).isEqualTo(256);
        assertThat(LAB.days()).isEqualTo(14);
    }

    @Test
    void labTreeHasFifteenLeavesUnderFourProgramsWithUnevenShares() {
        AllocationTree tree = LAB.tree();
        int root = 0;

        assertThat(tree.leafCount()).isEqualTo(15);
        assertThat(tree.childrenCount(root)).isEqualTo(4);
        List<Double> programShares = new ArrayList<>();
        for (int c : tree.children(root)) {
            programShares.add(tree.entitlement(c));
        }
        assertThat(programShares).containsExactly(0.45, 0.25, 0.20, 0.10);
        for (int leaf = 0; leaf < tree.leafCount(); leaf++) {
            assertThat(tree.depth(tree.leafNode(leaf))).isEqualTo(2);
        }
    }

    @Test
    void everyWorkloadNamesALeafAndIdsAreZeroPaddedInSubmissionOrder() {
        GeneratedScenario g = ScenarioGenerator.generate(LAB, 11);
        AllocationTree tree = g.tree();
        Set<String> ids = new HashSet<>();
        long previous = 0;
        for (int i = 0; i < g.workloads().size(); i++) {
            WorkloadSpec w = g.workloads().get(i);
            assertThat(tree.leaf(w.allocation())).as(w.allocation()).isPresent();
            assertThat(w.id()).isEqualTo(String.format("w%06d", i + 1));
            assertThat(ids.add(w.id())).isTrue();
            assertThat(w.submitSeconds()).isGreaterThanOrEqualTo(previous).isLessThan(LAB.horizonSeconds());
            previous = w.submitSeconds();
        }
        assertThat(ScenarioGenerator.workloadId(1_234_567, 6)).isEqualTo("w1234567");
    }

    @Test
    void overridesKeepTheRegimeAndScaleTheVolume() {
        GeneratedScenario base = ScenarioGenerator.generate(LAB, 4);
        int n = base.workloads().size();

        GeneratorSpec week = LAB.withDays(7);
        GeneratedScenario oneWeek = ScenarioGenerator.generate(week, 4);
        assertThat(oneWeek.workloads()).allMatch(w -> w.submitSeconds() < 7 * 86_400L);
        assertThat(oneWeek.workloads().size()).isBetween((int) (0.45 * n), (int) (0.55 * n));
        assertThat(oneWeek.healthEvents()).allMatch(e -> e.atSeconds() < 7 * 86_400L);

        GeneratorSpec doubled = LAB.withNodes(64);
        assertThat(doubled.totalGpus()).isEqualTo(512);
        assertThat(NodeGroup.expandAll(doubled.nodeGroups())).hasSize(64);
        GeneratedScenario twice = ScenarioGenerator.generate(doubled, 4);
        assertThat(twice.workloads().size()).isBetween((int) (1.9 * n), (int) (2.1 * n));
        assertThat(LoadStats.allocatedLoad(twice, 14)).isBetween(0.8, 1.0);

        GeneratedScenario half = ScenarioGenerator.generate(LAB.withWorkloadScale(0.5), 4);
        assertThat(half.workloads().size()).isBetween((int) (0.45 * n), (int) (0.55 * n));
        assertThat(LoadStats.allocatedLoad(half, 14) / LoadStats.allocatedLoad(base, 14)).isBetween(0.42, 0.58);

        assertThat(NodeGroup.expandAll(LAB.withNodes(10).nodeGroups())).hasSize(10);
        assertThat(LAB.withNodes(10).nodeGroups()).extracting(NodeGroup::count).containsExactly(3, 3, 2, 2);
    }

    @Test
    void invalidSpecsAreRejectedWithAReason() {
        Program clash = new Program("foundation", 1, List.of(
                new Team("vision", 1, 1, GeneratorSpec.Activity.STEADY, 1, false, Map.of())));
        List<Program> programs = new ArrayList<>(LAB.programs());
        programs.add(clash);
        assertThatThrownBy(() -> new GeneratorSpec("x", LAB.cluster(), 14, "lab", programs, LAB.kinds(),
                LAB.bursts(), LAB.failures(), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'foundation' is used twice");

        Program unknownKind = new Program("extra", 1, List.of(
                new Team("newteam", 1, 1, GeneratorSpec.Activity.STEADY, 1, false, Map.of("pretraining", 1.0))));
        List<Program> more = new ArrayList<>(LAB.programs());
        more.add(unknownKind);
        assertThatThrownBy(() -> new GeneratorSpec("x", LAB.cluster(), 14, "lab", more, LAB.kinds(),
                LAB.bursts(), LAB.failures(), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown kind 'pretraining'");

        assertThatThrownBy(() -> LAB.withDays(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAB.withFailures(33)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAB.withWorkloadScale(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void apportionGivesExactTotalsInProportion() {
        assertThat(VolumeSplit.apportion(10, new double[] {1, 1, 1})).containsExactly(4, 3, 3);
        assertThat(VolumeSplit.apportion(7, new double[] {0, 2, 5})).containsExactly(0, 2, 5);
        assertThat(VolumeSplit.apportion(5, new double[] {0, 0})).containsExactly(0, 0);
    }
}
