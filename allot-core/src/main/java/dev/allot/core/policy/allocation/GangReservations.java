package dev.allot.core.policy.allocation;

import dev.allot.core.policy.allocation.preemption.PreemptionRules;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Reservation;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The reservations of one cycle: the first {@code limit} blocked workloads that need one (gangs of whole nodes, or
 * more GPUs than a node has), in the order the cycle served them, each on nodes the earlier ones do not hold. A
 * later workload may start on a reservation's nodes only if that reservation {@link Reservation#allows allows} it,
 * so small work of a higher-ranked allocation does not starve a gang, and no new protected run starts on nodes a
 * gang is draining.
 */
final class GangReservations {
    private final int limit;
    private final boolean shortcuts;
    private final List<Reservation> held = new ArrayList<>();
    private final BitSet taken = new BitSet();
    private BitSet union;

    /** @param shortcuts skip plans that provably find nothing (the policy's {@code shortcuts} setting) */
    GangReservations(int limit, boolean shortcuts) {
        this.limit = limit;
        this.shortcuts = shortcuts;
    }

    void clear() {
        held.clear();
        taken.clear();
        union = null;
    }

    /** Records that {@code owner} could not start; plans a reservation for it if it needs one and room remains. */
    void blocked(CycleWork work, PreemptionRules rules, Job owner) {
        if (held.size() >= limit || !Reservation.needsOne(work.state(), owner)) {
            return;
        }
        for (Reservation r : held) {
            if (r.owner() == owner) {
                return;
            }
        }
        PreemptionRules.Rights rights = rules.rightsOf(owner);
        if (shortcuts && owner.gpusPerNode() == work.state().cluster().maxGpusPerNode()
                && reachableGpus(work, rights) < owner.gpus()) {
            return; // no set of whole nodes could ever be freed for it: planning would scan every node to find none
        }
        BitSet others = taken.isEmpty() ? null : taken;
        Reservation r = Reservation.plan(work, owner, j -> PreemptionRules.mayPreempt(rights, j),
                PreemptionRules.budgetTracker(rights), others);
        if (r != null) {
            held.add(r);
            taken.or(r.nodes());
            union = null;
        }
    }

    /**
     * An upper bound of the GPUs a whole-node reservation could ever gather for work with {@code r}: the idle GPUs,
     * all unallocated work, all of its own allocation's work, and of every other allocation's running work at most
     * its budget. Such a reservation's nodes hold the owner's GPUs in idle GPUs and jobs it may take together within
     * the budgets, so below this bound {@link Reservation#plan} finds nothing. (Reservations of other shapes are
     * planned job by job, without the budgets: this is no bound for them.)
     */
    static long reachableGpus(CycleWork work, PreemptionRules.Rights r) {
        ClusterState s = work.state();
        long gpus = work.free().totalFree() + s.unallocatedRunningGpus() + s.protectedGpus(r.leaf())
                + s.unprotectedGpus(r.leaf());
        long[] budgets = r.budgets();
        for (int l = 0; l < budgets.length; l++) {
            if (l != r.leaf() && budgets[l] > 0) {
                gpus += Math.min(budgets[l], s.protectedGpus(l) + s.unprotectedGpus(l));
            }
        }
        return gpus;
    }

    /** The nodes {@code w} must keep off (null: none): those of every reservation that does not allow it. */
    BitSet against(Job w, long now) {
        if (held.isEmpty()) {
            return null;
        }
        int refusing = 0;
        for (Reservation r : held) {
            if (!r.allows(w, now)) {
                refusing++;
            }
        }
        if (refusing == 0) {
            return null;
        }
        if (refusing == held.size()) {
            if (union == null) {
                union = (BitSet) taken.clone(); // one object per set of reservations: the failed-search memo compares it
            }
            return union;
        }
        BitSet some = new BitSet();
        for (Reservation r : held) {
            if (!r.allows(w, now)) {
                some.or(r.nodes());
            }
        }
        return some;
    }

    List<Reservation> held() {
        return held;
    }
}
