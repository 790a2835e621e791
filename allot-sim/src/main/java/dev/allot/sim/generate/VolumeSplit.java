package dev.allot.sim.generate;

import dev.allot.core.model.AllocationTree;
import dev.allot.sim.generate.GeneratorSpec.Team;
import java.util.Arrays;
import java.util.List;

/**
 * How much of one kind of work each team submits. A kind's volume is relative to the cluster and the horizon, so the
 * regime survives {@link GeneratorSpec#withNodes} and {@link GeneratorSpec#withDays}. It is split among teams by the
 * weight {@code entitlement x intensity x affinity}, where entitlement is the team's fraction of the cluster in the
 * tree.
 * <ul>
 * <li>{@code JOBS_PER_GPU_DAY}: exactly {@code round(rate x GPUs x days)} workloads, apportioned to teams by
 * largest remainder. Used for the kinds made of many small jobs, whose offered GPU-hours then vary little.</li>
 * <li>{@code LOAD}: a GPU-hour budget, {@code load x GPUs x 24 x days}, split by the same weights; each team draws
 * workloads until its budget is spent (a workload that would overshoot is kept only if at least half of it fits,
 * and drawing stops: {@link WorkloadStream#emitBudget}). Used for {@code train}: in {@code lab} about 185
 * heavy-tailed gangs (backlog aside) carry most of the load, and a fixed count of them would swing their offered load
 * by 15% (one standard deviation over seeds 1-40; 0.57-1.29 x capacity); a budget holds it within 4% (0.60-0.74 for
 * a budget of 0.68) and lets the count vary instead.</li>
 * </ul>
 * <b>Backlog.</b> For each {@code LOAD} kind, every team also submits at time 0, from its own stream, a second
 * budget of {@code backlogDays} days of its first: {@code budget / days x backlogDays} GPU-hours, drawn by the same
 * rule. The scenario then opens with the queue a busy lab already has instead of an empty cluster. Being counted in
 * days, the backlog does not change with {@link GeneratorSpec#withDays} (so it weighs more on a shorter horizon), and
 * it scales with the budgets under {@link GeneratorSpec#withWorkloadScale}. Drawing stops at the first batch that
 * does not fit, and a backlog is only a few gangs per team, so it tends to fall short of its budget: a team with a
 * budget of less than one typical gang often queues nothing, and none queues more than twice its budget.
 *
 * <p>A class of its own: the volumes are the one place where teams depend on each other (a team's share of a kind is
 * its weight over all the teams' weights), and the rule that decides the offered load.
 */
final class VolumeSplit {
    /** Workloads per team for a {@code JOBS_PER_GPU_DAY} kind; null for a {@code LOAD} kind. */
    private final long[] counts;
    /** GPU-hour budget per team for a {@code LOAD} kind; null for a {@code JOBS_PER_GPU_DAY} kind. */
    private final double[] budgets;

    private VolumeSplit(long[] counts, double[] budgets) {
        this.counts = counts;
        this.budgets = budgets;
    }

    /** Each team's fraction of the cluster in the tree, in {@code spec.teams()} order. */
    static double[] entitlements(AllocationTree tree, List<Team> teams) {
        double[] entitlement = new double[teams.size()];
        for (int t = 0; t < teams.size(); t++) {
            entitlement[t] = tree.entitlement(tree.node(teams.get(t).name()).orElseThrow());
        }
        return entitlement;
    }

    /** The volume of {@code kind} split among the teams of {@code spec} (in their order) by their weights. */
    static VolumeSplit of(GeneratorSpec spec, KindSpec kind, double[] entitlement) {
        List<Team> teams = spec.teams();
        double[] weight = new double[teams.size()];
        for (int t = 0; t < teams.size(); t++) {
            Team team = teams.get(t);
            weight[t] = entitlement[t] * team.intensity() * team.affinityFor(kind);
        }
        return switch (kind.volume().unit()) {
            case JOBS_PER_GPU_DAY -> new VolumeSplit(apportion(
                    Math.round(kind.volume().value() * spec.totalGpus() * spec.days()), weight), null);
            case LOAD -> new VolumeSplit(null, split(kind.volume().value() * spec.capacityGpuHours(), weight));
        };
    }

    /** Whether the kind is a count of workloads (else a GPU-hour budget). */
    boolean counted() {
        return counts != null;
    }

    /** Team {@code t}'s count of workloads; only when {@link #counted()}. */
    long count(int t) {
        return counts[t];
    }

    /** Team {@code t}'s GPU-hour budget over the horizon; only when not {@link #counted()}. */
    double budgetGpuHours(int t) {
        return budgets[t];
    }

    /** Team {@code t}'s backlog budget: {@code backlogDays} days of its budget, in GPU-hours. */
    double backlogGpuHours(GeneratorSpec spec, int t) {
        return budgets[t] / spec.days() * spec.backlogDays();
    }

    /** Splits {@code total} whole workloads in proportion to {@code weight} (largest remainder, ties to the first). */
    static long[] apportion(long total, double[] weight) {
        long[] out = new long[weight.length];
        double sum = Arrays.stream(weight).sum();
        if (!(sum > 0) || total <= 0) {
            return out;
        }
        double[] remainder = new double[weight.length];
        long given = 0;
        for (int i = 0; i < weight.length; i++) {
            double exact = total * weight[i] / sum;
            out[i] = (long) Math.floor(exact);
            remainder[i] = exact - out[i];
            given += out[i];
        }
        for (long left = total - given; left > 0; left--) {
            int best = -1;
            for (int i = 0; i < weight.length; i++) {
                if (weight[i] > 0 && (best < 0 || remainder[i] > remainder[best])) {
                    best = i;
                }
            }
            out[best]++;
            remainder[best] = -1;
        }
        return out;
    }

    private static double[] split(double total, double[] weight) {
        double sum = Arrays.stream(weight).sum();
        double[] out = new double[weight.length];
        for (int i = 0; i < weight.length; i++) {
            out[i] = sum > 0 ? total * weight[i] / sum : 0;
        }
        return out;
    }
}
