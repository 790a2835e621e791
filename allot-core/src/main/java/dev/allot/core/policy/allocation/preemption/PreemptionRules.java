package dev.allot.core.policy.allocation.preemption;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Priority;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.allocation.Entitlements;
import dev.allot.core.policy.allocation.FairShare;
import dev.allot.core.sched.NodeBudget;
import dev.allot.core.sched.VictimPool;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.List;

/**
 * Who may preempt whom under the allocation policy, in one place: the policy's victim searches, its reservations,
 * the wait explanations and the preemption reasons all ask here.
 *
 * <p>Always, for waiting allocated work {@code w}: unallocated work may be preempted; work of {@code w}'s own
 * allocation with a lower priority may be preempted once past its minimum runtime; nothing inside its minimum
 * runtime is ever preempted (checked by the caller). Between allocations it depends on the {@link Ranking}:
 * <ul>
 *   <li>{@link Ranking#ENTITLEMENT}, with {@code P} the preemptor's allocation and {@code V} the victim's, and
 *   <i>standing</i> = allocated GPUs held over quota ({@link Entitlements}):
 *   <ol>
 *     <li><b>Reclaim.</b> If {@code P} is <i>owed</i> (standing below 1), or bursting but ahead of {@code V} on
 *     usage over the lookback window ({@link FairShare#ranksAbove}), it may take from a {@code V} that stands at
 *     least {@code 1 + margin}, down to {@code V}'s quota and no further: what {@code V} is owed is never taken to
 *     pay someone else, an allocation within the margin above its quota is left alone, and {@code V} is not owed
 *     afterwards, so it cannot take the GPUs back (no ping-pong).</li>
 *     <li><b>Taking turns.</b> {@code P} may take all of {@code V}'s unprotected work, pushing {@code V} below its
 *     quota, when {@code V} stands at least {@code 1 + margin}, {@code P} would stand no higher than {@code V} does
 *     once {@code w} runs, and {@code P} is ahead on the lookback window ({@code P} owed or bursting alike). So no allocation squats the cluster with work far beyond its share, and two allocations
 *     that both want more than the cluster alternate as the seed's time-slicing intends, each turn at least a
 *     minimum runtime long. (A margin on the window here, tried at 2-10%, slowed the convergence of saturating
 *     teams to their shares; see {@code ConvergenceTest}.)</li>
 *     <li><b>Starving work.</b> A job of an owed allocation that asks for more GPUs than the allocation's quota
 *     and has waited the starvation limit may take the unprotected work of any allocation standing higher than its
 *     own that it is ahead of on the window, job by job as long as the job fits within its own allocation's quota
 *     ({@link #ALL_WITHIN_QUOTA}): such a job can never be paid within the quota and would otherwise wait for every
 *     other allocation's demand to stop, while two such jobs must not take the GPUs from each other for ever.</li>
 *   </ol>
 *   <b>The shortest turn</b> ({@code min-turn}): a preemptor whose allocation is not owed (rules 1 and 2 for a
 *   bursting {@code P}) takes work that was preempted before only once its current run has lasted the shortest
 *   turn, whatever its minimum runtime. Ranks on the window cross all the time under a permanent backlog; with short
 *   minimum runtimes (10 minutes on the Philly trace) bursting allocations then took the same work from each other
 *   every few minutes (one job 1,526 times), and resumable work that checkpoints every 30 minutes never kept any
 *   progress (1.2 million preemptions, 54% of the delivered GPU-hours thrown away). Work taken for the first time
 *   is not held back (holding back every run cost debug work on the lab its quick turns), nor is what an owed
 *   allocation reclaims: paying what is owed comes first.</li>
 *   <li>{@link Ranking#LOOKBACK}: an allocation that {@link FairShare#ranksAbove ranks above} another on lookback
 *   usage may take all its unprotected work.</li>
 * </ul>
 * The rights are a GPU budget per other allocation ({@link Rights}); a search takes an allocation's victims in
 * {@link VictimOrder} while they fit the budget, so equal budgets mean the same candidates (which keeps the
 * {@link FailedSearches} memo sound).
 */
