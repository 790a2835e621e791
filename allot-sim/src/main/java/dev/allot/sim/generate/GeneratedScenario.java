package dev.allot.sim.generate;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.input.NodeGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@link ScenarioGenerator} produces: the cluster as node groups plus health events, the allocation tree, the
 * workloads (sorted as {@link Scenario#sorted} sorts them) and the policy settings.
 *
 * <p>Equality compares the allocation tree by its structure (names, parents, shares and managers in preorder),
 * since {@link AllocationTree} itself has identity equality; two generations from the same spec and seed are equal.
 */
public record GeneratedScenario(List<NodeGroup> nodeGroups, List<HealthEvent> healthEvents, AllocationTree tree,
                                List<WorkloadSpec> workloads, PolicyConfig policyConfig) {
    public GeneratedScenario {
        nodeGroups = List.copyOf(nodeGroups);
        healthEvents = List.copyOf(healthEvents);
        Objects.requireNonNull(tree, "tree");
        workloads = List.copyOf(workloads);
        Objects.requireNonNull(policyConfig, "policyConfig");
    }

    /** A simulator scenario: the node groups expanded into a cluster with the health events. */
    public Scenario toScenario(String name) {
        ClusterSpec cluster = new ClusterSpec(NodeGroup.expandAll(nodeGroups), healthEvents);
        return new Scenario(name, cluster, tree, workloads, policyConfig, List.of());
    }

    /** GPUs in the cluster. */
    public int totalGpus() {
        int total = 0;
        for (NodeGroup g : nodeGroups) {
            total += g.count() * g.gpus();
        }
        return total;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GeneratedScenario other
                && nodeGroups.equals(other.nodeGroups)
                && healthEvents.equals(other.healthEvents)
                && treeShape(tree).equals(treeShape(other.tree))
                && workloads.equals(other.workloads)
                && policyConfig.equals(other.policyConfig);
    }

    @Override
    public int hashCode() {
        return Objects.hash(nodeGroups, healthEvents, treeShape(tree), workloads, policyConfig);
    }

    /** The tree as comparable values: per node in preorder, its name, parent, share and managers. */
    static List<List<Object>> treeShape(AllocationTree tree) {
        List<List<Object>> out = new ArrayList<>(tree.nodeCount());
        for (int i = 0; i < tree.nodeCount(); i++) {
            out.add(List.of(tree.name(i), tree.parent(i), tree.share(i), tree.managers(i)));
        }
        return out;
    }
}
