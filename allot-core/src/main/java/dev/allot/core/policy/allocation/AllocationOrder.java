package dev.allot.core.policy.allocation;

import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.policy.allocation.preemption.Ranking;

/**
 * The order in which a cycle serves allocations' waiting allocated work, as a comparator chain ending in the name:
 * <ul>
 *   <li>{@link Ranking#ENTITLEMENT}: <b>owed</b> allocations (holding less than their quota, {@link Entitlements})
 *   first, lowest standing first (the most under-paid relative to its quota); then the rest in
 *   {@link FairShare#leafOrder() lookback order} (usage over the window, level by level); ties by that order, which
 *   itself ends in names.</li>
 *   <li>{@link Ranking#LOOKBACK}: lookback order alone.</li>
 * </ul>
 * Recomputed whenever {@link PreemptionRules#version()} changes: every start commits usage and adds holdings.
 */
public final class AllocationOrder {
    private final PreemptionRules rules;
    private final int[] order;
    private final int[] lookbackPos;
    private final Integer[] boxed;
    private long version = -1;

    public AllocationOrder(PreemptionRules rules, int leaves) {
        this.rules = rules;
        this.order = new int[leaves];
        this.lookbackPos = new int[leaves];
        this.boxed = new Integer[leaves];
    }

    /** Leaves in serving order. The array is shared; do not keep it across a change of version. */
    public int[] leafOrder() {
        long v = rules.version();
        if (v == version) {
            return order;
        }
        version = v;
        int[] lookback = rules.fairShare().leafOrder();
        if (rules.ranking() == Ranking.LOOKBACK) {
            System.arraycopy(lookback, 0, order, 0, order.length);
            return order;
        }
        for (int i = 0; i < lookback.length; i++) {
            lookbackPos[lookback[i]] = i;
            boxed[i] = lookback[i];
        }
        Entitlements e = rules.entitlements();
        java.util.Arrays.sort(boxed, (a, b) -> {
            boolean oa = e.owed(a);
            boolean ob = e.owed(b);
            if (oa != ob) {
                return oa ? -1 : 1;
            }
            if (oa) {
                int c = Double.compare(e.standing(a), e.standing(b));
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(lookbackPos[a], lookbackPos[b]);
        });
        for (int i = 0; i < order.length; i++) {
            order[i] = boxed[i];
        }
        return order;
    }

    public long version() {
        return rules.version();
    }
}
