package dev.allot.core.model;

import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/** One host of the cluster: its name, how many GPUs it has, their type, and free-form labels (rack, ...). */
public record NodeSpec(String name, int gpus, String gpuType, SortedMap<String, String> labels) {
    public NodeSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(gpuType, "gpuType");
        if (gpus < 1) {
            throw new IllegalArgumentException("node " + name + ": gpus must be at least 1, got " + gpus);
        }
        labels = labels == null ? new TreeMap<>() : new TreeMap<>(labels);
    }

    public static NodeSpec of(String name, int gpus) {
        return new NodeSpec(name, gpus, "gpu", new TreeMap<>(Map.of()));
    }
}
