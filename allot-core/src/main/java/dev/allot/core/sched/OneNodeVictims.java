package dev.allot.core.sched;

import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.IntToLongFunction;
import java.util.function.ToIntFunction;

/**
 * Victims that make room for a small workload on one node, the node chosen by a cost the policy gives: where a
 * protected run lands decides which nodes a gang can have later, so a policy can steer small protected work onto
 * nodes that are pinned anyway ({@code nodeCost}: how much a start there costs, 0 for nothing; costs are never
 * negative).
 *
 * <p>Per node, the candidates on it are taken in the policy's preference order until the node has room. Among the
 * nodes that can be freed the search takes, in this order: the lowest worst victim group ({@code group}, the
 * policy's coarse preference, e.g. unallocated before allocated; candidates must come sorted by it), the lowest
 * node cost, the most preferred worst victim, then the lowest node index. It is not used for work larger than a
 * node. Victims of groups above {@code maxGroup} are not taken.
 */
public final class OneNodeVictims {
    private OneNodeVictims() {
    }

    /** The victims, in preference order, or null when no single node can be freed. */
    public static List<Job> find(CycleWork work, int gpus, BitSet excluded, List<Job> candidates,
                                 ToIntFunction<Job> group, int maxGroup, IntToLongFunction nodeCost,
                                 java.util.function.ToLongFunction<Job> victimCost) {
        FreeIndex free = work.free();
        NodeMarks slotOf = work.nodeMarks();
        slotOf.clear();
        int[] node = new int[16];
        int[] have = new int[16];
        int[] worst = new int[16];
        long[] spent = new long[16];
        boolean[] settled = new boolean[16];
        int used = 0;
        int best = -1;
        int bestGroup = Integer.MAX_VALUE;
        long bestCost = Long.MAX_VALUE;
        for (int r = 0; r < candidates.size(); r++) {
            Job v = candidates.get(r);
            int g = group.applyAsInt(v);
            if (g > bestGroup || g > maxGroup || (best >= 0 && bestCost <= 0)) {
                // candidates come by group, so no later node settles in a lower group; and costs are at least 0,
                // so a later node of cost 0 in the same group loses on its worse victim
                break;
            }
            var p = v.placement();
            for (int i = 0; i < p.nodeCount(); i++) {
                int n = p.node(i);
                if (!free.isSchedulable(n) || (excluded != null && excluded.get(n)) || free.capacity(n) < gpus) {
                    continue;
                }
                int s = slotOf.get(n);
                if (s < 0) {
                    if (used == node.length) {
                        node = java.util.Arrays.copyOf(node, used * 2);
                        have = java.util.Arrays.copyOf(have, used * 2);
                        worst = java.util.Arrays.copyOf(worst, used * 2);
                        settled = java.util.Arrays.copyOf(settled, used * 2);
                        spent = java.util.Arrays.copyOf(spent, used * 2);
                    }
                    s = used++;
                    slotOf.put(n, s);
                    node[s] = n;
                    have[s] = free.free(n);
                    spent[s] = 0;
                }
                if (settled[s]) {
                    continue;
                }
                have[s] += p.gpusOn(i);
                spent[s] += victimCost.applyAsLong(v);
                worst[s] = r;
                if (have[s] >= gpus) {
                    settled[s] = true;
                    long cost = nodeCost.applyAsLong(n) + spent[s];
                    boolean better = best < 0 || g < bestGroup || (g == bestGroup && (cost < bestCost
                            || (cost == bestCost && (r < worst[best] || (r == worst[best] && n < node[best])))));
                    if (better) {
                        best = s;
                        bestGroup = g;
                        bestCost = cost;
                    }
                }
            }
        }
        if (best < 0) {
            return null;
        }
        int target = node[best];
        List<Job> out = new ArrayList<>();
        int room = free.free(target);
        for (int r = 0; r <= worst[best] && room < gpus; r++) {
            Job v = candidates.get(r);
            var p = v.placement();
            for (int i = 0; i < p.nodeCount(); i++) {
                if (p.node(i) == target) {
                    out.add(v);
                    room += p.gpusOn(i);
                }
            }
        }
        return out;
    }
}
