package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Placement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An attempt the scheduling loop has launched (or adopted) and not yet seen end: where it runs, by node name and GPU
 * index as the store has it, and the same as the core's node indexes ({@link #placement}, {@link #lanes}, in the
 * placement's node order), which are mapped again when the core's nodes change. An attempt some of whose GPUs the
 * cluster no longer has (its node shrank) is being stopped as lost ({@link #lostReason}): it fences only the GPUs that
 * remain, and none at all ({@code placement} null) when none do. Mutable, owned by the loop's thread.
 */
final class LiveAttempt {
    final AttemptKey key;
    final String jobId;
    /** Where it runs, as stored: node names and GPU indexes. */
    final List<Launch.NodeGpus> where;
    /**
     * When its contract began, seconds since the epoch: its start, or the moment it was promoted in place (a rebuilt
     * core resumes it from then, so its protection ends when the promotion promised).
     */
    long startedAtSeconds;
    /** When the attempt began, epoch millis, as the store stamped it: what the backend tells the work. */
    long attemptStartedAtMillis;
    /** Where it runs in the core's node indexes; null when it holds no GPU the cluster still has. */
    Placement placement;
    int[][] lanes;
    /** Why it is being stopped as lost (its GPUs are gone), or null: it then ends as lost with this reason. */
    String lostReason;
    boolean markedRunning;
    /**
     * Adopted at a restart from a backend whose work may die with the service and not yet seen alive by it: if its
     * first observation shows it ended without an account of how, it died while the service was down
     * ({@link DiedWhileDown}).
     */
    boolean adoptedUnseen;
    /** The backend could not say whether it took the start: it is asked again each cycle until it can. */
    boolean startUnconfirmed;
    boolean stopping;
    boolean stopSent;
    /** When the stop was first asked (epoch millis), -1 before: the grace period counts from then. */
    long stopRequestedAtMillis = -1;
    boolean cancelled;
    PreemptionCause cause;
    ClusterState.PreemptionResult result;
    /**
     * While it stops: the core's hold on its GPUs ({@link ClusterState#holdUntilStopped}), released when it ends, so
     * that a start the core placed on them waits and its protection begins only at its launch. Null when it is not
     * stopping or holds no GPU the cluster still has. It belongs to the core of the moment: a rebuilt core holds
     * them anew.
     */
    dev.allot.core.state.StoppingAttempt stop;

    LiveAttempt(AttemptKey key, String jobId, List<Launch.NodeGpus> where, long startedAtSeconds, Placement placement,
                int[][] lanes) {
        this.key = key;
        this.jobId = jobId;
        this.where = List.copyOf(where);
        this.startedAtSeconds = startedAtSeconds;
        this.placement = placement;
        this.lanes = lanes;
    }

    /**
     * The stored GPUs as a core placement over {@code nodeNames} (node index, count) and lanes in the placement's
     * order, or a reason why they cannot be: a node the cluster does not have, an index beyond the node's GPUs, a
     * node or an index named twice.
     */
    static Mapped map(List<Launch.NodeGpus> where, List<String> nodeNames, int[] sizes) {
        Map<Integer, int[]> byNode = new TreeMap<>();
        for (Launch.NodeGpus ng : where) {
            int n = nodeNames.indexOf(ng.node());
            if (n < 0) {
                return Mapped.failed("it runs on node " + ng.node() + ", which the store no longer has");
            }
            int[] lanes = ng.gpus().stream().mapToInt(Integer::intValue).sorted().toArray();
            for (int i = 0; i < lanes.length; i++) {
                if (lanes[i] < 0 || lanes[i] >= sizes[n] || (i > 0 && lanes[i] == lanes[i - 1])) {
                    return Mapped.failed("it holds GPUs " + ng.gpus() + " of node " + ng.node() + ", which now has "
                            + sizes[n] + (sizes[n] == 1 ? " GPU" : " GPUs"));
                }
            }
            if (byNode.put(n, lanes) != null) {
                return Mapped.failed("it names node " + ng.node() + " twice");
            }
        }
        int[] nodes = byNode.keySet().stream().mapToInt(Integer::intValue).toArray();
        int[] counts = byNode.values().stream().mapToInt(l -> l.length).toArray();
        Placement p = new Placement(nodes, counts);
        int[][] lanes = new int[p.nodeCount()][];
        for (int i = 0; i < p.nodeCount(); i++) {
            lanes[i] = byNode.get(p.node(i));
        }
        return new Mapped(p, lanes, null);
    }

    /**
     * The stored GPUs that the cluster still has, as a placement with its lanes; placement and lanes null when it
     * has none of them. For an attempt {@link #map} could not map, which is being stopped: it fences only these.
     */
    static Mapped remaining(List<Launch.NodeGpus> where, List<String> nodeNames, int[] sizes) {
        Map<Integer, java.util.SortedSet<Integer>> byNode = new TreeMap<>();
        for (Launch.NodeGpus ng : where) {
            int n = nodeNames.indexOf(ng.node());
            if (n < 0) {
                continue;
            }
            for (int g : ng.gpus()) {
                if (g >= 0 && g < sizes[n]) {
                    byNode.computeIfAbsent(n, k -> new java.util.TreeSet<>()).add(g);
                }
            }
        }
        if (byNode.isEmpty()) {
            return new Mapped(null, null, null);
        }
        int[] nodes = byNode.keySet().stream().mapToInt(Integer::intValue).toArray();
        int[] counts = byNode.values().stream().mapToInt(java.util.Set::size).toArray();
        Placement p = new Placement(nodes, counts);
        int[][] lanes = new int[p.nodeCount()][];
        for (int i = 0; i < p.nodeCount(); i++) {
            lanes[i] = byNode.get(p.node(i)).stream().mapToInt(Integer::intValue).toArray();
        }
        return new Mapped(p, lanes, null);
    }

    /** Whether this attempt and a placement with its lanes share a GPU. */
    boolean overlaps(Placement other, int[][] otherLanes) {
        if (placement == null) {
            return false;
        }
        for (int i = 0; i < placement.nodeCount(); i++) {
            for (int j = 0; j < other.nodeCount(); j++) {
                if (placement.node(i) != other.node(j)) {
                    continue;
                }
                for (int a : lanes[i]) {
                    for (int b : otherLanes[j]) {
                        if (a == b) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /** A placement with its lanes, or why there is none. */
    record Mapped(Placement placement, int[][] lanes, String failure) {
        static Mapped failed(String why) {
            return new Mapped(null, null, why);
        }

        boolean ok() {
            return failure == null;
        }
    }
}
