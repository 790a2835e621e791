package dev.allot.sim.forecast;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.Settings;
import dev.allot.core.rules.ShapeFit;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.sim.ForwardRun;
import dev.allot.sim.metrics.MetricsCollector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * What would a change of shares or of policy settings do over the next day or week? Plays the future of a state
 * several times ({@link ForwardRun}, the simulator's rules) twice each: once as things are (base) and once with the
 * change (variant), with the same draws on both sides (common random numbers: the same durations for every job and
 * the same new work), so that the difference between the sides is the change's and not luck's. Reports per
 * allocation the waits of the work that starts within the horizon, the work still waiting at its end, the GPU-hours
 * charged and the simulator's paid fraction ({@link HorizonUsage}), base against variant.
 *
 * <p>With the true future (the scenario's durations and later workloads) and one run, the base side is what the
 * simulator itself goes on to do over the same window; with no change, the variant is the base, to the last digit.
 * Same state, models, sides and seed: same report. Runs on the caller's thread (never the scheduling thread).
 */
public final class WhatIf {
    private final PolicyFactory factory;
    private final ForecastSettings settings;

    /**
     * One side of a what-if: the tree (same leaves as the state, in the same order) and the policy's settings.
     */
    public record Side(AllocationTree tree, Settings settings) {
        public Side {
            Objects.requireNonNull(tree, "tree");
            Objects.requireNonNull(settings, "settings");
        }
    }

    /**
     * @param factory  the policy both sides run
     * @param settings runs, horizon and seed (the band's quantiles are not used)
     */
    public WhatIf(PolicyFactory factory, ForecastSettings settings) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** Compares the sides from {@code state} (which is not changed), with no change of node health foreseen. */
    public WhatIfReport compare(ClusterState state, Side base, Side variant, DurationModel durations,
                                ArrivalModel arrivals) {
        return compare(state, base, variant, durations, arrivals, List.of());
    }

    /** Compares the sides from {@code state} (which is not changed) with the given future health changes. */
    public WhatIfReport compare(ClusterState state, Side base, Side variant, DurationModel history,
                                ArrivalModel arrivals, List<ForwardRun.HealthChange> health) {
        DurationModel durations = history.given(state);
        if (!base.tree().leafNames().equals(variant.tree().leafNames())) {
            throw new IllegalArgumentException("a what-if keeps the allocations: the variant's tree has leaves "
                    + variant.tree().leafNames() + ", the base's " + base.tree().leafNames());
        }
        long now = state.now();
        long until = now + settings.horizon().getSeconds();
        int runs = settings.runs();
        Tally b = new Tally(base.tree().leafCount());
        Tally v = new Tally(variant.tree().leafCount());
        List<Job> jobs = state.jobs();
        for (int r = 0; r < runs; r++) {
            SplittableRandom random = new SplittableRandom(settings.seed() * 1_000_003L + r * 7919L + now);
            long[] drawn = new long[jobs.size()];
            for (Job j : jobs) {
                drawn[j.index()] = Forecaster.draw(j, now, durations, random);
            }
            List<WorkloadSpec> future = holdable(state, arrivals.draw(now, until, "~r" + r + "-", durations, random));
            play(state, base, drawn, future, health, until, b);
            play(state, variant, drawn, future, health, until, v);
        }
        List<WhatIfReport.Allocation> rows = new ArrayList<>();
        AllocationTree tree = base.tree();
        for (int n = 0; n < tree.nodeCount(); n++) {
            WhatIfReport.Outcome ob = b.outcome(base.tree(), n, runs);
            WhatIfReport.Outcome ov = v.outcome(variant.tree(), n, runs);
            rows.add(new WhatIfReport.Allocation(tree.name(n), tree.depth(n), tree.isLeaf(n), ob, ov,
                    WhatIfReport.Delta.of(ob, ov)));
        }
        return new WhatIfReport(now, until, runs, settings.seed(), durationsBasis(state, durations),
                arrivals.basis(now), sharesChanged(base.tree(), variant.tree()),
                settingsChanged(base.settings(), variant.settings()), rows);
    }

    private void play(ClusterState state, Side side, long[] drawn, List<WorkloadSpec> future,
                      List<ForwardRun.HealthChange> health, long until, Tally tally) {
        ClusterState fork = state.fork(side.tree(), j -> drawn[j.index()]);
        long now = fork.now();
        HorizonUsage usage = new HorizonUsage(fork, until);
        ForwardRun.Result result = ForwardRun.play(fork, factory.create(side.settings()), future, health, Set.of(),
                until, usage);
        usage.advanceTo(until);
        for (Map.Entry<String, Long> e : result.firstStartsSeconds().entrySet()) {
            Job j = fork.job(e.getKey()).orElseThrow();
            tally.waits.get(j.leaf()).add(e.getValue() - Math.max(j.spec().submitSeconds(), now));
        }
        for (Job j : fork.jobs()) {
            if (j.state() == JobState.PENDING) {
                tally.waiting[j.leaf()]++;
            }
        }
        AllocationTree tree = side.tree();
        for (int l = 0; l < tree.leafCount(); l++) {
            double ent = tree.leafEntitlement(l);
            tally.received[l] += usage.receivedGpuSeconds(l);
            tally.owed[l] += usage.owedGpuSeconds(l, ent);
            tally.paid[l] += usage.paidGpuSeconds(l, ent);
        }
    }

    /**
     * The new work the state can take: past work copied into the future may name an allocation that is no longer a
     * leaf, or a shape the cluster can no longer hold (a node removed); the state would refuse it, as the service
     * refuses such work, so the future does not bring it.
     */
    private static List<WorkloadSpec> holdable(ClusterState state, List<WorkloadSpec> future) {
        List<WorkloadSpec> out = new ArrayList<>(future.size());
        for (WorkloadSpec w : future) {
            if (state.tree().leaf(w.allocation()).isPresent()
                    && ShapeFit.fits(state.cluster(), w.gpus(), w.gpusPerNode())) {
                out.add(w);
            }
        }
        return out;
    }

    /** One side's numbers per leaf, summed over the runs. */
    private static final class Tally {
        final List<List<Long>> waits = new ArrayList<>();
        final long[] waiting;
        final long[] received;
        final double[] owed;
        final double[] paid;

        Tally(int leaves) {
            for (int l = 0; l < leaves; l++) {
                waits.add(new ArrayList<>());
            }
            waiting = new long[leaves];
            received = new long[leaves];
            owed = new double[leaves];
            paid = new double[leaves];
        }

        /** The outcome of node {@code node}: its leaves' numbers together. */
        WhatIfReport.Outcome outcome(AllocationTree tree, int node, int runs) {
            List<Long> w = new ArrayList<>();
            long waitingSum = 0;
            long receivedSum = 0;
            double owedSum = 0;
            double paidSum = 0;
            for (int l = 0; l < tree.leafCount(); l++) {
                if (!tree.isWithin(tree.leafNode(l), node)) {
                    continue;
                }
                w.addAll(waits.get(l));
                waitingSum += waiting[l];
                receivedSum += received[l];
                owedSum += owed[l];
                paidSum += paid[l];
            }
            long[] sorted = w.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(sorted);
            Long p50 = sorted.length == 0 ? null : Forecaster.quantile(sorted, 0.5);
            Long p90 = sorted.length == 0 ? null : Forecaster.quantile(sorted, 0.9);
            return new WhatIfReport.Outcome(WhatIfReport.round(tree.entitlement(node), 6),
                    WhatIfReport.round((double) sorted.length / runs, 2), p50, p90,
                    WhatIfReport.round((double) waitingSum / runs, 2),
                    WhatIfReport.round(receivedSum / 3600.0 / runs, 2), WhatIfReport.round(owedSum / 3600.0 / runs, 2),
                    MetricsCollector.paidFraction(paidSum, owedSum));
        }
    }

    private static SortedMap<String, Double> sharesChanged(AllocationTree base, AllocationTree variant) {
        SortedMap<String, Double> out = new TreeMap<>();
        if (base.nodeCount() != variant.nodeCount()) {
            throw new IllegalArgumentException("a what-if keeps the tree's nodes: the variant has "
                    + variant.nodeCount() + ", the base " + base.nodeCount());
        }
        for (int n = 1; n < base.nodeCount(); n++) {
            if (!base.name(n).equals(variant.name(n))) {
                throw new IllegalArgumentException("a what-if keeps the tree's nodes: node " + n + " is '"
                        + base.name(n) + "' in the base, '" + variant.name(n) + "' in the variant");
            }
            if (base.share(n) != variant.share(n)) {
                out.put(base.name(n), variant.share(n));
            }
        }
        return out;
    }

    private SortedMap<String, String> settingsChanged(Settings base, Settings variant) {
        SortedMap<String, String> out = new TreeMap<>();
        variant.asText().forEach((k, value) -> {
            if (!value.equals(base.asText().get(k))) {
                out.put(factory.name() + "." + k, value);
            }
        });
        return out;
    }

    /** What the durations of the work now waiting or running rest on, counted by kind of basis. */
    private static String durationsBasis(ClusterState state, DurationModel durations) {
        SortedMap<String, Integer> counts = new TreeMap<>();
        for (Job j : state.jobs()) {
            if (j.state() == JobState.PENDING || j.state() == JobState.RUNNING) {
                String basis = durations.basis(j.spec());
                counts.merge(basis.startsWith("history") ? "history of work like it" : basis, 1,
                        Integer::sum);
            }
        }
        if (counts.isEmpty()) {
            return "no work waiting or running";
        }
        StringBuilder sb = new StringBuilder();
        counts.forEach((k, n) -> sb.append(sb.length() == 0 ? "" : "; ").append(k).append(" (").append(n)
                .append(n == 1 ? " workload)" : " workloads)"));
        return sb.toString();
    }
}
