package dev.allot.core.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster a scenario runs on: its nodes in a fixed order (the order is the node index used everywhere,
 * and ties between nodes break on it) and the health events that happen to them.
 */
public final class ClusterSpec {
    private final List<NodeSpec> nodes;
    private final List<HealthEvent> healthEvents;
    private final Map<String, Integer> indexByName;
    private final int totalGpus;
    private final int maxGpusPerNode;
    /**
     * {@link #nodesWithAtLeast}'s answers, by GPU count from 0 to {@link #maxGpusPerNode}: asked for every workload
     * admitted (the shape check), it was a walk of every node each time (issue 21: 10,000 submissions on 1,024 nodes,
     * some 8% of the cycle that takes them in).
     */
    private final int[] nodesWithAtLeast;

    public ClusterSpec(List<NodeSpec> nodes, List<HealthEvent> healthEvents) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one node");
        }
        this.nodes = List.copyOf(nodes);
        this.indexByName = new HashMap<>();
        int total = 0;
        int max = 0;
        for (int i = 0; i < this.nodes.size(); i++) {
            NodeSpec n = this.nodes.get(i);
            if (indexByName.put(n.name(), i) != null) {
                throw new IllegalArgumentException("node name '" + n.name() + "' is used twice");
            }
            total += n.gpus();
            max = Math.max(max, n.gpus());
        }
        for (HealthEvent e : healthEvents) {
            if (!indexByName.containsKey(e.node())) {
                throw new IllegalArgumentException("health event names unknown node '" + e.node() + "'");
            }
        }
        List<HealthEvent> sorted = new ArrayList<>(healthEvents);
        sorted.sort((a, b) -> Long.compare(a.atSeconds(), b.atSeconds()));
        this.healthEvents = List.copyOf(sorted);
        this.totalGpus = total;
        this.maxGpusPerNode = max;
        this.nodesWithAtLeast = new int[max + 1];
        for (NodeSpec n : this.nodes) {
            for (int g = 0; g <= n.gpus(); g++) {
                nodesWithAtLeast[g]++;
            }
        }
    }

    public List<NodeSpec> nodes() {
        return nodes;
    }

    public List<HealthEvent> healthEvents() {
        return healthEvents;
    }

    public int totalGpus() {
        return totalGpus;
    }

    public int maxGpusPerNode() {
        return maxGpusPerNode;
    }

    public Optional<Integer> indexOf(String nodeName) {
        return Optional.ofNullable(indexByName.get(nodeName));
    }

    /** How many nodes have at least {@code gpus} GPUs: the most whole-node groups of that size the cluster has. */
    public int nodesWithAtLeast(int gpus) {
        return gpus > maxGpusPerNode ? 0 : nodesWithAtLeast[Math.max(0, gpus)];
    }

}
