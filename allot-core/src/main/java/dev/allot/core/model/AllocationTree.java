package dev.allot.core.model;

import dev.allot.core.rules.Shares;
import dev.allot.core.rules.Violation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The allocation tree: managers split the cluster down a tree (org &gt; program &gt; project). Each node has
 * a share, a weight among its siblings; the absolute entitlement of a node is the product of its normalised
 * shares down the path from the root. Leaves are the allocations that workloads name.
 *
 * <p>Nodes are numbered in depth-first preorder, children in the order they were declared; the root is node 0.
 * Leaves are also numbered 0..leafCount-1 in the same preorder. Names are unique across the whole tree.
 * The tree is immutable: an edit builds a new tree.
 */
public final class AllocationTree {
    private final String[] names;
    private final int[] parent;
    private final int[] depth;
    private final double[] share;
    private final double[] entitlement;
    private final int[][] children;
    private final List<List<String>> managers;
    private final int[] leafNode;
    private final int[] leafOfNode;
    private final Map<String, Integer> nodeByName;

    private AllocationTree(List<Def> defs) {
        int n = defs.size();
        names = new String[n];
        parent = new int[n];
        depth = new int[n];
        share = new double[n];
        entitlement = new double[n];
        children = new int[n][];
        managers = new ArrayList<>(n);
        leafOfNode = new int[n];
        nodeByName = new HashMap<>();
        List<Integer> leaves = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Def d = defs.get(i);
            names[i] = d.name;
            parent[i] = d.parent;
            depth[i] = d.parent < 0 ? 0 : depth[d.parent] + 1;
            share[i] = d.share;
            managers.add(List.copyOf(d.managers));
            children[i] = d.children.stream().mapToInt(Integer::intValue).toArray();
            if (nodeByName.put(d.name, i) != null) {
                throw new IllegalArgumentException("allocation name '" + d.name + "' is used twice; names must be unique in the tree");
            }
        }
        for (int i = 0; i < n; i++) {
            if (children[i].length == 0) {
                leafOfNode[i] = leaves.size();
                leaves.add(i);
            } else {
                leafOfNode[i] = -1;
            }
        }
        leafNode = leaves.stream().mapToInt(Integer::intValue).toArray();
        entitlement[0] = 1.0;
        for (int i = 0; i < n; i++) {
            if (children[i].length == 0) {
                continue;
            }
            double sum = 0;
            for (int c : children[i]) {
                sum += share[c];
            }
            Optional<Violation> bad = Shares.checkSiblings(names[i], sum);
            if (bad.isPresent()) {
                throw new IllegalArgumentException("allocation '" + names[i] + "': " + bad.get());
            }
            for (int c : children[i]) {
                entitlement[c] = entitlement[i] * share[c] / sum;
            }
        }
    }

    /** Starts a tree whose root has the given name. */
    public static Builder builder(String rootName) {
        return new Builder(rootName);
    }

    public int nodeCount() {
        return names.length;
    }

    public int leafCount() {
        return leafNode.length;
    }

    public String name(int node) {
        return names[node];
    }

    public int parent(int node) {
        return parent[node];
    }

    public int depth(int node) {
        return depth[node];
    }

    /** The declared share of a node: a weight among its siblings. */
    public double share(int node) {
        return share[node];
    }

    /** The share of a node normalised among its siblings (1 for the root). */
    public double normalisedShare(int node) {
        return parent[node] < 0 ? 1.0 : entitlement[node] / entitlement[parent[node]];
    }

    /** The fraction of the whole cluster this node is entitled to. */
    public double entitlement(int node) {
        return entitlement[node];
    }

    public int[] children(int node) {
        return children[node].clone();
    }

    public int child(int node, int i) {
        return children[node][i];
    }

    public int childrenCount(int node) {
        return children[node].length;
    }

    public List<String> managers(int node) {
        return managers.get(node);
    }

    public boolean isLeaf(int node) {
        return children[node].length == 0;
    }

    /** The tree node of leaf number {@code leaf}. */
    public int leafNode(int leaf) {
        return leafNode[leaf];
    }

    /** The leaf number of a tree node, or -1 when the node is not a leaf. */
    public int leafOf(int node) {
        return leafOfNode[node];
    }

    public double leafEntitlement(int leaf) {
        return entitlement[leafNode[leaf]];
    }

    public String leafName(int leaf) {
        return names[leafNode[leaf]];
    }

    public Optional<Integer> node(String name) {
        return Optional.ofNullable(nodeByName.get(name));
    }

    /** The leaf number of the allocation with this name, if it is a leaf. */
    public Optional<Integer> leaf(String name) {
        Integer n = nodeByName.get(name);
        if (n == null || leafOfNode[n] < 0) {
            return Optional.empty();
        }
        return Optional.of(leafOfNode[n]);
    }

    /** Names of all leaves in preorder, for error messages that list the valid choices. */
    public List<String> leafNames() {
        List<String> out = new ArrayList<>(leafNode.length);
        for (int n : leafNode) {
            out.add(names[n]);
        }
        return Collections.unmodifiableList(out);
    }

    /** The path from the root to a node, e.g. {@code lab/nlp/pretrain}. */
    public String path(int node) {
        List<String> parts = new ArrayList<>();
        for (int n = node; n >= 0; n = parent[n]) {
            parts.add(names[n]);
        }
        Collections.reverse(parts);
        return String.join("/", parts);
    }

    /** Whether {@code node} is {@code ancestor} or lies below it. */
    public boolean isWithin(int node, int ancestor) {
        for (int n = node; n >= 0; n = parent[n]) {
            if (n == ancestor) {
                return true;
            }
        }
        return false;
    }

    private static final class Def {
        final String name;
        final int parent;
        final double share;
        final List<String> managers;
        final List<Integer> children = new ArrayList<>();

        Def(String name, int parent, double share, List<String> managers) {
            this.name = name;
            this.parent = parent;
            this.share = share;
            this.managers = managers;
        }
    }

    /**
     * Builds a tree in preorder: {@code child(...)} adds a child to the current node and descends into it,
     * {@code up()} returns to the parent; {@code leaf(...)} adds a child without descending.
     */
    public static final class Builder {
        private final List<Def> defs = new ArrayList<>();
        private int current;

        private Builder(String rootName) {
            defs.add(new Def(Objects.requireNonNull(rootName), -1, 1.0, List.of()));
            current = 0;
        }

        public Builder managers(List<String> names) {
            Def d = defs.get(current);
            defs.set(current, copyWithManagers(d, names));
            return this;
        }

        private static Def copyWithManagers(Def d, List<String> names) {
            Def c = new Def(d.name, d.parent, d.share, List.copyOf(names));
            c.children.addAll(d.children);
            return c;
        }

        /** Adds a child and descends into it. */
        public Builder child(String name, double share) {
            return child(name, share, List.of());
        }

        public Builder child(String name, double share, List<String> managers) {
            int idx = add(name, share, managers);
            current = idx;
            return this;
        }

        /** Adds a leaf child of the current node without descending. */
        public Builder leaf(String name, double share) {
            add(name, share, List.of());
            return this;
        }

        public Builder leaf(String name, double share, List<String> managers) {
            add(name, share, managers);
            return this;
        }

        public Builder up() {
            if (defs.get(current).parent < 0) {
                throw new IllegalStateException("already at the root");
            }
            current = defs.get(current).parent;
            return this;
        }

        private int add(String name, double share, List<String> managers) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("allocation names must not be blank");
            }
            Optional<Violation> bad = Shares.check(share);
            if (bad.isPresent()) {
                throw new IllegalArgumentException("allocation '" + name + "': " + bad.get());
            }
            int idx = defs.size();
            defs.add(new Def(name, current, share, managers));
            defs.get(current).children.add(idx);
            return idx;
        }

        public AllocationTree build() {
            // preorder numbering: re-number the definitions depth-first so that node ids are in preorder.
            List<Def> ordered = new ArrayList<>(defs.size());
            int[] newIndex = new int[defs.size()];
            preorder(0, -1, ordered, newIndex);
            return new AllocationTree(ordered);
        }

        private void preorder(int old, int newParent, List<Def> out, int[] newIndex) {
            Def d = defs.get(old);
            int idx = out.size();
            newIndex[old] = idx;
            Def copy = new Def(d.name, newParent, d.share, d.managers);
            out.add(copy);
            if (newParent >= 0) {
                out.get(newParent).children.add(idx);
            }
            for (int c : d.children) {
                preorder(c, idx, out, newIndex);
            }
        }
    }
}
