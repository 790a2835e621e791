package dev.allot.server.sched;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AllocationTrees;
import dev.allot.server.store.Attempts;
import dev.allot.server.store.ClusterSpecs;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Builds the core's {@link ClusterState} from what the store holds: the allocation tree, the nodes (all healthy; the
 * loop marks them), and the usage of the fair-share window, seeded from the stored attempts of allocated work, so
 * that a restarted or rebuilt scheduler ranks allocations as the one before it did. Also turns stored workloads into
 * the core's specs. No state of its own.
 */
public final class CoreBuilder {
    /** The work a workload that did not say how long it runs is assumed to need, for the policy's estimates. */
    public static final Duration DEFAULT_DURATION = Duration.ofDays(365);

    private CoreBuilder() {
    }

    /** What the core's shape depends on: the tree's paths and shares, the nodes' names and GPUs, in store order. */
    record Topology(List<String> allocations, List<String> nodes) {
        static Topology of(List<Allocation> allocations, List<Node> nodes) {
            return new Topology(allocations.stream().map(a -> a.path() + "=" + a.share()).toList(),
                    nodes.stream().map(n -> n.name() + "=" + n.gpus()).toList());
        }
    }

    /** A fresh state at {@code now} (seconds) with the window's usage seeded from the store. */
    static ClusterState build(Store store, List<Allocation> allocations, List<Node> nodes, SchedulerConfig config,
                              long now) {
        AllocationTree tree = AllocationTrees.of(allocations);
        ClusterState state = new ClusterState(ClusterSpecs.of(nodes), tree, config, now);
        long windowStart = now - state.ledger().windowSeconds() - state.ledger().bucketSeconds();
        for (Attempts.ChargedRun r : store.attempts().chargedRuns(windowStart * 1000, now * 1000)) {
            Optional<Integer> leaf = tree.leaf(r.allocationPath());
            if (leaf.isEmpty()) {
                continue; // an allocation removed since: its usage no longer counts for anyone
            }
            long from = Math.floorDiv(r.startedAtMillis(), 1000); // whole seconds: the ledger's unit
            long to = r.endedAtMillis() == null ? now : Math.min(now, Math.floorDiv(r.endedAtMillis(), 1000));
            state.seedUsage(leaf.get(), r.gpus(), from, to);
        }
        return state;
    }

    /**
     * Registers a stored workload in {@code state} as {@link #spec} makes it, standing among the work of its
     * allocation with its priority and submission second in the store's submission order ({@link Workload#seq}): the
     * core counts submissions in whole seconds and breaks their ties on ids, and "w-10" sorts before "w-2", so a
     * batch or a job array submitted within one second ran in the text order of its ids, not in the order given.
     * (A campaign's controller gives its shards their own places every cycle.)
     *
     * @throws IllegalArgumentException if the core cannot hold it (its message says why)
     */
    static dev.allot.core.state.Job register(ClusterState state, Workload w, long now) {
        dev.allot.core.state.Job job = state.register(spec(w, now));
        state.rerank(job, w.seq());
        return job;
    }

    /** A stored workload as the core's spec, submitted when it was (never after {@code now}). */
    public static WorkloadSpec spec(Workload w, long now) {
        WorkloadSpec.Builder b = WorkloadSpec.builder(w.id())
                .submitAt(Math.max(0, Math.min(Math.floorDiv(w.submittedAtMillis(), 1000), now)))
                .allocation(w.allocationPath())
                .user(w.user())
                .gpus(w.gpus())
                .gpusPerNode(w.gpusPerNode())
                .duration(w.durationSeconds() == null ? DEFAULT_DURATION : Duration.ofSeconds(w.durationSeconds()))
                .minRuntime(Duration.ofSeconds(w.minRuntimeSeconds()))
                .priority(w.priority())
                .kind(w.kind());
        if (w.resumable()) {
            b.resumableWithoutKnownCheckpoints(); // the service learns of no checkpoint: a preemption loses the attempt
        } else {
            b.notResumable();
        }
        return b.build();
    }
}
