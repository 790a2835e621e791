package dev.allot.core.state;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.rules.ShapeFit;
import dev.allot.core.rules.Violation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The workloads a {@link ClusterState} knows, in the order they were registered and by id, and the distinct shapes
 * (GPUs, GPUs per node) they ask for, numbered in order of first use so that policies can keep per-shape books.
 *
 * <p>Apart from the state because admission is an idea of its own: what a workload must be to be known at all (a
 * leaf of the tree, a shape the cluster could hold, an id not used yet), checked once, before it ever waits.
 */
final class JobRegistry {
    final List<Job> jobs = new ArrayList<>();
    final Map<String, Job> byId = new HashMap<>();
    final Map<Long, Integer> shapeIds = new HashMap<>();
    final List<int[]> shapes = new ArrayList<>();

    /**
     * Makes a workload known (not yet waiting). Fails when it names an allocation that is not a leaf of the tree, or
     * asks for a shape the cluster could never hold.
     */
    Job register(WorkloadSpec spec, ClusterSpec cluster, AllocationTree tree, SchedulerConfig config) {
        Optional<Integer> leaf = tree.leaf(spec.allocation());
        if (leaf.isEmpty()) {
            String hint = tree.node(spec.allocation()).isPresent()
                    ? "'" + spec.allocation() + "' is not a leaf of the allocation tree; workloads name leaves"
                    : "unknown allocation '" + spec.allocation() + "'";
            throw new IllegalArgumentException(hint + "; valid allocations: " + String.join(", ", tree.leafNames()));
        }
        Optional<Violation> misfit = ShapeFit.check(cluster, spec.gpus(), spec.gpusPerNode());
        if (misfit.isPresent()) {
            throw new IllegalArgumentException("workload " + spec.id() + " asks for "
                    + ShapeFit.describe(spec.gpus(), spec.gpusPerNode()) + ": " + misfit.get());
        }
        if (byId.containsKey(spec.id())) {
            throw new IllegalArgumentException("workload id '" + spec.id() + "' is used twice");
        }
        long key = ((long) spec.gpus() << 32) | spec.gpusPerNode();
        Integer shape = shapeIds.get(key);
        if (shape == null) {
            shape = shapes.size();
            shapeIds.put(key, shape);
            shapes.add(new int[] {spec.gpus(), spec.gpusPerNode()});
        }
        Job job = new Job(spec, jobs.size(), leaf.get(), shape, config.minRuntimeSecondsOf(spec));
        add(job);
        return job;
    }

    /** Files a job made elsewhere (a fork's copy) under its index and id. */
    void add(Job job) {
        jobs.add(job);
        byId.put(job.id(), job);
    }

    /** Takes the shapes of another registry, with their numbers (for a fork). */
    void copyShapesFrom(JobRegistry src) {
        shapeIds.putAll(src.shapeIds);
        shapes.addAll(src.shapes);
    }
}
