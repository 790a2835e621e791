package dev.allot.sim.property;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Small random scenarios from a seed: a few nodes of mixed sizes, a two-level tree with random shares, a few dozen
 * workloads of every kind (gangs, unallocated, resumable with and without checkpoints, every priority, minimum
 * runtimes above the cap) and some health events. Every workload fits the cluster when all nodes are healthy.
 */
final class RandomScenarios {
    private RandomScenarios() {
    }

    static Scenario generate(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int[] sizes = {2, 4, 8};
        List<NodeSpec> nodes = new ArrayList<>();
        int nodeCount = 1 + r.nextInt(6);
        for (int i = 1; i <= nodeCount; i++) {
            nodes.add(NodeSpec.of("n" + i, sizes[r.nextInt(sizes.length)]));
        }
        List<HealthEvent> health = new ArrayList<>();
        int failures = r.nextInt(3);
        for (int i = 0; i < failures; i++) {
            String node = "n" + (1 + r.nextInt(nodeCount));
            long at = r.nextLong(2 * 86400);
            health.add(new HealthEvent(node, at, HealthEvent.Health.UNHEALTHY));
            if (r.nextInt(4) > 0) {
                health.add(new HealthEvent(node, at + 60 + r.nextLong(86400), HealthEvent.Health.HEALTHY));
            }
        }
        ClusterSpec cluster = new ClusterSpec(nodes, health);

        AllocationTree.Builder tb = AllocationTree.builder("root");
        List<String> leaves = new ArrayList<>();
        int programs = 1 + r.nextInt(3);
        for (int p = 0; p < programs; p++) {
            tb.child("p" + p, 1 + r.nextInt(100));
            int projects = 1 + r.nextInt(3);
            for (int q = 0; q < projects; q++) {
                String name = "p" + p + "q" + q;
                tb.leaf(name, 1 + r.nextInt(100));
                leaves.add(name);
            }
            tb.up();
        }
        AllocationTree tree = tb.build();

        List<WorkloadSpec> workloads = new ArrayList<>();
        int count = 5 + r.nextInt(60);
        for (int i = 0; i < count; i++) {
            WorkloadSpec.Builder b = WorkloadSpec.builder(String.format("w%03d", i))
                    .allocation(leaves.get(r.nextInt(leaves.size())))
                    .submitAt(r.nextInt(5) == 0 ? 0 : r.nextLong(2 * 86400))
                    .duration(Duration.ofSeconds(60 + r.nextLong(10 * 3600)))
                    .priority(Priority.values()[r.nextInt(Priority.values().length)]);
            int kind = r.nextInt(10);
            if (kind < 2) {
                b.minRuntime(Duration.ZERO);
            } else if (kind < 3) {
                b.minRuntime(Duration.ofHours(9 + r.nextInt(20)));
            } else {
                b.minRuntime(Duration.ofSeconds(60 + r.nextLong(6 * 3600)));
            }
            int resumable = r.nextInt(3);
            if (resumable == 1) {
                b.resumable();
            } else if (resumable == 2) {
                b.resumable(Duration.ofMinutes(5 + r.nextInt(120)));
            }
            if (r.nextInt(4) == 0) {
                int perNode = sizes[r.nextInt(sizes.length)];
                int capable = cluster.nodesWithAtLeast(perNode);
                if (capable > 0) {
                    b.gpus(perNode * (1 + r.nextInt(capable))).gpusPerNode(perNode);
                } else {
                    b.gpus(1);
                }
            } else {
                b.gpus(1 + r.nextInt(Math.min(cluster.totalGpus(), 16)));
            }
            workloads.add(b.build());
        }
        PolicyConfig config = PolicyConfig.defaults();
        if (r.nextBoolean()) {
            config = config.with("lookback", (1 + r.nextInt(7)) + "d");
        }
        if (r.nextBoolean()) {
            config = config.with("max-min-runtime", (1 + r.nextInt(8)) + "h");
        }
        if (r.nextBoolean()) {
            config = config.with("allocation.reservation", "false");
        }
        // drawn after everything above, so the scenarios of earlier seeds are unchanged
        if (r.nextInt(3) == 0) {
            config = config.with("slurm.grace-time", (1 + r.nextInt(30)) + "m");
        }
        if (r.nextInt(3) == 0) {
            config = config.with("slurm.preempt-exempt-time", (1 + r.nextInt(60)) + "m");
        }
        if (r.nextInt(3) == 0) {
            config = config.with("slurm.time-limit-factor", Double.toString(1 + r.nextInt(4) * 0.5));
        }
        if (r.nextInt(3) == 0) {
            config = config.with("slurm.backfill-max-jobs", Integer.toString(r.nextInt(6)));
        }
        if (r.nextInt(3) == 0) {
            config = config.with("slurm.weight-qos", "0").with("slurm.decay-half-life", (r.nextInt(3)) + "h");
        }
        return new Scenario("random-" + seed, cluster, tree, Scenario.sorted(workloads), config, List.of());
    }
}
