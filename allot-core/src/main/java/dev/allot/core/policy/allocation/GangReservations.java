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
        failed.clear();
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
        boolean wholeNodes = owner.gpusPerNode() == work.state().cluster().maxGpusPerNode();
        if (shortcuts && wholeNodes && reachableGpus(work, rights) < owner.gpus()) {
            return; // no set of whole nodes could ever be freed for it: planning would scan every node to find none
        }
        if (shortcuts && !wholeNodes && (reachableByTimeGpus(work, rights) < owner.gpus()
                || failedCover(work, owner, rights))) {
            return; // planning job by job would scan every node to find too few GPUs, as it did or would for others
        }
        BitSet others = taken.isEmpty() ? null : taken;
        Reservation r = Reservation.plan(work, owner, j -> PreemptionRules.mayPreempt(rights, j),
                PreemptionRules.budgetTracker(rights), others);
        if (r != null) {
            held.add(r);
            taken.or(r.nodes());
            union = null;
        } else if (shortcuts && !wholeNodes) {
            failed.add(new FailedPlan(owner.gpusPerNode(), owner.gpus(), rights, work.version(), held.size()));
        }
    }

    /**
     * A plan job by job ({@link Reservation} for work that is not a gang of whole nodes) that found nothing, on the
     * cycle's free GPUs and victims at {@code workVersion} with {@code heldCount} reservations already held.
     */
    private record FailedPlan(int gpusPerNode, int gpus, PreemptionRules.Rights rights, long workVersion,
                              int heldCount) {
    }

    private final List<FailedPlan> failed = new ArrayList<>();

    /**
     * Whether a failed plan proves that planning for {@code owner} fails too. Such a plan admits running jobs one by
     * one ({@link PreemptionRules#mayPreempt}, no budgets summed), so on the same free GPUs, victims and held nodes,
     * with rights that admit no job the failed plan's did not ({@link PreemptionRules#admitsNoMoreThan}) it finds no
     * more GPUs on any node; with the same GPUs per node and at least as many GPUs asked, it finds too few again.
     */
    private boolean failedCover(CycleWork work, Job owner, PreemptionRules.Rights rights) {
        for (FailedPlan f : failed) {
            if (f.gpusPerNode() == owner.gpusPerNode() && f.gpus() <= owner.gpus()
                    && f.workVersion() == work.version() && f.heldCount() == held.size()
                    && PreemptionRules.admitsNoMoreThan(rights, f.rights())) {
                return true;
            }
        }
        return false;
    }

    /**
     * An upper bound of the GPUs a reservation planned job by job could ever count for work with {@code r}: the idle
     * GPUs, all unallocated work, its own allocation's work of lower priorities (protected or not), and all the
     * running work of every allocation it has a budget on (such a plan admits each job on its own, so the budget
     * does not cap the sum). Below it {@link Reservation#plan} finds too few GPUs (or nodes with room for the
     * owner's GPUs per node). The own allocation's term walks its running work: work of the same priority is what
     * most often leaves a large job short.
     */
    static long reachableByTimeGpus(CycleWork work, PreemptionRules.Rights r) {
        ClusterState s = work.state();
        long gpus = work.free().totalFree() + s.running().unallocatedGpus();
        long[] budgets = r.budgets();
        for (int l = 0; l < budgets.length; l++) {
            if (l != r.leaf() && budgets[l] > 0) {
                gpus += s.protections().heldGpus(l);
            }
        }
        if (r.priority() > 0) {
            for (Job v : s.running().allocated(r.leaf())) {
                if (v.spec().priority().ordinal() < r.priority()) {
                    gpus += v.gpus();
                }
            }
        }
        return gpus;
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
        long gpus = work.free().totalFree() + s.running().unallocatedGpus() + s.protections().heldGpus(r.leaf());
        long[] budgets = r.budgets();
        for (int l = 0; l < budgets.length; l++) {
            if (l != r.leaf() && budgets[l] > 0) {
                gpus += Math.min(budgets[l], s.protections().heldGpus(l));
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