public final class PreemptionRules {
    /** A budget that takes every unprotected GPU of an allocation. */
    public static final long ALL = Long.MAX_VALUE;
    /**
     * A budget that takes every unprotected job of an allocation that fits within the allocation's quota, but none
     * larger: what starving work may take. Two jobs each larger than its allocation's quota would otherwise take the
     * same GPUs from each other at every end of protection, and neither might ever finish.
     */
    public static final long ALL_WITHIN_QUOTA = Long.MAX_VALUE - 1;

    private final Ranking ranking;
    private final double margin;
    private final FairShare fairShare;
    private final Entitlements entitlements;

    private final long starvationLimitSeconds;
    private double wasteLimit = Double.POSITIVE_INFINITY;
    private long minTurnSeconds;
    /** The waste limit never forbids losing this much (1 GPU-hour): small work may still displace small work. */
    static final double WASTE_FLOOR_GPU_SECONDS = 3600;
    private long now;

    public PreemptionRules(Ranking ranking, double margin, FairShare fairShare, Entitlements entitlements) {
        this(ranking, margin, Long.MAX_VALUE, fairShare, entitlements);
    }

    public PreemptionRules(Ranking ranking, double margin, long starvationLimitSeconds, FairShare fairShare,
                           Entitlements entitlements) {
        this.starvationLimitSeconds = starvationLimitSeconds;
        this.ranking = ranking;
        this.margin = margin;
        this.fairShare = fairShare;
        this.entitlements = entitlements;
    }

    public Ranking ranking() {
        return ranking;
    }

    /** How long owed work larger than its allocation's quota waits before it may take turns ({@link #starving}). */
    public long starvationLimitSeconds() {
        return starvationLimitSeconds;
    }

    public double margin() {
        return margin;
    }

    public FairShare fairShare() {
        return fairShare;
    }

    public Entitlements entitlements() {
        return entitlements;
    }

    /** Changes whenever any right may have changed: the usage or holdings moved. */
    public long version() {
        return fairShare.version() * 1_000_003L + entitlements.version();
    }

    /**
     * What waiting allocated work may take from other allocations: per allocation, at most this many GPUs of its
     * unprotected work (0: none, {@link #ALL}: all). The entry of {@code w}'s own allocation is 0; its own
     * lower-priority work is always preemptible (see {@link #mayPreempt}).
     */
    public record Rights(int leaf, int priority, long[] budgets, long maxLostGpuSeconds, long now,
                         Entitlements quotas, long minTurnSeconds) {
        /** Rights without a shortest turn (an owed preemptor's). */
        public Rights(int leaf, int priority, long[] budgets, long maxLostGpuSeconds, long now, Entitlements quotas) {
            this(leaf, priority, budgets, maxLostGpuSeconds, now, quotas, 0);
        }

        /**
         * Whether a budget admits {@code v} (of another allocation) on its own: {@link #ALL_WITHIN_QUOTA} only work
         * within its quota, and with a shortest turn only work that was never preempted or whose run has lasted it.
         */
        boolean fits(Job v, long budget) {
            if (!hadItsTurn(v)) {
                return false;
            }
            if (budget == ALL_WITHIN_QUOTA) {
                return v.gpus() <= quotas.quotaGpus(v.leaf());
            }
            return budget >= v.gpus();
        }

        /** Whether preempting allocated {@code v} now throws away no more work than the preemptor may. */
        public boolean wasteAllows(Job v) {
            return !v.allocated() || v.workLostIfPreemptedAtGpuSeconds(now) <= maxLostGpuSeconds;
        }

        public boolean any(int b) {
            return budgets[b] > 0;
        }

        /**
         * Whether these rights may take {@code v} as far as the shortest turn goes: always without one, and for work
         * never preempted before; else once its current run has lasted the shortest turn.
         */
        public boolean hadItsTurn(Job v) {
            return !heldByTurn(v) || now - v.attemptStartSeconds() >= minTurnSeconds;
        }

        /** Whether the shortest turn applies to {@code v} under these rights (it was preempted before). */
        public boolean heldByTurn(Job v) {
            return minTurnSeconds > 0 && v.preemptions() > 0;
        }

        /** When {@code v}'s current run will have lasted the shortest turn ({@code now} if it does not apply). */
        public long turnEndsSeconds(Job v) {
            return heldByTurn(v) ? v.attemptStartSeconds() + minTurnSeconds : now;
        }

        /** The same rights without a shortest turn: what they admit once every run has lasted it. */
        public Rights withoutTurn() {
            return minTurnSeconds == 0 ? this : new Rights(leaf, priority, budgets, maxLostGpuSeconds, now, quotas, 0);
        }
    }

