package dev.allot.server.store;

import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import java.util.List;
import java.util.TreeMap;

/**
 * The stored nodes as the core's {@link ClusterSpec}, in store order: what the scheduling loop decides on and what
 * the API checks a submission's shape against, so both ask the core the same question.
 */
public final class ClusterSpecs {
    private ClusterSpecs() {
    }

    public static ClusterSpec of(List<Node> nodes) {
        return new ClusterSpec(nodes.stream().map(n -> new NodeSpec(n.name(), n.gpus(), "gpu", new TreeMap<>())).toList(),
                List.of());
    }
}
