package dev.allot.core.explain;

import dev.allot.core.policy.allocation.AllocationOrder;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.core.policy.allocation.FairShare;
import dev.allot.core.policy.allocation.UnallocatedShares;
import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The order in which the allocation policy serves waiting work, as the explainer tells positions: one ordering in
 * one place, checked against the policy's own starts ({@code ServingOrderPropertyTest}).
 */
public final class ServingOrder {
    private ServingOrder() {
    }

    /**
     * Every waiting job in the order the policy serves them if every start succeeds: allocated work by the first
     * allocation in {@link FairShare#leafOrder()} that still waits, its best job by {@link Job#QUEUE_ORDER}, charging
     * each start as the policy does (so the order is recomputed after each); then unallocated work, each start to
     * the allocation with the fewest unallocated GPUs per GPU of quota ({@link UnallocatedShares}, ties in the order
     * left after those charges), each allocation's in queue order. (When GPUs are short, protected work that the burst
     * reserve holds back waits until after unallocated work; its explanation says so: {@link WaitsFor.BurstReserve}.)
     */
    public static List<Job> of(ClusterState state) {
        return of(state, AllocationPolicy.withDefaults().freshRules(state));
    }

    /** {@link #of(ClusterState)} under the given rules (fresh: they are charged as the order is built). */
    public static List<Job> of(ClusterState state, PreemptionRules rules) {
        int leaves = state.tree().leafCount();
        FairShare fs = rules.fairShare();
        AllocationOrder allocationOrder = new AllocationOrder(rules, leaves);
        List<List<Job>> queues = new ArrayList<>(leaves);
        int remaining = 0;
        for (int l = 0; l < leaves; l++) {
            List<Job> q = queue(state, l, true);
            queues.add(q);
            remaining += q.size();
        }
        int[] next = new int[leaves];
        List<Job> out = new ArrayList<>(state.pending().total());
        while (remaining > 0) {
            for (int leaf : allocationOrder.leafOrder()) {
                if (next[leaf] < queues.get(leaf).size()) {
                    Job j = queues.get(leaf).get(next[leaf]++);
                    out.add(j);
                    fs.chargeStart(j);
                    rules.entitlements().started(j);
                    remaining--;
                    break;
                }
            }
        }
        // unallocated work: idle GPUs shared by entitlement, as the policy hands them out
        int[] order = allocationOrder.leafOrder();
        int[] rank = new int[leaves];
        for (int i = 0; i < order.length; i++) {
            rank[order[i]] = i;
        }
        long[] held = new long[leaves];
        for (Job j : state.running().unallocated()) {
            held[j.leaf()] += j.gpus();
        }
        UnallocatedShares shares = new UnallocatedShares(held, rules.entitlements(), rank);
        List<List<Job>> free = new ArrayList<>(leaves);
        for (int l = 0; l < leaves; l++) {
            List<Job> q = queue(state, l, false);
            free.add(q);
            remaining += q.size();
        }
        java.util.Arrays.fill(next, 0);
        while (remaining > 0) {
            int leaf = -1;
            for (int l = 0; l < leaves; l++) {
                if (next[l] < free.get(l).size() && (leaf < 0 || shares.before(l, leaf))) {
                    leaf = l;
                }
            }
            Job j = free.get(leaf).get(next[leaf]++);
            out.add(j);
            shares.started(leaf, j.gpus());
            remaining--;
        }
        return out;
    }

    /** The waiting jobs of one allocation and class, merged from its shape queues in queue order. */
    static List<Job> queue(ClusterState state, int leaf, boolean allocated) {
        TreeSet<Job> merged = new TreeSet<>(Job.QUEUE_ORDER);
        for (NavigableSet<Job> q : state.pending().shapeQueues(leaf, allocated)) {
            merged.addAll(q);
        }
        return new ArrayList<>(merged);
    }
}
