package dev.allot.core.policy.slurm;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.Decision;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.Arrays;
import java.util.List;

/**
 * The priority of a waiting job in the {@code slurm} policy: Slurm's {@code PriorityType=priority/multifactor}
 * (<a href="https://slurm.schedmd.com/priority_multifactor.html">priority_multifactor.html</a>),
 * {@code floor(weight-fairshare x F + weight-age x A + weight-qos x Q)}, with
 * <ul>
 *   <li>F, the Fair Tree factor of the job's association ({@link FairTree}) over usage decayed with
 *   {@code decay-half-life} ({@link DecayedUsage}); usage is GPU-seconds times the QOS usage factor (1 for the
 *   protected QOS, {@code preemptible-usage-factor} for the preemptible one);</li>
 *   <li>A = min(age / {@code max-age}, 1), age counted from the job's eligibility time (its submission, or its last
 *   requeue: Slurm gives a requeued job a new submit time and restarts its age accrual);</li>
 *   <li>Q = 1 in the protected QOS (the highest QOS priority, normalised) and 0 in the preemptible one.</li>
 * </ul>
 *
 * <p>Like Slurm, usage decay, Fair Tree and the priorities of waiting jobs are recalculated every
 * {@code calc-period} ({@code PriorityCalcPeriod}), at multiples of it from time 0, with the ages as of that
 * moment; a job that arrives in between waits with the factors of the last recalculation and an age of zero. Usage
 * itself accrues continuously between recalculations, at rates that change only when a job starts or ends (the
 * cycle's decisions, and completions seen as a smaller running count). Not modelled: job-size, partition,
 * association and nice factors.
 *
 * <p>Per cycle the cost is one recalculation at most; a job's priority is computed once per recalculation and per
 * eligibility time, and remembered.
 */
final class MultifactorPriority {
    private static final long NONE = Long.MIN_VALUE;

    private final SlurmPolicy.Config config;
    private final long maxAgeSeconds;
    private final long calcPeriodSeconds;
    private final DecayedUsage usage;
    private final FairTree fairTree;
    private final double[] usageScratch;
    /** Per group (association and QOS: leaf x 2 + {@link Qos}): the fair-share and QOS terms of the priority. */
    private final double[] base;
    private long computedTick = NONE;
    private final long[] allocatedGpus;
    private final long[] preemptibleGpus;
    private int expectedRunning = -1;
    // per job index: the priority as of the recalculation and eligibility time it was computed for
    private long[] priority = new long[0];
    private long[] priorityTick = new long[0];
    private long[] priorityEligible = new long[0];

    MultifactorPriority(ClusterState state, SlurmPolicy.Config config) {
        this.config = config;
        this.maxAgeSeconds = config.maxAge().getSeconds();
        this.calcPeriodSeconds = config.calcPeriod().getSeconds();
        int leaves = state.tree().leafCount();
        this.usage = new DecayedUsage(leaves, config.decayHalfLife().getSeconds(), state.now());
        this.fairTree = new FairTree(state.tree());
        this.usageScratch = new double[leaves];
        this.base = new double[leaves * 2];
        this.allocatedGpus = new long[leaves];
        this.preemptibleGpus = new long[leaves];
    }

    void ensureCapacity(int jobs) {
        if (priority.length >= jobs) {
            return;
        }
        int n = Math.max(jobs, priority.length * 2);
        int old = priority.length;
        priority = Arrays.copyOf(priority, n);
        priorityTick = Arrays.copyOf(priorityTick, n);
        Arrays.fill(priorityTick, old, n, NONE);
        priorityEligible = Arrays.copyOf(priorityEligible, n);
    }