    public Rights rightsOf(Job w) {
        return rightsOf(w.leaf(), w.spec().priority().ordinal(), w.gpus(), starving(w), maxLost(w));
    }

    /**
     * Whether {@code w} asks for more GPUs than its allocation's quota and has waited at least the starvation limit
     * since it was submitted (at the time set by {@link #at}).
     */
    public boolean starving(Job w) {
        boolean beyondQuota = w.gpus() > entitlements.quotaGpus(w.leaf());
        return beyondQuota && now - w.spec().submitSeconds() >= starvationLimitSeconds;
    }

    /** Sets the waste limit ({@link #maxLost}); infinite: none. */
    public PreemptionRules wasteLimit(double limit) {
        this.wasteLimit = limit;
        return this;
    }

    /**
     * Sets the shortest turn ({@code min-turn}): a preemptor whose allocation is not owed takes another allocation's
     * work that was preempted before only once that work's current run has lasted this long (0: as soon as its
     * protection ends).
     */
    public PreemptionRules minTurn(long seconds) {
        this.minTurnSeconds = seconds;
        return this;
    }

    /** Sets the cycle's time, for {@link #starving} and the work lost by victims. */
    public PreemptionRules at(long nowSeconds) {
        this.now = nowSeconds;
        return this;
    }

    /**
     * The rights of a waiting job of allocation {@code l}, priority ordinal {@code priority} and {@code gpus};
     * {@code starving}: it waited past the starvation limit.
     */
    public Rights rightsOf(int l, int priority, int gpus, boolean starving, long maxLostGpuSeconds) {
        int leaves = fairShare.leafCount();
        long[] budgets = new long[leaves];
        long minTurn = 0;
        if (ranking == Ranking.LOOKBACK) {
            boolean[] above = fairShare.ranksAboveRow(l);
            for (int b = 0; b < leaves; b++) {
                budgets[b] = above[b] ? ALL : 0;
            }
        } else {
            boolean owed = entitlements.owed(l);
            boolean[] above = fairShare.ranksAboveRow(l);
            double after = entitlements.standingWith(l, gpus);
            for (int b = 0; b < leaves; b++) {
                if (b == l || !(owed || above[b])) {
                    continue;
                }
                long downToQuota = entitlements.reclaimableGpus(b, margin);
                // time-slicing: both beyond their share, the preemptor not ending further beyond than the victim is,
                // and ahead on the window: the victim may go below its quota (it is then owed, and takes its turn);
                // starving work larger than its owed allocation's quota takes its turn from any allocation standing higher
                boolean turn = above[b] && downToQuota > 0 && after <= entitlements.standing(b);
                boolean starve = above[b] && owed && starving && entitlements.standing(b) > entitlements.standing(l);
                budgets[b] = turn ? ALL : starve ? ALL_WITHIN_QUOTA : downToQuota;
            }
            minTurn = owed ? 0 : minTurnSeconds; // what is owed is paid at once; turns beyond quotas last
        }
        budgets[l] = 0;
        return new Rights(l, priority, budgets, maxLostGpuSeconds, now, entitlements, minTurn);
    }

