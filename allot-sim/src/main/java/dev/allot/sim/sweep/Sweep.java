package dev.allot.sim.sweep;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.LongFunction;

/**
 * A parameter sweep: the cross product of setting values, policies and scenario variants (seeds), each run an
 * independent simulation. Runs go to the given executor in parallel; results come back in the order of the grid,
 * whatever order they finish in, so the output is deterministic.
 */
public final class Sweep {
    private final Map<String, List<String>> grid;
    private final List<String> policies;
    private final List<Long> seeds;

    /**
     * @param grid     setting key (a shared key such as {@code lookback} or {@code policy.key}) to the values to try,
     *                 in the order given; keys vary slowest first
     * @param policies policy names
     * @param seeds    scenario seeds; a single null element means one fixed scenario
     */
    public Sweep(Map<String, List<String>> grid, List<String> policies, List<Long> seeds) {
        if (policies.isEmpty()) {
            throw new IllegalArgumentException("a sweep needs at least one policy");
        }
        this.grid = new LinkedHashMap<>(grid);
        this.grid.forEach((k, v) -> {
            if (v.isEmpty()) {
                throw new IllegalArgumentException("setting '" + k + "' has no values to sweep");
            }
        });
        this.policies = List.copyOf(policies);
        this.seeds = new ArrayList<>(seeds);
    }

    /** One point of the grid: the settings, the policy and the seed (null for a fixed scenario). */
    public record Point(int index, Map<String, String> settings, String policy, Long seed) {
    }

    /** A finished run. */
    public record Run(Point point, SimulationResult result) {
    }

    /** Every point, in grid order: settings (first key slowest), then policy, then seed. */
    public List<Point> points() {
        List<Map<String, String>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        for (Map.Entry<String, List<String>> e : grid.entrySet()) {
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> c : combos) {
                for (String v : e.getValue()) {
                    Map<String, String> m = new LinkedHashMap<>(c);
                    m.put(e.getKey(), v);
                    next.add(m);
                }
            }
            combos = next;
        }
        List<Point> points = new ArrayList<>();
        for (Map<String, String> c : combos) {
            for (String p : policies) {
                for (Long s : seeds) {
                    points.add(new Point(points.size(), c, p, s));
                }
            }
        }
        return points;
    }

    /**
     * Checks every point against {@code base}, the policy settings of the scenarios it will run on, without running
     * anything: each policy is known and each combination of setting values reads, else the
     * {@link IllegalArgumentException} a run would meet, with the same text. A caller checks before it shows
     * progress or builds scenarios, so a mistyped value fails at once.
     */
    public void check(PolicyRegistry registry, PolicyConfig base) {
        for (Point p : points()) {
            configFor(registry, base, p);
        }
    }

    /** {@code base} with the point's settings applied, every policy's settings read and the point's policy known. */
    private static PolicyConfig configFor(PolicyRegistry registry, PolicyConfig base, Point p) {
        registry.get(p.policy());
        PolicyConfig config = base;
        for (Map.Entry<String, String> e : p.settings().entrySet()) {
            config = config.override(registry, e.getKey(), e.getValue());
        }
        for (String name : config.perPolicy().keySet()) {
            config.settingsFor(registry.get(name));
        }
        return config;
    }

    /**
     * Runs every point on {@code executor}; {@code scenarioFor} gives the scenario of a seed (called once per seed,
     * before any run), {@code onDone} is told of each finished run (from worker threads). Bad settings fail before
     * anything runs.
     */
    public List<Run> run(PolicyRegistry registry, LongFunction<Scenario> scenarioFor, Scenario fixed,
                         ExecutorService executor, Runnable onDone) throws InterruptedException {
        return run(registry, scenarioFor, fixed, executor, onDone, Simulator.Options.defaults());
    }

    /** {@link #run(PolicyRegistry, LongFunction, Scenario, ExecutorService, Runnable)} with these options for every run. */
    public List<Run> run(PolicyRegistry registry, LongFunction<Scenario> scenarioFor, Scenario fixed,
                         ExecutorService executor, Runnable onDone, Simulator.Options options) throws InterruptedException {
        Map<Long, Scenario> scenarios = new LinkedHashMap<>();
        for (Long s : seeds) {
            scenarios.put(s, s == null ? fixed : scenarioFor.apply(s));
        }
        List<Point> points = points();
        List<Scenario> prepared = new ArrayList<>(points.size());
        for (Point p : points) {
            Scenario base = scenarios.get(p.seed());
            prepared.add(base.withPolicyConfig(configFor(registry, base.policyConfig(), p)));
        }
        List<Future<SimulationResult>> futures = new ArrayList<>(points.size());
        for (int i = 0; i < points.size(); i++) {
            Scenario s = prepared.get(i);
            String policy = points.get(i).policy();
            futures.add(executor.submit(() -> {
                SimulationResult r = new Simulator(s, registry, policy, options).run();
                onDone.run();
                return r;
            }));
        }
        List<Run> runs = new ArrayList<>(points.size());
        for (int i = 0; i < points.size(); i++) {
            try {
                runs.add(new Run(points.get(i), futures.get(i).get()));
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof RuntimeException re) {
                    throw re;
                }
                if (cause instanceof Error error) {
                    throw error; // out of memory is said as such ('unexpected IllegalStateException: run 1 failed')
                }
                throw new IllegalStateException("run " + (i + 1) + " failed", cause);
            }
        }
        return runs;
    }
}