    /** Recalculates at the last tick if it is new (decay, Fair Tree, group priorities), then accrues up to now. */
    void recalculate(long at) {
        long tick = Math.floorDiv(at, calcPeriodSeconds) * calcPeriodSeconds;
        if (tick > computedTick) {
            usage.advanceTo(Math.max(tick, usage.at()));
            usage.copyUsage(usageScratch);
            fairTree.compute(usageScratch);
            for (int l = 0; l < usageScratch.length; l++) {
                double fs = config.weightFairshare() * fairTree.factor(l);
                base[l * 2 + Qos.PROTECTED] = fs + config.weightQos();
                base[l * 2 + Qos.PREEMPTIBLE] = fs;
            }
            computedTick = tick;
        }
        usage.advanceTo(at);
    }

    /** Rates change only at cycles: this cycle's decisions, and completions (seen as a smaller running count). */
    void refreshRates(ClusterState state) {
        if (state.running().count() == expectedRunning) {
            return;
        }
        int leaves = allocatedGpus.length;
        for (int l = 0; l < leaves; l++) {
            allocatedGpus[l] = state.ledger().runningGpus(l);
            preemptibleGpus[l] = 0;
        }
        List<Job> unallocated = state.running().unallocated();
        for (int i = 0; i < unallocated.size(); i++) {
            Job j = unallocated.get(i);
            preemptibleGpus[j.leaf()] += j.gpus();
        }
        pushRates();
    }

    private void pushRates() {
        for (int l = 0; l < allocatedGpus.length; l++) {
            usage.setRate(l, allocatedGpus[l] + config.preemptibleUsageFactor() * preemptibleGpus[l]);
        }
    }

    /** Applies a cycle's starts and preemptions to the usage rates; {@code running} is the count before them. */
    void applyDecisions(List<Decision> ds, int running) {
        for (int i = 0; i < ds.size(); i++) {
            Decision d = ds.get(i);
            Job j = d.job();
            int sign = d instanceof Decision.Start ? 1 : -1;
            running += sign;
            if (j.allocated()) {
                allocatedGpus[j.leaf()] += sign * j.gpus();
            } else {
                preemptibleGpus[j.leaf()] += sign * j.gpus();
            }
        }
        if (!ds.isEmpty()) {
            pushRates();
        }
        expectedRunning = running;
    }

    /** Notes that nothing was decided: the rates hold for this many running jobs. */
    void expectRunning(int running) {
        expectedRunning = running;
    }

    /**
     * The priority of a job of this group, eligible since {@code eligibleSeconds}, as of the last recalculation
     * (computed once per job and recalculation).
     */
    long priority(Job j, int group, long eligibleSeconds) {
        int i = j.index();
        if (priorityTick[i] != computedTick || priorityEligible[i] != eligibleSeconds) {
            priority[i] = (long) Math.floor(base[group] + config.weightAge() * ageFactor(eligibleSeconds));
            priorityTick[i] = computedTick;
            priorityEligible[i] = eligibleSeconds;
        }
        return priority[i];
    }

    private double ageFactor(long eligibleSeconds) {
        long age = computedTick - eligibleSeconds;
        return age <= 0 ? 0 : Math.min(1.0, age / (double) maxAgeSeconds);
    }

    /** The priority of a started job as its factors and weights, for the reason of its start. */
    String explain(Job w, long prio, long eligibleSeconds) {
        AllocationTree tree = fairTree.tree();
        return "priority " + prio + " = fair share "
                + thousandths(fairTree.factor(w.leaf())) + " (rank " + fairTree.rank(w.leaf())
                + " of " + tree.leafCount() + " in Fair Tree) x " + config.weightFairshare() + " + age "
                + thousandths(ageFactor(eligibleSeconds)) + " x " + config.weightAge() + " + QOS "
                + (w.allocated() ? 1 : 0) + " x " + config.weightQos();
    }

    /** A factor in [0, 1] with three decimals, e.g. {@code 0.667} (cheaper than String.format on this path). */
    static String thousandths(double x) {
        long m = Math.round(x * 1000);
        String frac = Long.toString(m % 1000);
        return (m / 1000) + "." + "000".substring(frac.length()) + frac;
    }
}
