package dev.allot.sim.forecast;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.sim.ForwardRun;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * When will waiting work start? Plays the future of a state several times ({@link ForwardRun}, the policy the service
 * runs, with its settings), each run with its own draw of how long every job runs ({@link DurationModel}) and of the
 * new work that arrives ({@link RecentArrivals}), and reports for each waiting job the p10, median and p90 of its
 * start over the runs. A job that does not start within the horizon in a run counts as starting after it.
 *
 * <p>Same state, models, settings and seed: same forecast. The runs share nothing, so they could run in parallel;
 * they run one after another, on the caller's thread (never the scheduling thread).
 */
public final class Forecaster {
    private final PolicyFactory factory;
    private final Settings policySettings;
    private final ForecastSettings settings;

    public Forecaster(PolicyFactory factory, Settings policySettings, ForecastSettings settings) {
        this.factory = factory;
        this.policySettings = policySettings;
        this.settings = settings;
    }

    /**
     * Forecasts the start of {@code ids} (all waiting jobs when empty) in {@code state}, which is not changed.
     *
     * @param tree the tree to play with: the state's own, or a what-if's (same leaves, other shares)
     */
    public Forecasts forecast(ClusterState state, AllocationTree tree, Set<String> ids, DurationModel history,
                              ArrivalModel arrivals) {
        long now = state.now();
        DurationModel durations = history.given(state);
        long until = now + settings.horizon().getSeconds();
        List<String> watched = new ArrayList<>();
        for (Job j : state.jobs()) {
            if (j.state() == JobState.PENDING && (ids.isEmpty() || ids.contains(j.id()))) {
                watched.add(j.id());
            }
        }
        Set<String> watch = Set.copyOf(watched);
        int runs = settings.runs();
        Map<String, long[]> starts = new HashMap<>();
        for (String id : watched) {
            starts.put(id, new long[runs]);
        }
        long decisions = 0;
        long arrivalsPlayed = 0;
        for (int r = 0; r < runs; r++) {
            SplittableRandom random = new SplittableRandom(settings.seed() * 1_000_003L + r * 7919L + now);
            ClusterState fork = state.fork(tree, j -> draw(j, now, durations, random));
            List<WorkloadSpec> future = arrivals.draw(now, until, "~r" + r + "-", durations, random);
            arrivalsPlayed += future.size();
            ForwardRun.Result result = ForwardRun.play(fork, factory.create(policySettings), future, List.of(), watch,
                    until);
            decisions += result.decisions();
            for (String id : watched) {
                starts.get(id)[r] = result.startOf(id);
            }
        }
        Map<String, Forecast> out = new LinkedHashMap<>();
        for (String id : watched) {
            long[] s = starts.get(id);
            Arrays.sort(s);
            WorkloadSpec spec = state.job(id).orElseThrow().spec();
            out.put(id, new Forecast(id, now, quantile(s, settings.low()), quantile(s, 0.5), quantile(s, settings.high()),
                    until, durations.basis(spec)));
        }
        return new Forecasts(now, until, runs, out, arrivals.basis(now), decisions, arrivalsPlayed / Math.max(1, runs));
    }

    /** One run's running time in all for {@code j}: its own when it is over, else a draw beyond what it has run. */
    static long draw(Job j, long now, DurationModel durations, SplittableRandom random) {
        if (j.state().isFinal()) {
            return j.durationSeconds();
        }
        long done = j.progressSeconds() + (j.state() == JobState.RUNNING ? now - j.attemptStartSeconds() : 0);
        return Math.max(done + 1, durations.drawSeconds(j.spec(), done, random));
    }

    /** The sample quantile by the nearest-rank method, on sorted values ({@code Long.MAX_VALUE}: not started). */
    static long quantile(long[] sorted, double q) {
        return dev.allot.sim.metrics.NearestRank.of(sorted, q);
    }
}
