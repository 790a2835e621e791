package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.BackendException;
import dev.allot.core.model.Words;
import dev.allot.core.state.Job;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Node;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes of the tree and the nodes after the load ({@link Adoption} loads): a {@link SchedulerLoop} cycle takes them
 * in, a node's health in place, anything else by a rebuild of the core, stopping as lost the work whose GPUs are gone.
 * Works on the loop's shared {@link LoopCore}, on the loop's thread.
 *
 * <p>A cycle reads the tree and the nodes from the store after {@link SchedulerLoop#topologyChanged()}
 * (the API and the health check call it) and at least every {@link SchedulerLoop#TOPOLOGY_REFRESH_SECONDS}. A change of
 * a node's health is applied to the core in place (an unhealthy node takes no new work and drains by the policy's
 * rule). Any other change (a share, an allocation or a node added, a node's GPU count) rebuilds the core the way a load
 * does, from the same books: usage seeded again, every job registered again with how often it was preempted (the
 * shortest turn counts it; at a load, counted from the stored attempts: running work's here, waiting work's as the
 * intake admits it with the brakes' totals), running ones resumed from their attempts' starts, deferred starts decided
 * anew, stopping attempts still fenced. A node whose GPU count shrank
 * under running work (an edit, or the backend's count) loses that work: an attempt holding a GPU the node no longer has
 * is stopped through the backend and ends as lost, with a reason naming the node and its new count (requeued if
 * resumable, failed otherwise: the store's rule for lost work), fencing only the GPUs that remain until it has ended.
 * The store refuses the edits the core could not follow (an allocation with unfinished work removed or given children;
 * nodes are never removed). New policy settings ({@link SchedulerLoop#usePolicy}, after {@code PUT /v1/policy}) rebuild
 * the core the same way at the start of the next cycle, with the new lookback and usage bucket.
 */
final class TopologyChanges {
    /** The loop's logger, so that what the parts say is logged as before the loop was split. */
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    private final LoopCore c;

    TopologyChanges(LoopCore c) {
        this.c = Objects.requireNonNull(c, "core");
    }

    /** Marks in the core the nodes whose health differs from the store's (work adopted on them then drains). */
    void markHealth(List<Node> nodes, long now) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).healthy() != c.state.nodes().isHealthy(i)) {
                c.state.setHealthy(i, nodes.get(i).healthy(), now);
                LOG.info("node {} is {}{}", nodes.get(i).name(), nodes.get(i).healthy() ? "healthy" : "unhealthy",
                        nodes.get(i).reason() == null ? "" : ": " + nodes.get(i).reason());
                c.dirty = true;
            }
        }
        c.state.nodes().takeDrainNotices();
        if (!c.following) {
            tellBackendHealth(nodes); // a standby's view tells the backend nothing: the leader does
        }
    }

    /**
     * Mirrors node health in a backend that manages nodes (Slurm drains a node Allot found unhealthy, so that its own
     * tools show it and nothing else lands there). Asked once per change; a failed call is asked again at the next
     * read of the nodes. At load every node is told once (the backend leaves alone what is already so).
     */
    void tellBackendHealth(List<Node> nodes) {
        for (Node n : nodes) {
            if (Boolean.valueOf(n.healthy()).equals(c.toldHealthy.get(n.name()))) {
                continue;
            }
            try {
                if (n.healthy()) {
                    c.backend.resume(n.name());
                } else {
                    c.backend.drain(n.name(), n.reason() == null ? "unhealthy" : n.reason());
                }
                c.toldHealthy.put(n.name(), n.healthy());
            } catch (BackendException e) {
                LOG.warn("could not {} node {} on the {} backend, trying again: {}", n.healthy() ? "resume" : "drain",
                        n.name(), c.backend.name(), e.getMessage());
                c.topologyHint.set(true);
            }
        }
    }

    /**
     * Takes in changes of the tree and the nodes made since the last cycle: a change of health is applied to the
     * core in place; any other change (a share, an allocation or a node added, a node's GPUs) rebuilds the core.
     */
    void refreshTopology(long now) {
        if (!c.topologyHint.getAndSet(false) && now - c.lastTopologyReadAt < SchedulerLoop.TOPOLOGY_REFRESH_SECONDS) {
            return;
        }
        c.lastTopologyReadAt = now;
        List<Allocation> allocations = c.store.allocations().allocations();
        List<Node> nodes = c.store.nodes().nodes();
        if (!CoreBuilder.Topology.of(allocations, nodes).equals(c.topology) && !allocations.isEmpty()) {
            rebuild(allocations, nodes, now, "the allocation tree or the nodes changed");
        }
        markHealth(nodes, now);
    }

    /**
     * Rebuilds the core on the store's current tree and nodes, keeping everything else: the window's usage is seeded
     * from the store again; every job the old core held is registered again (same spec); those running on a launched
     * attempt are resumed at the attempt's start (their protection unchanged); those whose start was deferred wait
     * again (the policy decides anew); attempts being stopped stay fenced. Workloads the old core refused are offered
     * again.
     */
    void rebuild(List<Allocation> allocations, List<Node> nodes, long now, String why) {
        // the stops of lost work are sent once the new state is whole (a backend call lets the API's reads in)
        c.carrier.sendingAfter(() -> rebuildNow(allocations, nodes, now, why));
    }

    private void rebuildNow(List<Allocation> allocations, List<Node> nodes, long now, String why) {
        List<Job> before = new ArrayList<>(c.active.values());
        c.adoption.buildState(allocations, nodes, now);
        c.rebuilds++;
        Set<String> lost = new HashSet<>();
        for (LiveAttempt l : new ArrayList<>(c.books.live.values())) {
            LiveAttempt.Mapped m = LiveAttempt.map(l.where, c.nodeNames, c.sizes);
            if (m.ok()) {
                l.placement = m.placement();
                l.lanes = m.lanes();
                continue;
            }
            // Some of its GPUs are no longer the cluster's: it fences only those that remain while it stops.
            LiveAttempt.Mapped rest = LiveAttempt.remaining(l.where, c.nodeNames, c.sizes);
            l.placement = rest.placement();
            l.lanes = rest.lanes();
            if (l.stopping) {
                LOG.warn("attempt {}, being stopped, lost GPUs: {}", l.key, m.failure());
            } else {
                lose(l, "its GPUs are gone: " + m.failure());
                lost.add(l.jobId);
            }
        }
        c.books.live.reindex(); // the placements above are over the new nodes
        c.active.clear();
        c.books.deferred.clear();
        Set<String> refusedNow = new HashSet<>(); // tried against the new cluster below, and logged
        for (Job old : before) {
            if (lost.contains(old.id()) && !c.adoption.requeuedWhenLost(old.id())) {
                continue; // ends with its attempt (failed in the store); the new core never runs it
            }
            Job job;
            try {
                job = c.state.register(old.spec());
                c.state.rerank(job, old.queueRank()); // its place within its second, as the core before had it
            } catch (IllegalArgumentException e) {
                c.refused.put(old.id(), e.getMessage());
                refusedNow.add(old.id());
                LOG.warn("workload {} cannot be scheduled after the change: {}", old.id(), e.getMessage());
                AttemptKey key = c.books.runningAttempt.get(old.id());
                if (key != null) {
                    lose(c.books.live.get(key), "the cluster cannot hold it after the change: " + e.getMessage());
                }
                continue;
            }
            c.state.submit(job, now);
            c.state.restorePreemptions(job, old.preemptions());
            AttemptKey key = c.books.runningAttempt.get(old.id());
            LiveAttempt l = key == null ? null : c.books.live.get(key);
            if (l != null && !l.stopping) {
                c.state.resume(job, l.placement, Math.min(l.startedAtSeconds, now), now);
            } else {
                c.books.runningAttempt.remove(old.id());
                if (lost.contains(old.id())) {
                    c.queuedSince.put(old.id(), now);
                }
            }
            c.active.put(job.id(), job);
        }
        for (LiveAttempt l : c.books.live.values()) {
            if (l.stopping) {
                l.stop = null; // held by the old core; the new one holds its GPUs until it ends
                c.carrier.holdWhileStopping(l, now);
            }
        }
        // those refused before the change may fit now; those refused just above were tried against it already (admitted
        // again, each was refused and logged a second time)
        for (String id : List.copyOf(c.refused.keySet())) {
            if (refusedNow.contains(id)) {
                continue;
            }
            c.refused.remove(id);
            c.store.workloads().workload(id).filter(c.intake::waitsForCore).ifPresent(w -> c.intake.admit(w, now));
        }
        LOG.info("{}: the core was rebuilt with {}, {}, {}", why,
                Words.count(nodes.size(), "node"), Words.count(allocations.size(), "allocation"),
                Words.count(c.active.size(), "workload"));
    }

    /**
     * Stops a running attempt the cluster can no longer hold (its node lost the GPUs it runs on): it ends as lost
     * with this reason once the backend has stopped it, requeued or ended by the store's rule for lost work
     * ({@link AttemptOutcome#workloadState}); the core no longer runs it.
     */
    void lose(LiveAttempt l, String reason) {
        if (c.following) {
            c.books.runningAttempt.remove(l.jobId); // a standby's view: the leader stops it, and the view reloads
            c.dirty = true;
            return;
        }
        LOG.atWarn().addKeyValue("attempt", l.key).log("attempt {} is stopped as lost: {}", l.key, reason);
        c.books.runningAttempt.remove(l.jobId);
        l.cause = null;
        l.lostReason = reason;
        c.dirty = true;
        c.carrier.requestStop(l);
    }
}
