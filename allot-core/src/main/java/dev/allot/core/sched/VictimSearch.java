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
     * @param free       the free GPUs as the cycle sees them (not changed)
     * @param scratch    a reusable index for what-if checks (overwritten)
     * @param candidates eligible running jobs, most preferred victim first
     */
    public static List<Job> find(FreeIndex free, FreeIndex scratch, int gpus, int gpusPerNode, BitSet excluded,
                                 List<Job> candidates) {
        if (candidates.isEmpty()) {
            return null;
        }
        return gpusPerNode > 0
                ? findForGang(free, scratch, gpus / gpusPerNode, gpusPerNode, excluded, candidates)
                : findForAny(free, gpus, excluded, candidates);
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

    private static List<Job> findForGang(FreeIndex free, FreeIndex scratch, int count, int perNode, BitSet excluded,
                                         List<Job> candidates) {
        int ready = Placer.usableNodesWithAtLeast(free, perNode, excluded);
        if (ready >= count) {
            return List.of();
        }
        // Walk the candidates in preference order and, per node that is short of room, accumulate the victims it
        // needs; a node is settled (and ranked by its worst victim) as soon as it would have room.
        int nodes = free.nodeCount();
        int[] have = new int[nodes];
        int[] worst = new int[nodes];
        int[] needCount = new int[nodes];
        boolean[] settled = new boolean[nodes];
        java.util.Arrays.fill(have, -1);
        List<int[]> settledNodes = new ArrayList<>(); // {node, worstRank, victims}
        int[][] members = new int[nodes][];
        for (int r = 0; r < candidates.size(); r++) {
            Placement p = candidates.get(r).placement();
            for (int i = 0; i < p.nodeCount(); i++) {
                int n = p.node(i);
                if (settled[n] || !usable(free, excluded, n) || free.capacity(n) < perNode || free.free(n) >= perNode) {
                    continue;
                }
                if (have[n] < 0) {
                    have[n] = free.free(n);
                    members[n] = new int[4];
                }
                if (needCount[n] == members[n].length) {
                    members[n] = java.util.Arrays.copyOf(members[n], needCount[n] * 2);
                }
                members[n][needCount[n]++] = r;
                have[n] += p.gpusOn(i);
                worst[n] = r;
                if (have[n] >= perNode) {
                    settled[n] = true;
                    settledNodes.add(new int[] {n, r, needCount[n]});
                }
            }
        }
        if (ready + settledNodes.size() < count) {
            return null;
        }
        settledNodes.sort((a, b) -> a[1] != b[1] ? Integer.compare(a[1], b[1])
                : a[2] != b[2] ? Integer.compare(a[2], b[2]) : Integer.compare(a[0], b[0]));
        BitSet chosenSet = new BitSet();
        for (int i = 0; i < count - ready; i++) {
            int n = settledNodes.get(i)[0];
            for (int k = 0; k < needCount[n]; k++) {
                chosenSet.set(members[n][k]);
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

}