    /**
     * The most allocated work one victim of {@code w} may lose: {@code waste-limit} x what {@code w}'s start commits
     * (its GPUs for its minimum runtime). A preemption does not throw away more than it protects.
     */
    public long maxLost(Job w) {
        double bound = Math.max(WASTE_FLOOR_GPU_SECONDS, wasteLimit * w.gpus() * (double) w.protectionSecondsIfStarted());
        return bound >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) bound;
    }

    /**
     * Whether allocated work {@code w} may preempt running {@code v} once {@code v} is past its protection (protection
     * is not checked here), on its own: {@code v} fits the budget {@code w} has on its allocation.
     */
    public boolean mayPreempt(Job w, Job v) {
        return mayPreempt(rightsOf(w), v);
    }

    /**
     * When {@code r} admits running {@code v}, as far as time goes: at the end of its protection and, for another
     * allocation's work under a shortest turn, once its run has lasted that turn ({@code now} if both are past);
     * -1 if {@code r} does not admit it even then (for explanations: the standings may change before).
     */
    public static long takeableAtSeconds(Rights r, Job v) {
        if (!mayPreempt(r.withoutTurn(), v)) {
            return -1;
        }
        long at = Math.max(r.now(), v.isProtected(r.now()) ? v.protectedUntilSeconds() : r.now());
        return v.allocated() && v.leaf() != r.leaf() ? Math.max(at, r.turnEndsSeconds(v)) : at;
    }

    /** {@link #mayPreempt} against precomputed rights. */
    public static boolean mayPreempt(Rights r, Job v) {
        if (!v.allocated()) {
            return true;
        }
        if (!r.wasteAllows(v)) {
            return false;
        }
        if (v.leaf() == r.leaf()) {
            return v.spec().priority().ordinal() < r.priority();
        }
        return r.fits(v, r.budgets()[v.leaf()]);
    }

    /**
     * Whether every job {@link #mayPreempt(Rights, Job)} admits under {@code r} it admits under {@code f} too, on the
     * same cycle (same time and quotas): {@code r} loses no more work, takes its own allocation's work only where
     * {@code f} does (the same allocation with at least {@code r}'s priority, or all of it), and per other allocation
     * {@code r}'s budget admits no job {@code f}'s does not (none, a budget no larger, or equal ones; job by job, so
     * a larger budget admits more). Without budgets summed over jobs: not a rule for {@link #candidates}.
     */
    public static boolean admitsNoMoreThan(Rights r, Rights f) {
        if (r.now() != f.now() || r.quotas() != f.quotas() || r.maxLostGpuSeconds() > f.maxLostGpuSeconds()
                || r.minTurnSeconds() < f.minTurnSeconds()) {
            return false;
        }
        long[] rb = r.budgets();
        long[] fb = f.budgets();
        for (int b = 0; b < rb.length; b++) {
            if (b == r.leaf()) {
                // (f's ALL under a shortest turn passed over young runs, which r takes of its own lower priorities)
                boolean own = r.priority() == 0 || (b == f.leaf() ? r.priority() <= f.priority()
                        : fb[b] == ALL && f.minTurnSeconds() == 0);
                if (!own) {
                    return false;
                }
            } else if (rb[b] > 0) { // a budget of 0 admits no job (every running job holds GPUs)
                if (b == f.leaf()) {
                    return false; // f takes only lower priorities of its own allocation
                }
                boolean covered = fb[b] == ALL || rb[b] == fb[b]
                        || (rb[b] != ALL_WITHIN_QUOTA && fb[b] != ALL_WITHIN_QUOTA && rb[b] <= fb[b]);
                if (!covered) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * {@code r}'s budgets as a {@link NodeBudget} for planning a reservation node by node: a node's jobs are admitted
     * only if every one may be preempted ({@link #mayPreempt}) and, with every job admitted before, they stay within
     * each allocation's budget.
     */
    public static NodeBudget budgetTracker(Rights r) {
        long[] left = r.budgets().clone();
        long[] spend = new long[left.length];
        int[] touched = new int[left.length];
        return (jobs, gone) -> {
            int count = 0;
            boolean ok = true;
            for (int i = 0; i < jobs.size() && ok; i++) {
                Job v = jobs.get(i);
                if (gone.test(v)) {
                    continue;
                }
                if (!mayPreempt(r, v)) {
                    ok = false;
                } else if (v.allocated() && v.leaf() != r.leaf() && left[v.leaf()] != ALL
                        && left[v.leaf()] != ALL_WITHIN_QUOTA) { // the unlimited budgets were checked job by job
                    int b = v.leaf();
                    if (spend[b] == 0) {
                        touched[count++] = b;
                    }
                    spend[b] += v.gpus();
                    ok = spend[b] <= left[b];
                }
            }
            for (int i = 0; i < count; i++) {
                int b = touched[i];
                if (ok) {
                    left[b] -= spend[b];
                }
                spend[b] = 0;
            }
            return ok;
        };
    }

    /**
     * Every running job past its protection (unallocated work is never protected), in {@link VictimOrder}: the pool
     * each victim search of the allocation policy, and the explanations' count of what could be preempted, start from.
     * {@code pool} keeps the sort while this cycle's rules do not change ({@link #version}).
     */
    public List<Job> victimPool(VictimPool pool, ClusterState state, long now) {
        int leaves = state.tree().leafCount();
        return pool.sorted(all -> {
            state.running().unallocated().forEach(all);
            for (int l = 0; l < leaves; l++) {
                state.running().allocated(l).forEach(all);
            }
        }, v -> !v.isProtected(now), new VictimOrder(this, now), version());
    }

    /**
     * The running jobs {@code w} may preempt, in {@link VictimOrder}: from the sorted pool, every unallocated job,
     * its own allocation's lower priorities, and per other allocation its jobs in order as long as each still fits
     * what is left of the budget (a job too large is passed over, not the end of the allocation's list). Whatever
     * subset the search then takes stays within every budget.
     */
    public List<Job> candidates(List<Job> sortedPool, Rights r, java.util.function.Predicate<Job> gone) {
        long[] left = r.budgets().clone();
        List<Job> out = new ArrayList<>();
        for (Job v : sortedPool) {
            if (gone.test(v)) {
                continue;
            }
            if (!v.allocated()) {
                out.add(v);
                continue;
            }
            if (!r.wasteAllows(v)) {
                continue;
            }
            int b = v.leaf();
            if (b == r.leaf()) {
                if (v.spec().priority().ordinal() < r.priority()) {
                    out.add(v);
                }
                continue;
            }
            if (left[b] == ALL || left[b] == ALL_WITHIN_QUOTA) {
                if (r.fits(v, left[b])) {
                    out.add(v);
                }
            } else if (left[b] >= v.gpus() && r.hadItsTurn(v)) {
                left[b] -= v.gpus();
                out.add(v);
            } // else too large for what is left of the budget: a smaller, later job of b may still fit
        }
        return out;
    }

    /**
     * GPUs {@code w} could take by preemption right now, wherever they are (an upper bound for the search): every
     * unallocated running GPU, per other allocation its unprotected GPUs up to the budget, and its own allocation's
     * unprotected lower priorities.
     */
    public long preemptibleGpus(ClusterState state, Job w) {
        return preemptibleGpus(state, rightsOf(w));
    }

    public long preemptibleGpus(ClusterState state, Rights r) {
        long gpus = state.running().unallocatedGpus();
        long[] budgets = r.budgets();
        for (int b = 0; b < budgets.length; b++) {
            if (budgets[b] > 0) {
                gpus += Math.min(budgets[b], state.protections().unprotectedGpus(b));
            }
        }
        for (Priority pr : Priority.values()) {
            if (pr.ordinal() < r.priority()) {
                gpus += state.protections().unprotectedGpus(r.leaf(), pr);
            }
        }
        return gpus;
    }

    /**
     * Why {@code w} preempts {@code v}, in words and numbers ({@link PreemptionReasons}), with the rights {@code r}
     * the victim search used.
     */
    public PreemptionCause cause(AllocationTree tree, Job v, Job w, Rights r) {
        return new PreemptionReasons(this).cause(tree, v, w, r);
    }

    /** The shortest turn in force ({@link #minTurn}); 0: none. */
    public long minTurnSeconds() {
        return minTurnSeconds;
    }

    /** The cycle's time ({@link #at}). */
    public long now() {
        return now;
    }
}
