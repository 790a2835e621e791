package dev.allot.server.api;

import dev.allot.core.backend.Launch;
import dev.allot.core.model.AllocationTree;
import dev.allot.core.timeline.TimelineData;
import dev.allot.core.timeline.TimelineEncoder;
import dev.allot.core.timeline.TimelineNodes;
import dev.allot.core.timeline.TimelineWorkloads;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AllocationTrees;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Attempts.AttemptOfWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Nodes.HealthChange;
import dev.allot.server.store.Workload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code GET /v1/timeline}: the live cluster's per-GPU timeline over a window, in the format the report's drawing
 * code reads (allot-web's model.js and timeline.js): the allocation tree as the report's {@code scenario.allocations},
 * the nodes ({@link TimelineNodes}), the workloads that ran ({@link TimelineWorkloads}) and their attempts as runs
 * ({@link TimelineData}, written by the core's {@link TimelineEncoder}). Times are whole seconds from the window's
 * start ({@code originSeconds}, seconds since the epoch); runs are clipped to the window, an open attempt running to
 * its end (now).
 *
 * <p>What the store does not keep is derived or left out, and said so: a node's unhealthy periods come from the
 * audited changes of its health in the window (its health at the window's start is the first change's "before", or
 * its current health when nothing changed); it counts as drained from when the last attempt on it ended (or from
 * when it became unhealthy, if nothing ran there) until it was healthy again. The rule that stopped an attempt is kept
 * only as words, so {@code cause} is -1 and the words are the run's {@code notes} entry; a preemptor that did not run
 * in the window is -1 too. Minimum runtimes are as submitted.
 */
final class LiveTimeline {
    static final int DEFAULT_HOURS = 24;
    /** At most 31 days back. */
    static final int MAX_HOURS = 31 * 24;

    private LiveTimeline() {
    }

    /** One node of the allocation tree, as the drawing code reads it (the report's {@code scenario.allocations}). */
    record AllocationNode(String name, String path, double share, double entitlement, boolean leaf) {
    }

    /**
     * The answer.
     *
     * @param originSeconds the window's start, seconds since the epoch: time 0 of every other time
     * @param endSeconds    the window's length, now
     * @param notes         per run of {@code timeline}, in its order: the attempt and how it ended, in words
     */
    record View(String since, String until, long originSeconds, long endSeconds, List<AllocationNode> allocations,
                TimelineNodes nodes, TimelineWorkloads workloads, TimelineData timeline, List<String> notes) {
    }

    /**
     * The timeline of {@code [sinceMillis, untilMillis)}; {@code sinceMillis} is taken down to a whole second. A note
     * carries the backend's words of its attempt's reason only when {@code maySeeDetails} holds for its workload.
     */
    static View of(List<Allocation> tree, List<Node> registered, List<AttemptOfWorkload> attempts,
                   List<HealthChange> changes, long sinceMillis, long untilMillis,
                   java.util.function.Predicate<Workload> maySeeDetails) {
        long origin = Math.floorDiv(sinceMillis, 1000);
        long originMillis = origin * 1000;
        long end = Math.max(0, (untilMillis - originMillis) / 1000);

        List<AllocationNode> allocations = new ArrayList<>();
        Map<String, Integer> leafOf = new HashMap<>();
        if (!tree.isEmpty()) {
            AllocationTree core = AllocationTrees.of(tree);
            TreeSet<String> parents = new TreeSet<>();
            tree.forEach(a -> { if (a.parentPath() != null) parents.add(a.parentPath()); });
            for (Allocation a : tree) {
                boolean leaf = !parents.contains(a.path());
                if (leaf) {
                    leafOf.put(a.path(), leafOf.size());
                }
                allocations.add(new AllocationNode(a.path().substring(a.path().lastIndexOf('/') + 1), a.path(), a.share(),
                        core.entitlement(core.node(a.path()).orElseThrow()), leaf));
            }
        }

        // Rows: the registered nodes by name, then any node an attempt names that is no longer registered; a node has
        // at least as many GPUs as the highest lane an attempt used on it.
        Map<String, Integer> gpusOf = new LinkedHashMap<>();
        registered.forEach(n -> gpusOf.put(n.name(), n.gpus()));
        TreeMap<String, Integer> unregistered = new TreeMap<>();
        for (AttemptOfWorkload aw : attempts) {
            for (Launch.NodeGpus p : aw.attempt().placement()) {
                int lanes = p.gpus().stream().mapToInt(g -> g + 1).max().orElse(1);
                if (gpusOf.containsKey(p.node())) {
                    gpusOf.merge(p.node(), lanes, Math::max);
                } else {
                    unregistered.merge(p.node(), lanes, Math::max);
                }
            }
        }
        gpusOf.putAll(unregistered);
        List<String> nodeNames = List.copyOf(gpusOf.keySet());
        Map<String, Integer> nodeIndex = new HashMap<>();
        for (int i = 0; i < nodeNames.size(); i++) {
            nodeIndex.put(nodeNames.get(i), i);
        }

        // Workloads, in the order they first ran in the window.
        Map<String, Integer> workloadIndex = new LinkedHashMap<>();
        List<Workload> workloads = new ArrayList<>();
        for (AttemptOfWorkload aw : attempts) {
            if (workloadIndex.putIfAbsent(aw.workload().id(), workloads.size()) == null) {
                workloads.add(aw.workload());
            }
        }

        record Noted(TimelineEncoder.Run run, String note) {
        }
        List<Noted> runs = new ArrayList<>(attempts.size());
        for (AttemptOfWorkload aw : attempts) {
            Attempt a = aw.attempt();
            Workload w = aw.workload();
            long realStart = Math.floorDiv(a.startedAtMillis() - originMillis, 1000);
            long start = Math.max(0, Math.min(end, realStart));
            long stop = a.endedAtMillis() == null ? end
                    : Math.max(start, Math.min(end, Math.floorDiv(a.endedAtMillis() - originMillis, 1000)));
            long protectedUntil = realStart + w.minRuntimeSeconds();
            // As the simulator records it: unallocated work is preemptible throughout; a run that ended (or is, now)
            // inside its minimum runtime was protected throughout; else protected until its minimum runtime is up.
            long protectedFor = w.minRuntimeSeconds() == 0 ? 0 : protectedUntil >= stop ? -1
                    : Math.max(0, protectedUntil - start);
            int endKind = a.outcome() == null ? 3 : switch (a.outcome()) {
                case COMPLETED -> 0;
                case PREEMPTED -> 1;
                case REQUEUED -> 2;
                case FAILED -> 4;
                case CANCELLED -> 5;
                case LOST -> 6;
            };
            runs.add(new Noted(new TimelineEncoder.Run(workloadIndex.get(w.id()), start, stop, protectedFor, endKind, -1,
                    a.preemptor() == null ? -1 : workloadIndex.getOrDefault(a.preemptor(), -1),
                    slots(a.placement(), nodeIndex)), note(a, maySeeDetails.test(w))));
        }
        // The encoder sorts by start then workload, stably; sorted the same way first, the notes keep its order.
        runs.sort(Comparator.comparingLong((Noted n) -> n.run().startSeconds()).thenComparingInt(n -> n.run().workload()));
        TimelineEncoder encoder = new TimelineEncoder();
        runs.forEach(n -> encoder.add(n.run()));
        int[] gpus = nodeNames.stream().mapToInt(gpusOf::get).toArray();
        periods(encoder, nodeNames, registered, changes, runs.stream().map(Noted::run).toList(), originMillis, end);

        return new View(Views.instant(originMillis), Views.instant(untilMillis), origin, end, allocations,
                new TimelineNodes(nodeNames, gpus), workloads(workloads, leafOf, originMillis), encoder.encode(),
                runs.stream().map(Noted::note).toList());
    }

    private static String note(Attempt a, boolean maySeeDetails) {
        StringBuilder s = new StringBuilder("attempt ").append(a.key().attempt());
        if (a.outcome() != null) {
            s.append(", ").append(a.outcome().label());
        } else {
            s.append(", ").append(a.phase().label());
        }
        String reason = a.reasonFor(maySeeDetails);
        if (reason != null) {
            s.append(": ").append(reason);
        }
        if (a.preemptor() != null) {
            s.append(" (for ").append(a.preemptor()).append(')');
        }
        return s.toString();
    }

    /** A placement as (node, first lane, lane count) triples, lanes ascending, consecutive lanes merged. */
    private static int[] slots(List<Launch.NodeGpus> placement, Map<String, Integer> nodeIndex) {
        List<Integer> out = new ArrayList<>();
        for (Launch.NodeGpus p : placement) {
            int[] lanes = p.gpus().stream().mapToInt(Integer::intValue).sorted().toArray();
            for (int i = 0; i < lanes.length; i++) {
                if (i > 0 && lanes[i] == lanes[i - 1] + 1) {
                    out.set(out.size() - 1, out.get(out.size() - 1) + 1);
                } else {
                    out.add(nodeIndex.get(p.node()));
                    out.add(lanes[i]);
                    out.add(1);
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Each node's unhealthy periods from the audited changes, and the drained part of each (see the class comment). */
    private static void periods(TimelineEncoder encoder, List<String> nodeNames, List<Node> registered,
                                List<HealthChange> changes, List<TimelineEncoder.Run> runs, long originMillis, long end) {
        Map<String, List<HealthChange>> byNode = new HashMap<>();
        changes.forEach(c -> byNode.computeIfAbsent(c.node(), k -> new ArrayList<>()).add(c));
        Map<String, Boolean> healthyNow = new HashMap<>();
        registered.forEach(n -> healthyNow.put(n.name(), n.healthy()));
        for (int n = 0; n < nodeNames.size(); n++) {
            List<HealthChange> mine = byNode.getOrDefault(nodeNames.get(n), List.of());
            boolean healthyAtStart = mine.isEmpty() ? healthyNow.getOrDefault(nodeNames.get(n), true)
                    : mine.get(0).healthyBefore() == null || mine.get(0).healthyBefore();
            long unhealthyFrom = healthyAtStart ? -1 : 0;
            for (HealthChange c : mine) {
                long t = Math.max(0, Math.min(end, (c.atMillis() - originMillis) / 1000));
                if (!c.healthyAfter() && unhealthyFrom < 0) {
                    unhealthyFrom = t;
                } else if (c.healthyAfter() && unhealthyFrom >= 0) {
                    unhealthy(encoder, n, unhealthyFrom, t, runs);
                    unhealthyFrom = -1;
                }
            }
            if (unhealthyFrom >= 0) {
                unhealthy(encoder, n, unhealthyFrom, end, runs);
            }
        }
    }

    private static void unhealthy(TimelineEncoder encoder, int node, long from, long to, List<TimelineEncoder.Run> runs) {
        encoder.add(new TimelineEncoder.Period(node, TimelineData.UNHEALTHY, from, to));
        long drainedFrom = from;
        for (TimelineEncoder.Run r : runs) {
            if (!onNode(r, node) || r.startSeconds() >= to || r.endSeconds() <= from) {
                continue;
            }
            if (r.endSeconds() >= to) {
                return; // still running when the node became healthy again (or now): not drained
            }
            drainedFrom = Math.max(drainedFrom, r.endSeconds());
        }
        if (drainedFrom < to) {
            encoder.add(new TimelineEncoder.Period(node, TimelineData.DRAINED, drainedFrom, to));
        }
    }

    private static boolean onNode(TimelineEncoder.Run r, int node) {
        for (int k = 0; k < r.slots().length; k += 3) {
            if (r.slots()[k] == node) {
                return true;
            }
        }
        return false;
    }

    private static TimelineWorkloads workloads(List<Workload> ws, Map<String, Integer> leafOf, long originMillis) {
        return TimelineWorkloads.of(ws.stream().map(w -> new TimelineWorkloads.Row(w.id(),
                leafOf.getOrDefault(w.allocationPath(), -1), w.gpus(),
                Math.floorDiv(w.submittedAtMillis() - originMillis, 1000),
                w.durationSeconds() == null ? -1 : w.durationSeconds(), w.minRuntimeSeconds(), w.resumable(),
                w.priority(), w.kind())).toList());
    }
}
