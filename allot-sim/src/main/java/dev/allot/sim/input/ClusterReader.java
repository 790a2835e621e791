package dev.allot.sim.input;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.rules.Names;
import dev.allot.core.rules.NodeGpus;
import dev.allot.core.rules.Violation;
import dev.allot.sim.input.YamlTree.Entry;
import dev.allot.sim.input.YamlTree.ListNode;
import dev.allot.sim.input.YamlTree.MapNode;
import dev.allot.sim.input.YamlTree.Node;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads {@code cluster.yaml}: the optional {@code start} instant, the node groups and the health events. Health
 * event times written as instants stay unresolved until time 0 is known (see {@link ScenarioReader}).
 */
final class ClusterReader {
    static final String FILE = "cluster.yaml";
    static final List<String> TOP_KEYS = List.of("start", "node-groups", "health-events");
    static final List<String> GROUP_KEYS = List.of("name-prefix", "count", "gpus", "gpu-type", "labels");
    static final List<String> HEALTH_KEYS = List.of("node", "at", "state");
    /** A sanity bound that keeps a typo in {@code count} from exhausting memory. */
    static final int MAX_NODES = 1_000_000;

    private ClusterReader() {
    }

    /** A health event whose time may still be an absolute instant; line and column locate its {@code at}. */
    record PendingHealth(String node, Values.Time at, HealthEvent.Health state, int line, int column) {
    }

    /** What {@code cluster.yaml} says; {@code startEpoch} is null when the file has no {@code start}. */
    record Result(Long startEpoch, List<NodeGroup> groups, List<NodeSpec> nodes, List<PendingHealth> health) {
    }

    static Result read(String text) {
        YamlTree y = YamlTree.parse(FILE, text);
        MapNode root = y.rootMap(TOP_KEYS);

        Long start = null;
        Node startNode = y.optionalValue(root, "start");
        if (startNode != null) {
            String s = y.text(startNode, "start", "an ISO-8601 instant such as 2026-01-05T00:00:00Z");
            try {
                start = Instant.parse(s).getEpochSecond();
            } catch (DateTimeParseException e) {
                throw y.error(startNode, "start",
                        "expected an ISO-8601 instant such as 2026-01-05T00:00:00Z, got " + startNode.describe());
            }
        }

        Entry groupsEntry = y.required(root, "node-groups", "a cluster");
        ListNode groupList = y.list(groupsEntry.value(), "node-groups", "node groups");
        if (groupList.items().isEmpty()) {
            throw y.error(groupList, "node-groups", "expected at least one node group, got an empty list");
        }
        List<NodeGroup> groups = new ArrayList<>();
        Map<String, Integer> firstNameLine = new HashMap<>();
        long totalNodes = 0;
        long totalGpus = 0;
        for (Node item : groupList.items()) {
            MapNode g = y.map(item, "node-groups", GROUP_KEYS);
            Node prefixNode = y.required(g, "name-prefix", "a node group").value();
            String prefix = y.text(prefixNode, "name-prefix", "a node name prefix such as gpu");
            Optional<Violation> badName = Names.check("name-prefix", prefix);
            if (badName.isPresent()) {
                throw y.error(prefixNode, "name-prefix", badName.get().problem());
            }
            Node countNode = y.required(g, "count", "a node group").value();
            int count = y.wholeNumber(countNode, "count", 1);
            Node gpusNode = y.required(g, "gpus", "a node group").value();
            int gpus = y.wholeNumber(gpusNode, "gpus", 1);
            if (!NodeGpus.allowed(gpus)) {
                throw y.error(gpusNode, "gpus", "expected " + NodeGpus.EXPECTED + ", got " + gpus);
            }
            Node typeNode = y.optionalValue(g, "gpu-type");
            String gpuType = typeNode == null ? "gpu" : y.printableText(typeNode, "gpu-type", "a GPU type such as h100");
            TreeMap<String, String> labels = new TreeMap<>();
            Node labelsNode = y.optional(g, "labels");
            if (labelsNode != null) {
                MapNode lm = y.freeMap(labelsNode, "labels", "a mapping of label names to values, e.g. {rack: r1}");
                for (Entry e : lm.entries().values()) {
                    labels.put(e.key(), y.text(e.value(), e.key(), "a label value"));
                }
            }
            totalNodes += count;
            if (totalNodes > MAX_NODES) {
                throw y.error(countNode, "count", "expected at most " + MAX_NODES + " nodes in the whole cluster, got "
                        + totalNodes + " so far");
            }
            totalGpus += (long) count * gpus;
            if (totalGpus > Integer.MAX_VALUE) {
                throw y.error(gpusNode, "gpus", "expected at most " + Integer.MAX_VALUE
                        + " GPUs in the whole cluster, got " + totalGpus + " so far");
            }
            NodeGroup group = new NodeGroup(prefix, count, gpus, gpuType, labels);
            // Names end in "-<digits>", so two groups clash exactly when they produce the same first name.
            Integer clash = firstNameLine.putIfAbsent(group.nodeName(1), prefixNode.line());
            if (clash != null) {
                throw y.error(prefixNode, "name-prefix", "expected node names not used by another group, got '"
                        + prefix + "', which names the same nodes as the group on line " + clash);
            }
            groups.add(group);
        }
        List<NodeSpec> nodes = NodeGroup.expandAll(groups);

        List<PendingHealth> health = new ArrayList<>();
        Node healthNode = y.optional(root, "health-events");
        if (healthNode != null) {
            Set<String> names = new HashSet<>();
            for (NodeSpec n : nodes) {
                names.add(n.name());
            }
            for (Node item : y.list(healthNode, "health-events", "health events").items()) {
                health.add(healthEvent(y, y.map(item, "health-events", HEALTH_KEYS), names, groups, start));
            }
        }
        return new Result(start, List.copyOf(groups), nodes, List.copyOf(health));
    }

