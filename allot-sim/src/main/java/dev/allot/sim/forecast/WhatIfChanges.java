package dev.allot.sim.forecast;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.core.rules.Shares;
import dev.allot.core.rules.Violation;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The changes a what-if may try, applied to copies: other shares in the allocation tree (same nodes, same order, so
 * a {@link dev.allot.core.state.ClusterState#fork fork} can take it), and other values of the policy's own settings.
 * The settings every policy shares ({@code lookback}, {@code max-min-runtime}, {@code usage-bucket}) are refused:
 * they shape the state itself (its usage ledger's window and buckets, the cap on protections already granted), which
 * a what-if plays forward as it is. Errors are {@link IllegalArgumentException}s that name the key and say what was
 * expected.
 */
public final class WhatIfChanges {
    /** The settings of {@code policy.yaml} shared by every policy, which a what-if cannot change. */
    public static final Set<String> SHARED = Set.of("lookback", "max-min-runtime", "usage-bucket");

    private WhatIfChanges() {
    }

    /**
     * {@code tree} with the shares of some nodes changed, each named by its name or its path
     * ({@link AllocationTree#path}); the root has no share to change.
     */
    public static AllocationTree withShares(AllocationTree tree, Map<String, Double> shares) {
        Map<Integer, Double> byNode = new HashMap<>();
        for (Map.Entry<String, Double> e : new TreeMap<>(shares).entrySet()) {
            int node = resolve(tree, e.getKey());
            if (node == 0) {
                throw new IllegalArgumentException("'" + e.getKey() + "' is the root: it has no share to change;"
                        + " change the shares of the allocations below it");
            }
            double share = e.getValue() == null ? Double.NaN : e.getValue();
            Optional<Violation> bad = Shares.check(share);
            if (bad.isPresent()) {
                throw new IllegalArgumentException("share of '" + e.getKey() + "': " + bad.get().problem());
            }
            byNode.put(node, share);
        }
        for (int parent : new java.util.TreeSet<>(byNode.keySet().stream().map(tree::parent).toList())) {
            double sum = 0;
            for (int c : tree.children(parent)) {
                sum += byNode.getOrDefault(c, tree.share(c));
            }
            // named by the paths a what-if takes (the service's tree has a root of its own, which no one names)
            Optional<Violation> bad = Shares.checkSiblings(parent == 0 ? null : tree.name(parent), sum);
            if (bad.isPresent()) {
                // the problem alone: the caller names the field (the API's 'shares'), which said "field 'shares':
                // field 'share': expected ..."
                throw new IllegalArgumentException(bad.get().problem());
            }
        }
        AllocationTree.Builder b = AllocationTree.builder(tree.name(0)).managers(tree.managers(0));
        add(b, tree, 0, byNode);
        AllocationTree out = b.build();
        if (!out.leafNames().equals(tree.leafNames())) {
            throw new IllegalStateException("rebuilding the tree changed its leaves: " + out.leafNames());
        }
        return out;
    }

    private static void add(AllocationTree.Builder b, AllocationTree tree, int node, Map<Integer, Double> shares) {
        for (int c : tree.children(node)) {
            double share = shares.getOrDefault(c, tree.share(c));
            if (tree.isLeaf(c)) {
                b.leaf(tree.name(c), share, tree.managers(c));
            } else {
                b.child(tree.name(c), share, tree.managers(c));
                add(b, tree, c, shares);
                b.up();
            }
        }
    }

    private static int resolve(AllocationTree tree, String key) {
        Optional<Integer> byName = tree.node(key);
        if (byName.isPresent()) {
            return byName.get();
        }
        for (int n = 0; n < tree.nodeCount(); n++) {
            if (tree.path(n).equals(key)) {
                return n;
            }
        }
        throw new UnknownAllocation("no allocation '" + key + "'; allocations: " + names(tree));
    }

    /**
     * A share named an allocation the tree lacks: the one error a caller whose tree may lag an edit (the service's
     * scheduler, a cycle behind the store) hints about; a bad value or a sum of shares is not a matter of lag.
     */
    public static final class UnknownAllocation extends IllegalArgumentException {
        UnknownAllocation(String message) {
            super(message);
        }
    }

    private static String names(AllocationTree tree) {
        StringBuilder sb = new StringBuilder();
        for (int n = 1; n < tree.nodeCount() && n <= 20; n++) {
            sb.append(n > 1 ? ", " : "").append(tree.name(n));
        }
        return sb.append(tree.nodeCount() > 21 ? ", ..." : "").toString();
    }

    /**
     * {@code base} with some settings of {@code factory}'s policy changed; keys are {@code <policy>.<setting>} (as
     * {@code allot sweep} names them) for that policy. Shared settings and other policies' settings are refused.
     */
    public static Settings withSettings(PolicyFactory factory, Settings base, Map<String, String> changes) {
        Map<String, String> merged = new LinkedHashMap<>(base.asText());
        for (Map.Entry<String, String> e : new TreeMap<>(changes).entrySet()) {
            String key = e.getKey();
            if (SHARED.contains(key)) {
                throw new IllegalArgumentException("setting '" + key + "' is shared by every policy and shapes the"
                        + " state itself (its usage ledger and protections); a what-if plays the state as it is, so"
                        + " only the policy's own settings (" + factory.name() + ".<setting>) can be tried");
            }
            int dot = key.indexOf('.');
            if (dot <= 0 || !key.substring(0, dot).equals(factory.name())) {
                throw new IllegalArgumentException("setting '" + key + "': expected " + factory.name()
                        + ".<setting>, a setting of the policy that runs ('" + factory.name() + "'); its settings: "
                        + String.join(", ", settingKeys(factory)));
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException("setting '" + key + "': expected a value, got none");
            }
            String name = key.substring(dot + 1);
            SettingSpec spec = factory.settings().stream().filter(s -> s.key().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown setting '" + key + "'; valid settings: "
                            + String.join(", ", settingKeys(factory))));
            // Each value is read on its own, so that a bad one is named by the key it was given under.
            spec.withKey(key).parse(e.getValue());
            merged.put(name, e.getValue());
        }
        Settings settings = Settings.parse(factory.settings(), merged, "settings");
        try {
            factory.checkValues(settings);
        } catch (IllegalArgumentException e) {
            // a complaint about one of the settings changed is named by its key alone: it said "setting
            // 'allocation.waste-limit': waste-limit must be ...", naming the setting twice
            for (String key : new TreeMap<>(changes).keySet()) {
                String complaint = PolicyFactory.complaintAbout(key.substring(key.indexOf('.') + 1), e.getMessage());
                if (complaint != null) {
                    throw new IllegalArgumentException("setting '" + key + "': " + complaint, e);
                }
            }
            throw new IllegalArgumentException((changes.size() == 1 ? "setting '" + changes.keySet().iterator().next()
                    + "'" : "settings " + new TreeMap<>(changes).keySet()) + ": " + e.getMessage(), e);
        }
        return settings;
    }

    /** The keys {@link #withSettings} accepts for {@code factory}'s policy. */
    public static List<String> settingKeys(PolicyFactory factory) {
        return factory.settings().stream().map(s -> factory.name() + "." + s.key()).sorted().toList();
    }
}
