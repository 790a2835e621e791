package dev.allot.sim;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.WorkloadSpec;
import java.util.List;
import java.util.Objects;

/**
 * Everything a simulation replays, as separate concerns: the cluster (nodes and health events), the allocation
 * tree, the workloads (sorted by submission time, then id; a {@link SortedWorkloads} list is kept as is, others are
 * copied and checked), and the policy settings. Immutable.
 *
 * @param name       a label for reports, usually the scenario folder
 * @param rejected   rows skipped under {@code --lenient}, with the reason for each (empty otherwise)
 * @param notes      how the input was read where that may surprise, one line each, said before the results (e.g.
 *                   which instant became time 0); empty for most scenarios
 */
public record Scenario(String name, ClusterSpec cluster, AllocationTree tree, List<WorkloadSpec> workloads,
                       PolicyConfig policyConfig, List<String> rejected, List<String> notes) {
    public Scenario {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(tree, "tree");
        Objects.requireNonNull(policyConfig, "policyConfig");
        rejected = List.copyOf(rejected);
        notes = List.copyOf(notes);
        checkReach(workloads);
        // a SortedWorkloads list is sorted and immutable by contract and may make its elements on access: keep it
        if (!(workloads instanceof SortedWorkloads)) {
            workloads = List.copyOf(workloads);
            checkSorted(workloads);
        }
    }

    /** A scenario without notes. */
    public Scenario(String name, ClusterSpec cluster, AllocationTree tree, List<WorkloadSpec> workloads,
                    PolicyConfig policyConfig, List<String> rejected) {
        this(name, cluster, tree, workloads, policyConfig, rejected, List.of());
    }

    /**
     * The last submission within {@link ScenarioTime}: the readers check each row where they can, and a trace import
     * its table (whose rows this would build); this is for the rest.
     */
    private static void checkReach(List<WorkloadSpec> workloads) {
        if (workloads.isEmpty() || workloads instanceof SortedWorkloads) {
            return;
        }
        WorkloadSpec last = workloads.get(workloads.size() - 1);
        String late = ScenarioTime.lateProblem(last.id(), last.submitSeconds());
        if (late != null) {
            throw new IllegalArgumentException(late);
        }
    }

    private static void checkSorted(List<WorkloadSpec> workloads) {
        for (int i = 1; i < workloads.size(); i++) {
            WorkloadSpec a = workloads.get(i - 1);
            WorkloadSpec b = workloads.get(i);
            if (a.submitSeconds() > b.submitSeconds()
                    || (a.submitSeconds() == b.submitSeconds() && a.id().compareTo(b.id()) >= 0)) {
                throw new IllegalArgumentException("workloads must be sorted by submission time then id, with unique ids: "
                        + a.id() + " comes before " + b.id());
            }
        }
    }

    /** Sorts workloads the way {@link Scenario} requires. */
    public static List<WorkloadSpec> sorted(List<WorkloadSpec> workloads) {
        return workloads.stream()
                .sorted((a, b) -> a.submitSeconds() != b.submitSeconds()
                        ? Long.compare(a.submitSeconds(), b.submitSeconds()) : a.id().compareTo(b.id()))
                .toList();
    }

    /** When the last workload is submitted (0 when there is none): the workloads are sorted, so the last one's. */
    public long lastSubmitSeconds() {
        return workloads.isEmpty() ? 0 : workloads.get(workloads.size() - 1).submitSeconds();
    }

    public Scenario withPolicyConfig(PolicyConfig config) {
        return new Scenario(name, cluster, tree, workloads, config, rejected, notes);
    }
}
