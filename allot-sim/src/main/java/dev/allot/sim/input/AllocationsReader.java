package dev.allot.sim.input;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.rules.Names;
import dev.allot.core.rules.Shares;
import dev.allot.core.rules.Violation;
import dev.allot.sim.input.YamlTree.ListNode;
import dev.allot.sim.input.YamlTree.MapNode;
import dev.allot.sim.input.YamlTree.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads {@code allocations.yaml}: the document is the root of the allocation tree; every node has a
 * {@code name}, an optional {@code share} (a weight among its siblings, 1 when absent, ignored for the root),
 * optional {@code managers} and optional {@code children}. Names are unique across the tree and follow
 * {@link Names}; shares follow {@link Shares}, the rules of the API and the CLI.
 */
final class AllocationsReader {
    static final String FILE = "allocations.yaml";
    static final List<String> KEYS = List.of("name", "share", "managers", "children");

    private AllocationsReader() {
    }

    static AllocationTree read(String text) {
        return read(FILE, text);
    }

    /** Reads a tree from a file of another name (messages use {@code file}). */
    static AllocationTree read(String file, String text) {
        YamlTree y = YamlTree.parse(file, text);
        MapNode root = y.rootMap(KEYS);
        Map<String, Integer> nameLine = new HashMap<>();
        String rootName = name(y, root, nameLine);
        Node share = y.optionalValue(root, "share");
        if (share != null) {
            share(y, share); // checked, but the root's share means nothing
        }
        AllocationTree.Builder b = AllocationTree.builder(rootName);
        List<String> managers = managers(y, root);
        if (!managers.isEmpty()) {
            b.managers(managers);
        }
        children(y, b, root, rootName, nameLine);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            // Everything AllocationTree checks is checked above with a location; this is a safety net.
            throw new InputException(file, root.line(), root.column(), null, e.getMessage());
        }
    }

    private static String name(YamlTree y, MapNode m, Map<String, Integer> nameLine) {
        Node n = y.required(m, "name", "every allocation").value();
        String name = y.text(n, "name", "an allocation name");
        Optional<Violation> bad = Names.check("name", name);
        if (bad.isPresent()) {
            throw y.error(n, "name", bad.get().problem());
        }
        Integer first = nameLine.putIfAbsent(name, n.line());
        if (first != null) {
            throw y.error(n, "name", "expected a name not used elsewhere in the tree, got '" + name
                    + "', already used on line " + first);
        }
        return name;
    }

    /** A share, by the rule the API and the CLI use ({@link Shares}). */
    private static double share(YamlTree y, Node node) {
        String text = y.text(node, "share", Shares.EXPECTED);
        double share = Values.parseNumber(text);
        if (!Shares.valid(share)) {
            throw y.error(node, "share", "expected " + Shares.EXPECTED + ", got " + node.describe());
        }
        return share;
    }

    private static List<String> managers(YamlTree y, MapNode m) {
        Node n = y.optional(m, "managers");
        if (n == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Node item : y.list(n, "managers", "manager names").items()) {
            out.add(y.printableText(item, "managers", "a manager name"));
        }
        return out;
    }

    private static void children(YamlTree y, AllocationTree.Builder b, MapNode parent, String parentName,
                                 Map<String, Integer> nameLine) {
        Node c = y.optional(parent, "children");
        if (c == null) {
            return;
        }
        ListNode list = y.list(c, "children", "allocations");
        double sum = 0;
        for (Node item : list.items()) {
            MapNode m = y.map(item, "children", KEYS);
            String name = name(y, m, nameLine);
            Node shareNode = y.optionalValue(m, "share");
            double share = shareNode == null ? 1.0 : share(y, shareNode);
            b.child(name, share, managers(y, m));
            children(y, b, m, name, nameLine);
            b.up();
            sum += share;
        }
        Optional<Violation> bad = list.items().isEmpty() ? Optional.empty() : Shares.checkSiblings(parentName, sum);
        if (bad.isPresent()) {
            throw y.error(list, "share", bad.get().problem());
        }
    }
}
