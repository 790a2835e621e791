package dev.allot.core.sched;

import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Finds a minimal set of victims whose preemption lets a waiting workload fit, from candidates the policy has
 * already filtered (who may be preempted) and sorted (who should be preempted first).
 *
 * <p>Greedy in the policy's preference order, then a minimality pass in reverse order that drops every victim
 * the workload can do without. Gang-aware: for whole-node gangs it picks, per needed node, the cheapest victims
 * on that node and prefers nodes whose worst victim comes earliest in the preference order. Only GPUs on nodes
 * the workload may use (schedulable, not reserved for someone else) count.
 */
public final class VictimSearch {
    private VictimSearch() {
    }

    /**
     * The victims to preempt, in preference order, or null when even all candidates would not make room.
     *
     * @param work       the cycle: its view of free GPUs (not changed) and reusable buffers
     * @param candidates eligible running jobs, most preferred victim first
     */
    public static List<Job> find(CycleWork work, int gpus, int gpusPerNode, BitSet excluded, List<Job> candidates) {
        if (candidates.isEmpty()) {
            return null;
        }
        return gpusPerNode > 0
                ? findForGang(work.free(), work.scratch(), work.nodeMarks(), gpus / gpusPerNode, gpusPerNode, excluded, candidates)
                : findForAny(work.free(), gpus, excluded, candidates);
    }

    private static boolean usable(FreeIndex f, BitSet excluded, int node) {
        return f.isSchedulable(node) && (excluded == null || !excluded.get(node));
    }

    private static int usableGpus(FreeIndex f, BitSet excluded, Job v) {
        Placement p = v.placement();
        int g = 0;
        for (int i = 0; i < p.nodeCount(); i++) {
            if (usable(f, excluded, p.node(i))) {
                g += p.gpusOn(i);
            }
        }
        return g;
    }

    private static List<Job> findForAny(FreeIndex free, int gpus, BitSet excluded, List<Job> candidates) {
        int need = gpus - Placer.usableFree(free, excluded);
        if (need <= 0) {
            return List.of();
        }
        List<Job> chosen = new ArrayList<>();
        List<Integer> gains = new ArrayList<>();
        int freed = 0;
        for (Job v : candidates) {
            int g = usableGpus(free, excluded, v);
            if (g == 0) {
                continue;
            }
            chosen.add(v);
            gains.add(g);
            freed += g;
            if (freed >= need) {
                break;
            }
        }
        if (freed < need) {
            return null;
        }
        for (int i = chosen.size() - 1; i >= 0; i--) {
            if (freed - gains.get(i) >= need) {
                freed -= gains.get(i);
                chosen.remove(i);
                gains.remove(i);
            }
        }
        return chosen;
    }

    private static List<Job> findForGang(FreeIndex free, FreeIndex scratch, NodeMarks marks, int count, int perNode,
                                         BitSet excluded, List<Job> candidates) {
        int ready = Placer.usableNodesWithAtLeast(free, perNode, excluded);
        if (ready >= count) {
            return List.of();
        }
        int needed = count - ready;
        // Walk the candidates in preference order and, per node that is short of room, accumulate the victims it
        // needs. A node settles at the rank of its worst victim, so nodes settle in the order the search prefers
        // them: stop once enough have settled and the rank that settled the last one is done.
        marks.clear();
        NodeScratch ns = new NodeScratch(marks);
        List<int[]> settledNodes = new ArrayList<>(); // {node, worstRank, victims}
        int stopAfterRank = Integer.MAX_VALUE;
        for (int r = 0; r < candidates.size() && r <= stopAfterRank; r++) {
            Placement p = candidates.get(r).placement();
            for (int i = 0; i < p.nodeCount(); i++) {
                int n = p.node(i);
                if (!usable(free, excluded, n) || free.capacity(n) < perNode || free.free(n) >= perNode) {
                    continue;
                }
                int slot = ns.slot(n, free.free(n));
                if (ns.settled[slot]) {
                    continue;
                }
                ns.add(slot, r);
                ns.have[slot] += p.gpusOn(i);
                if (ns.have[slot] >= perNode) {
                    ns.settled[slot] = true;
                    settledNodes.add(new int[] {n, r, ns.count[slot], slot});
                    if (settledNodes.size() >= needed) {
                        stopAfterRank = r;
                    }
                }
            }
        }
        if (settledNodes.size() < needed) {
            return null;
        }
        settledNodes.sort((a, b) -> a[1] != b[1] ? Integer.compare(a[1], b[1])
                : a[2] != b[2] ? Integer.compare(a[2], b[2]) : Integer.compare(a[0], b[0]));
        BitSet chosenSet = new BitSet();
        for (int i = 0; i < needed; i++) {
            int[] sn = settledNodes.get(i);
            int[] m = ns.members[sn[3]];
            for (int k = 0; k < sn[2]; k++) {
                chosenSet.set(m[k]);
            }
        }
        List<Job> chosen = new ArrayList<>();
        for (int r = chosenSet.nextSetBit(0); r >= 0; r = chosenSet.nextSetBit(r + 1)) {
            chosen.add(candidates.get(r));
        }
        // Minimality: drop, least preferred first, every victim the gang can do without.
        scratch.copyFrom(free);
        for (Job v : chosen) {
            scratch.give(v.placement());
        }
        if (Placer.usableNodesWithAtLeast(scratch, perNode, excluded) < count) {
            return null;
        }
        for (int i = chosen.size() - 1; i >= 0; i--) {
            Job v = chosen.get(i);
            scratch.take(v.placement());
            if (Placer.usableNodesWithAtLeast(scratch, perNode, excluded) >= count) {
                chosen.remove(i);
            } else {
                scratch.give(v.placement());
            }
        }
        return chosen;
    }

    /** Per-node bookkeeping of one gang search, only for the nodes it touches. */
    private static final class NodeScratch {
        private final NodeMarks slotOf;
        int[] have = new int[16];
        int[] count = new int[16];
        boolean[] settled = new boolean[16];
        int[][] members = new int[16][];
        private int used;

        NodeScratch(NodeMarks marks) {
            this.slotOf = marks;
        }

        int slot(int node, int free) {
            int s = slotOf.get(node);
            if (s >= 0) {
                return s;
            }
            if (used == have.length) {
                have = java.util.Arrays.copyOf(have, used * 2);
                count = java.util.Arrays.copyOf(count, used * 2);
                settled = java.util.Arrays.copyOf(settled, used * 2);
                members = java.util.Arrays.copyOf(members, used * 2);
            }
            have[used] = free;
            members[used] = new int[4];
            slotOf.put(node, used);
            return used++;
        }

        void add(int slot, int rank) {
            if (count[slot] == members[slot].length) {
                members[slot] = java.util.Arrays.copyOf(members[slot], count[slot] * 2);
            }
            members[slot][count[slot]++] = rank;
        }
    }
}
