package dev.allot.sim.input;

import dev.allot.core.campaign.ProtectedSlots;
import dev.allot.core.model.AllocationTree;
import dev.allot.sim.campaign.CampaignSpec;
import dev.allot.sim.campaign.ShardGenerator;
import dev.allot.sim.input.YamlTree.Entry;
import dev.allot.sim.input.YamlTree.ListNode;
import dev.allot.sim.input.YamlTree.MapNode;
import dev.allot.sim.input.YamlTree.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads a campaign file for the simulator ({@code docs/campaigns.md}): {@code name}, {@code allocation} (a leaf),
 * {@code submit-at} (from the start of the scenario, default 0), {@code gpus} per shard (default 1),
 * {@code min-runtime} of protected runs, {@code protected-shards} or {@code protected-gpus}, an optional declared
 * {@code time-per-unit}, {@code families} (each family's true time per unit, which only the simulation knows), and
 * the shards: a {@code shards} list of {@code {family, units, speed}} or a {@code generate} section
 * ({@code count}, {@code hours: [min, max]}, {@code seed}, optional {@code speed: [min, max]}). Every error names the
 * file, the line and column, the field, and what was expected.
 */
final class CampaignReader {
    static final List<String> KEYS = List.of("name", "allocation", "submit-at", "gpus", "min-runtime",
            "protected-shards", "protected-gpus", "time-per-unit", "families", "shards", "generate");
    static final List<String> SHARD_KEYS = List.of("family", "units", "speed");
    static final List<String> GENERATE_KEYS = List.of("count", "hours", "seed", "speed");

    private CampaignReader() {
    }

    /**
     * @param tree the tree whose leaf {@code allocation} must name, or null to accept any name
     */
    static CampaignSpec read(String file, String text, AllocationTree tree) {
        YamlTree y = YamlTree.parse(file, text);
        MapNode root;
        try {
            root = y.rootMap(KEYS);
        } catch (InputException e) {
            if ("command".equals(e.field())) {
                // the service's campaign file (allot campaign submit) runs a command per shard: given here, its
                // first unknown key said only "unknown key; valid keys here: ..."
                throw new InputException(e.file(), e.line(), e.column(), e.field(), e.problem() + " (hint: this"
                        + " looks like a service campaign file, for 'allot campaign submit'; 'campaign simulate' reads"
                        + " the simulator's format, with families and shards of units instead of a command, as in"
                        + " examples/campaign/oracle-eval.yaml, see docs/campaigns.md)");
            }
            throw e;
        }
        String what = "a campaign";
        Node nameNode = y.required(root, "name", what).value();
        String name = y.printableText(nameNode, "name", "a campaign name");
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
            throw y.error(nameNode, "name", "expected a name of letters, digits, '.', '_' and '-' (at most 64,"
                    + " starting with a letter or digit), got " + nameNode.describe());
        }
        Node allocNode = y.required(root, "allocation", what).value();
        String allocation = y.text(allocNode, "allocation", "a leaf allocation");
        if (tree != null && tree.leaf(allocation).isEmpty()) {
            throw y.error(allocNode, "allocation", Values.allocationProblem(tree, allocation));
        }
        long submitAt = optionalDuration(y, root, "submit-at", Duration.ZERO, true).getSeconds();
        Node gpusNode = y.optionalValue(root, "gpus");
        int gpus = gpusNode == null ? 1 : y.wholeNumber(gpusNode, "gpus", 1);
        Duration minRuntime = duration(y, y.required(root, "min-runtime", what).value(), "min-runtime", false);
        ProtectedSlots slots = slots(y, root);
        Duration declared = optionalDuration(y, root, "time-per-unit", Duration.ZERO, false);
        SortedMap<String, Long> families = families(y, y.required(root, "families", what));
        List<CampaignSpec.Shard> shards = shards(y, root, families);
        try {
            return new CampaignSpec(name, allocation, submitAt, gpus, minRuntime, slots, declared.getSeconds(),
                    families, shards);
        } catch (IllegalArgumentException e) {
            // everything the spec checks is checked above with a location; this is a safety net
            throw new InputException(y.file, root.line(), root.column(), null, e.getMessage());
        }
    }

    private static ProtectedSlots slots(YamlTree y, MapNode root) {
        Entry shards = root.get("protected-shards");
        Entry gpus = root.get("protected-gpus");
        if (shards != null && gpus != null) {
            throw y.error(gpus, "give protected-shards or protected-gpus, not both");
        }
        if (shards == null && gpus == null) {
            throw new InputException(y.file, root.line(), root.column(), "protected-shards",
                    "missing; a campaign needs 'protected-shards' (how many shards may run protected at once) or"
                            + " 'protected-gpus'");
        }
        Entry e = shards != null ? shards : gpus;
        int n = y.wholeNumber(y.required(root, e.key(), "a campaign").value(), e.key(), 0);
        return shards != null ? ProtectedSlots.shards(n) : ProtectedSlots.gpus(n);
    }

    private static SortedMap<String, Long> families(YamlTree y, Entry entry) {
        MapNode m = y.freeMap(entry.value(), "families", "a mapping of family names to their true time per unit,"
                + " such as 'find: 5m'");
        if (m.entries().isEmpty()) {
            throw y.error(entry, "expected at least one family");
        }
        SortedMap<String, Long> out = new TreeMap<>();
        for (Entry f : m.entries().values()) {
            out.put(y.printableKey(f, "families"), duration(y, f.value(), "families." + f.key(), false).getSeconds());
        }
        return out;
    }

    private static List<CampaignSpec.Shard> shards(YamlTree y, MapNode root, SortedMap<String, Long> families) {
        Entry list = root.get("shards");
        Entry generate = root.get("generate");
        if (list != null && generate != null) {
            throw y.error(generate, "give a shards list or a generate section, not both");
        }
        if (list == null && generate == null) {
            throw new InputException(y.file, root.line(), root.column(), "shards", "missing; a campaign needs a"
                    + " 'shards' list of {family, units, speed} or a 'generate' section {count, hours, seed}");
        }
        if (generate != null) {
            return generate(y, generate, families);
        }
        ListNode items = y.list(list.value(), "shards", "shards, each {family, units, speed}");
        if (items.items().isEmpty()) {
            throw y.error(list, "expected at least one shard");
        }
        List<CampaignSpec.Shard> out = new ArrayList<>();
        for (Node item : items.items()) {
            int i = out.size();
            MapNode m = y.map(item, "shards[" + i + "]", SHARD_KEYS);
            Node familyNode = y.required(m, "family", "a shard").value();
            String family = y.text(familyNode, "family", "a family name");
            if (!families.containsKey(family)) {
                throw y.error(familyNode, "family", "expected one of the families (" + String.join(", ",
                        families.keySet()) + "), got " + familyNode.describe());
            }
            Node unitsNode = y.required(m, "units", "a shard").value();
            long units = Values.parseWholeNumber(y.text(unitsNode, "units", "a whole number >= 1"));
            if (units < 1) {
                throw y.error(unitsNode, "units", "expected a whole number >= 1, got " + unitsNode.describe());
            }
            Node speedNode = y.optionalValue(m, "speed");
            double speed = speedNode == null ? 1 : positive(y, speedNode, "speed");
            out.add(new CampaignSpec.Shard(i, family, units, speed));
        }
        return out;
    }

    private static List<CampaignSpec.Shard> generate(YamlTree y, Entry entry, SortedMap<String, Long> families) {
        MapNode m = y.map(entry.value(), "generate", GENERATE_KEYS);
        String what = "the generate section";
        int count = y.wholeNumber(y.required(m, "count", what).value(), "count", 1);
        double[] hours = range(y, y.required(m, "hours", what).value(), "hours", "hours");
        Node seedNode = y.optionalValue(m, "seed");
        long seed = 1;
        if (seedNode != null) {
            seed = Values.parseWholeNumber(y.text(seedNode, "seed", "a whole number >= 0"));
            if (seed < 0) {
                throw y.error(seedNode, "seed", "expected a whole number >= 0, got " + seedNode.describe());
            }
        }
        Node speedNode = y.optionalValue(m, "speed");
        double[] speed = speedNode == null ? new double[] {1, 1} : range(y, speedNode, "speed", "speeds");
        return ShardGenerator.generate(count, hours[0], hours[1], seed, families, speed[0], speed[1]);
    }

    /** A list {@code [min, max]} of two numbers with 0 < min <= max. */
    private static double[] range(YamlTree y, Node node, String field, String ofWhat) {
        String expected = "a list [min, max] of two " + ofWhat + " with 0 < min <= max";
        if (!(node instanceof ListNode l) || l.items().size() != 2) {
            throw y.error(node, field, "expected " + expected + ", got " + node.describe()
                    + (node instanceof ListNode l2 ? " of " + l2.items().size() : ""));
        }
        double min = positive(y, l.items().get(0), field);
        double max = positive(y, l.items().get(1), field);
        if (max < min) {
            throw y.error(node, field, "expected " + expected + ", got min " + number(min) + " above max "
                    + number(max));
        }
        return new double[] {min, max};
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static double positive(YamlTree y, Node node, String field) {
        double v = Values.parseNumber(y.text(node, field, "a number > 0"));
        if (!(v > 0) || Double.isInfinite(v)) {
            throw y.error(node, field, "expected a number > 0, got " + node.describe());
        }
        return v;
    }

    private static Duration optionalDuration(YamlTree y, MapNode m, String key, Duration def, boolean zeroOk) {
        Node n = y.optionalValue(m, key);
        return n == null ? def : duration(y, n, key, zeroOk);
    }

    private static Duration duration(YamlTree y, Node n, String field, boolean zeroOk) {
        Duration d;
        try {
            d = Values.parseDuration(y.text(n, field, Values.DURATION_EXPECTED));
        } catch (IllegalArgumentException e) {
            throw y.error(n, field, e.getMessage());
        }
        if (!zeroOk && d.isZero()) {
            throw y.error(n, field, "expected a duration above zero, got " + n.describe());
        }
        return d;
    }
}
