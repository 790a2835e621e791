package dev.allot.sim.input;

import dev.allot.core.model.NodeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A group of identical nodes as written in {@code cluster.yaml}: {@code count} nodes named
 * {@code <name-prefix>-<n>}, n from 1, zero-padded to the width of the count and at least two digits
 * ({@code gpu-01 .. gpu-32}, {@code gpu-0001 .. gpu-1024}).
 */
public record NodeGroup(String namePrefix, int count, int gpus, String gpuType, SortedMap<String, String> labels) {
    public NodeGroup {
        Objects.requireNonNull(namePrefix, "namePrefix");
        Objects.requireNonNull(gpuType, "gpuType");
        if (namePrefix.isBlank()) {
            throw new IllegalArgumentException("name-prefix must not be blank");
        }
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, got " + count);
        }
        if (gpus < 1) {
            throw new IllegalArgumentException("gpus must be at least 1, got " + gpus);
        }
        labels = labels == null ? new TreeMap<>() : new TreeMap<>(labels);
    }

    /** The name of the i-th node (1-based) of this group. */
    public String nodeName(int i) {
        int width = Math.max(2, Integer.toString(count).length());
        return namePrefix + "-" + String.format("%0" + width + "d", i);
    }

    public List<NodeSpec> expand() {
        List<NodeSpec> out = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            out.add(new NodeSpec(nodeName(i), gpus, gpuType, labels));
        }
        return out;
    }

    /** All nodes of several groups, in group order. */
    public static List<NodeSpec> expandAll(List<NodeGroup> groups) {
        List<NodeSpec> out = new ArrayList<>();
        for (NodeGroup g : groups) {
            out.addAll(g.expand());
        }
        return out;
    }
}
