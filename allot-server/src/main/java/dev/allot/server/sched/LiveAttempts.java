package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The attempts the loop started (or adopted) that have not been seen to end ({@link Books#live}), by key, and
 * indexed by the core nodes they hold GPUs on and by workload. A start's lane choice asks only the attempts on its
 * own nodes, and whether its workload still has an attempt open is one lookup: in the cycle that takes in 10,000
 * submissions each of some 1,000 starts walked every one of 2,300 live attempts, twice (issue 21).
 *
 * <p>The node index follows each attempt's {@link LiveAttempt#placement} as it was when the attempt was put; the
 * loop changes placements only when the core's nodes change ({@link TopologyChanges#rebuild}), which then calls
 * {@link #reindex}. An attempt is taken out of the index by the nodes it was put under, so removing one whose
 * placement changed meanwhile is safe. Owned by the loop's thread (not thread-safe).
 */
final class LiveAttempts {
    /** In key order, for {@link #values}: the loop walks the live attempts in an order that does not vary. */
    private final Map<AttemptKey, LiveAttempt> byKey = new TreeMap<>();
    /** The same by hash, for lookups (a tree lookup compares workload ids along its path). */
    private final Map<AttemptKey, LiveAttempt> lookup = new HashMap<>();
    /** The live attempts holding GPUs on each core node index. */
    private final Map<Integer, Set<LiveAttempt>> byNode = new HashMap<>();
    /** The node indexes each attempt was indexed under. */
    private final Map<AttemptKey, int[]> indexedOn = new HashMap<>();
    /** How many live attempts each workload has. */
    private final Map<String, Integer> perJob = new HashMap<>();

    LiveAttempt get(AttemptKey key) {
        return lookup.get(key);
    }

    boolean containsKey(AttemptKey key) {
        return lookup.containsKey(key);
    }

    /** The live attempts in key order (a view: copy it to change the books while walking it). */
    Collection<LiveAttempt> values() {
        return Collections.unmodifiableCollection(byKey.values());
    }

    void put(AttemptKey key, LiveAttempt l) {
        remove(key);
        byKey.put(key, l);
        lookup.put(key, l);
        perJob.merge(l.jobId, 1, Integer::sum);
        index(key, l);
    }

    LiveAttempt remove(AttemptKey key) {
        if (lookup.remove(key) == null) {
            return null;
        }
        LiveAttempt l = byKey.remove(key);
        perJob.computeIfPresent(l.jobId, (j, n) -> n == 1 ? null : n - 1);
        unindex(key, l);
        return l;
    }

    void clear() {
        byKey.clear();
        lookup.clear();
        byNode.clear();
        indexedOn.clear();
        perJob.clear();
    }

    /** Whether the workload has a live attempt. */
    boolean hasJob(String jobId) {
        return perJob.containsKey(jobId);
    }

    /** The live attempts holding GPUs on core node {@code node}, in no particular order. */
    Collection<LiveAttempt> onNode(int node) {
        Set<LiveAttempt> s = byNode.get(node);
        return s == null ? Collections.emptySet() : s;
    }

    /** Indexes every live attempt again by its placement as it is now (after the core's nodes changed). */
    void reindex() {
        byNode.clear();
        indexedOn.clear();
        for (Map.Entry<AttemptKey, LiveAttempt> e : byKey.entrySet()) {
            index(e.getKey(), e.getValue());
        }
    }

    private void index(AttemptKey key, LiveAttempt l) {
        int[] nodes = new int[l.placement == null ? 0 : l.placement.nodeCount()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = l.placement.node(i);
            byNode.computeIfAbsent(nodes[i], n -> new HashSet<>()).add(l);
        }
        indexedOn.put(key, nodes);
    }

    private void unindex(AttemptKey key, LiveAttempt l) {
        int[] nodes = indexedOn.remove(key);
        for (int n : nodes == null ? new int[0] : nodes) {
            Set<LiveAttempt> s = byNode.get(n);
            if (s != null && s.remove(l) && s.isEmpty()) {
                byNode.remove(n);
            }
        }
    }
}
