package dev.allot.core.state;

/**
 * What a placement must be for a job to start (or be adopted) on it: exactly the job's GPUs, on nodes that exist,
 * with enough GPUs free on each, the gang's exact GPUs per node, and (for a start, not an adoption) healthy nodes.
 *
 * <p>Apart from {@link ClusterState} so the rule stands in one place, read as one; the state checks it before any
 * book changes, so a refused placement leaves nothing half done.
 */
final class PlacementRule {
    private PlacementRule() {
    }

    static void check(Job job, Placement p, boolean healthyOnly, NodeBooks nodes) {
        if (p.totalGpus() != job.gpus()) {
            throw new IllegalStateException("placement " + p + " holds " + p.totalGpus() + " GPUs but " + job.id() + " needs " + job.gpus());
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            int n = p.node(i);
            if (n < 0 || n >= nodes.count) {
                throw new IllegalStateException("placement " + p + " names node " + n + " of " + nodes.count);
            }
            if (healthyOnly && !nodes.healthy[n]) {
                throw new IllegalStateException("cannot start " + job.id() + " on unhealthy node " + nodes.name(n));
            }
            if (nodes.free.free(n) < p.gpusOn(i)) {
                throw new IllegalStateException("cannot start " + job.id() + " with " + p.gpusOn(i) + " GPUs on node " + nodes.name(n)
                        + ": only " + nodes.free.free(n) + " free");
            }
            if (job.gpusPerNode() > 0 && p.gpusOn(i) != job.gpusPerNode()) {
                throw new IllegalStateException("gang " + job.id() + " needs exactly " + job.gpusPerNode() + " GPUs on each node, placement " + p);
            }
        }
    }
}
