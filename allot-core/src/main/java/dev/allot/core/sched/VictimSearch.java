package dev.allot.core.sched;

import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
        Map<Job, Integer> rank = new HashMap<>();
        Map<Integer, List<Job>> onNode = new HashMap<>();
        for (int r = 0; r < candidates.size(); r++) {
            Job v = candidates.get(r);
            rank.put(v, r);
            Placement p = v.placement();
            for (int i = 0; i < p.nodeCount(); i++) {
                int n = p.node(i);
                if (usable(free, excluded, n) && free.free(n) < perNode && free.capacity(n) >= perNode) {
                    onNode.computeIfAbsent(n, k -> new ArrayList<>()).add(v);
                }
            }
        }
        // For each node that could be freed enough, the victims needed there, in preference order.
        List<NodeOption> options = new ArrayList<>();
        for (Map.Entry<Integer, List<Job>> e : onNode.entrySet()) {
            int n = e.getKey();
            int have = free.free(n);
            List<Job> need = new ArrayList<>();
            int worst = -1;
            for (Job v : e.getValue()) {
                if (have >= perNode) {
                    break;
                }
                have += v.placement().gpusOnNode(n);
                need.add(v);
                worst = Math.max(worst, rank.get(v));
            }
            if (have >= perNode) {
                options.add(new NodeOption(n, need, worst));
            }
        }
        if (ready + options.size() < count) {
            return null;
        }
        options.sort(Comparator.comparingInt((NodeOption o) -> o.worstRank)
                .thenComparingInt(o -> o.victims.size())
                .thenComparingInt(o -> o.node));
        BitSet chosenSet = new BitSet();
        for (int i = 0; i < count - ready; i++) {
            for (Job v : options.get(i).victims) {
                chosenSet.set(rank.get(v));
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

    private record NodeOption(int node, List<Job> victims, int worstRank) {
    }
}
