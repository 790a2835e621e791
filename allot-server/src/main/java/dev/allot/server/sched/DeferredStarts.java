package dev.allot.server.sched;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The starts the core counts as running but that wait for a fence, by workload id in the order they were decided,
 * and also by node: the lane choice of a start marks the lanes of the deferred starts on its own nodes only
 * ({@link #onNode}). Walking every deferred start for every start made the lane choice quadratic (the intake of
 * 10,000 submissions defers some 500 of its 1,500 starts: about 2.5% of the loop's CPU; issue 21). Owned by the
 * loop (not thread-safe).
 */
final class DeferredStarts {
    private final Map<String, Books.Deferred> byJob = new LinkedHashMap<>();
    /** Per node, the deferred starts placed on it, by workload id. */
    private final Map<Integer, Map<String, Books.Deferred>> byNode = new HashMap<>();

    /** Records a deferred start (replacing the workload's earlier one, if any); returns the one replaced. */
    Books.Deferred put(String jobId, Books.Deferred d) {
        Books.Deferred was = remove(jobId);
        byJob.put(jobId, d);
        if (d.placement() != null) {
            for (int i = 0; i < d.placement().nodeCount(); i++) {
                byNode.computeIfAbsent(d.placement().node(i), n -> new HashMap<>()).put(jobId, d);
            }
        }
        return was;
    }

    /** Forgets the workload's deferred start; returns it, or null when it had none. */
    Books.Deferred remove(String jobId) {
        Books.Deferred d = byJob.remove(jobId);
        if (d != null && d.placement() != null) {
            for (int i = 0; i < d.placement().nodeCount(); i++) {
                Map<String, Books.Deferred> on = byNode.get(d.placement().node(i));
                if (on != null) {
                    on.remove(jobId);
                    if (on.isEmpty()) {
                        byNode.remove(d.placement().node(i));
                    }
                }
            }
        }
        return d;
    }

    void clear() {
        byJob.clear();
        byNode.clear();
    }

    boolean containsKey(String jobId) {
        return byJob.containsKey(jobId);
    }

    boolean isEmpty() {
        return byJob.isEmpty();
    }

    /** Every deferred start, in the order they were decided (read-only). */
    Collection<Books.Deferred> values() {
        return Collections.unmodifiableCollection(byJob.values());
    }

    /** The deferred workloads' ids, in the order they were decided (read-only). */
    Set<String> keySet() {
        return Collections.unmodifiableSet(byJob.keySet());
    }

    /** The deferred starts with GPUs on {@code node} (read-only; empty when none). */
    Collection<Books.Deferred> onNode(int node) {
        Map<String, Books.Deferred> on = byNode.get(node);
        return on == null ? Collections.emptyList() : Collections.unmodifiableCollection(on.values());
    }
}