    private static PendingHealth healthEvent(YamlTree y, MapNode m, Set<String> names, List<NodeGroup> groups,
                                             Long start) {
        Node nodeNode = y.required(m, "node", "a health event").value();
        String node = y.text(nodeNode, "node", "a node name");
        if (!names.contains(node)) {
            throw y.error(nodeNode, "node", "expected the name of a node (" + namingPattern(groups) + "), got '"
                    + node + "'");
        }
        Node atNode = y.required(m, "at", "a health event").value();
        String atText = y.text(atNode, "at", Values.TIME_EXPECTED);
        Values.Time at;
        try {
            at = Values.parseTime(atText);
        } catch (IllegalArgumentException e) {
            throw y.error(atNode, "at", e.getMessage());
        }
        if (at.absolute() && start != null && at.seconds() < start) {
            throw y.error(atNode, "at", "expected an instant at or after start (" + Instant.ofEpochSecond(start)
                    + "), got '" + atText + "'");
        }
        Node stateNode = y.required(m, "state", "a health event").value();
        String stateText = y.text(stateNode, "state", "unhealthy or healthy");
        HealthEvent.Health state = switch (stateText.toLowerCase(Locale.ROOT)) {
            case "unhealthy" -> HealthEvent.Health.UNHEALTHY;
            case "healthy" -> HealthEvent.Health.HEALTHY;
            default -> throw y.error(stateNode, "state", "expected unhealthy or healthy, got '" + stateText + "'");
        };
        return new PendingHealth(node, at, state, atNode.line(), atNode.column());
    }

    /** How the groups name their nodes, e.g. {@code gpu-01 .. gpu-32, cpu-01 .. cpu-04}. */
    static String namingPattern(List<NodeGroup> groups) {
        List<String> parts = new ArrayList<>();
        for (NodeGroup g : groups) {
            parts.add(g.count() == 1 ? g.nodeName(1) : g.nodeName(1) + " .. " + g.nodeName(g.count()));
        }
        return Values.list(parts, 10);
    }
}
