package dev.allot.sim;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.Durations;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Fluent builder for scenario tests that read like a story:
 * <pre>
 * given().nodes(2, 8)
 *        .allocations(t -&gt; t.leaf("A", 50).leaf("B", 50))
 *        .workload(w("a1").in("A").gpus(8).runs("4h").minRuntime("1h").at("0s"))
 *        .run("allocation");
 * </pre>
 * Nodes are named n1, n2, ...; times and durations use the compact syntax (90s, 15m, 8h, 2d).
 */
public final class ScenarioBuilder {
    private final List<NodeSpec> nodes = new ArrayList<>();
    private final List<HealthEvent> health = new ArrayList<>();
    private final List<WorkloadSpec> workloads = new ArrayList<>();
    private AllocationTree tree;
    private PolicyConfig config = PolicyConfig.defaults();

    public static ScenarioBuilder given() {
        return new ScenarioBuilder();
    }

    /** Adds {@code count} nodes of {@code gpus} GPUs each. */
    public ScenarioBuilder nodes(int count, int gpus) {
        int base = nodes.size();
        for (int i = 1; i <= count; i++) {
            nodes.add(NodeSpec.of("n" + (base + i), gpus));
        }
        return this;
    }

    /** Builds the allocation tree under a root named {@code lab}. */
    public ScenarioBuilder allocations(Consumer<AllocationTree.Builder> body) {
        AllocationTree.Builder b = AllocationTree.builder("lab");
        body.accept(b);
        tree = b.build();
        return this;
    }

    public ScenarioBuilder unhealthy(String node, String at) {
        health.add(new HealthEvent(node, seconds(at), HealthEvent.Health.UNHEALTHY));
        return this;
    }

    public ScenarioBuilder healthy(String node, String at) {
        health.add(new HealthEvent(node, seconds(at), HealthEvent.Health.HEALTHY));
        return this;
    }

    public ScenarioBuilder workload(W w) {
        workloads.add(w.build());
        return this;
    }

    public ScenarioBuilder workloads(List<W> ws) {
        ws.forEach(this::workload);
        return this;
    }

    /** Sets a policy setting: a shared key ({@code lookback}) or {@code policy.key}. */
    public ScenarioBuilder set(String key, String value) {
        config = config.with(key, value);
        return this;
    }

    public Scenario scenario() {
        if (tree == null) {
            throw new IllegalStateException("call allocations(...) first");
        }
        return new Scenario("test", new ClusterSpec(nodes, health), tree, Scenario.sorted(workloads), config, List.of());
    }

    /** Runs the scenario with invariant checks on and records the story. */
    public Run run(String policy) {
        return run(policy, StoryRecorder.brief());
    }

    /** Like {@link #run(String)}, with the policy's reason at the end of each start and preemption line. */
    public Run runWithReasons(String policy) {
        return run(policy, StoryRecorder.detailed());
    }

    /** Like {@link #run(String)}, with an agent (a campaign) acting in the run. */
    public Run run(String policy, SimulationAgent agent) {
        StoryRecorder story = StoryRecorder.brief();
        SimulationResult result = new Simulator(scenario(), PolicyRegistry.standard(), policy,
                Simulator.Options.defaults().withCheck(true).withListener(story).withAgent(agent)).run();
        return new Run(result, story.lines());
    }

    private Run run(String policy, StoryRecorder story) {
        SimulationResult result = new Simulator(scenario(), PolicyRegistry.standard(), policy,
                Simulator.Options.defaults().withCheck(true).withListener(story)).run();
        return new Run(result, story.lines());
    }

    /** A finished run: the result and its story. */
    public record Run(SimulationResult result, List<String> story) {
        public WorkloadRecord workload(String id) {
            return result.workloads().stream().filter(r -> r.id().equals(id)).findFirst()
                    .orElseThrow(() -> new AssertionError("no workload " + id));
        }

        /** The story lines that mention this workload or node, in order. */
        public List<String> about(String name) {
            return story.stream().filter(l -> List.of(l.split(" ")).contains(name)).toList();
        }
    }

    static long seconds(String text) {
        return Durations.parse(text).getSeconds();
    }

    public static W w(String id) {
        return new W(id);
    }

    /** A workload under construction: defaults are 1 GPU, 1h, min runtime 15m, not resumable, normal priority. */
    public static final class W {
        private final WorkloadSpec.Builder b;

        W(String id) {
            b = WorkloadSpec.builder(id);
        }

        public W in(String allocation) {
            b.allocation(allocation);
            return this;
        }

        public W user(String name) {
            b.user(name);
            return this;
        }

        public W at(String submit) {
            b.submitAt(seconds(submit));
            return this;
        }

        public W gpus(int n) {
            b.gpus(n);
            return this;
        }

        /** Whole nodes: {@code gpus} in groups of {@code perNode}. */
        public W gang(int gpus, int perNode) {
            b.gpus(gpus).gpusPerNode(perNode);
            return this;
        }

        public W runs(String duration) {
            b.duration(Durations.parse(duration));
            return this;
        }

        public W minRuntime(String d) {
            b.minRuntime(Durations.parse(d));
            return this;
        }

        public W unallocated() {
            b.minRuntime(java.time.Duration.ZERO);
            return this;
        }

        public W resumable() {
            b.resumable();
            return this;
        }

        public W checkpointEvery(String d) {
            b.resumable(Durations.parse(d));
            return this;
        }

        public W priority(Priority p) {
            b.priority(p);
            return this;
        }

        public W kind(String k) {
            b.kind(k);
            return this;
        }

        WorkloadSpec build() {
            return b.build();
        }
    }
}
