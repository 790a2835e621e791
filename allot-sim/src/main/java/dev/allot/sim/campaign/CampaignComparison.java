package dev.allot.sim.campaign;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.metrics.HourlyUsage;
import dev.allot.sim.metrics.MetricsCollector;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * One campaign under several strategies in the same background load, over several scenarios (seeds), each run an
 * independent simulation under one policy: for every seed, one run without the campaign (the baseline of the other
 * allocations' paid fraction) and one per strategy. Runs go to the given executor; results come back in seed, then
 * strategy order, whatever order they finish in, so the output is deterministic.
 */
public final class CampaignComparison {
    private final CampaignSpec campaign;
    private final List<CampaignStrategy> strategies;
    private final String policy;
    private final boolean check;

    /** One finished run; {@code strategy} and {@code outcome} are null for the baseline. */
    public record Run(Long seed, CampaignStrategy strategy, SimulationResult result, CampaignOutcome outcome) {
        public boolean baseline() {
            return strategy == null;
        }
    }

    /**
     * @param check run with the invariant checks on ({@code --check}): slower, fails on the first violation
     */
    public CampaignComparison(CampaignSpec campaign, List<CampaignStrategy> strategies, String policy, boolean check) {
        if (strategies.isEmpty()) {
            throw new IllegalArgumentException("a comparison needs at least one strategy");
        }
        this.campaign = campaign;
        this.strategies = List.copyOf(strategies);
        this.policy = policy;
        this.check = check;
    }

    public CampaignSpec campaign() {
        return campaign;
    }

    public List<CampaignStrategy> strategies() {
        return strategies;
    }

    /**
     * Runs the baseline and every strategy for every seed; {@code scenarioFor} gives a seed's background (called
     * once per seed, before any run; a single null seed stands for one fixed scenario), {@code onDone} hears of each finished run (from worker threads).
     */
    public List<Run> run(PolicyRegistry registry, List<Long> seeds, Function<Long, Scenario> scenarioFor,
                         ExecutorService executor, Runnable onDone) throws InterruptedException {
        registry.get(policy);
        Map<Long, Scenario> scenarios = new LinkedHashMap<>();
        for (Long s : seeds) {
            Scenario scenario = scenarioFor.apply(s);
            if (scenario.tree().leaf(campaign.allocation()).isEmpty()) {
                throw new IllegalArgumentException("campaign " + campaign.name() + " names allocation '"
                        + campaign.allocation() + "', not a leaf of scenario " + scenario.name() + "'s tree; leaves: "
                        + String.join(", ", scenario.tree().leafNames()));
            }
            scenarios.put(s, scenario);
        }
        List<Future<Run>> futures = new ArrayList<>();
        for (Long seed : seeds) {
            Scenario scenario = scenarios.get(seed);
            List<CampaignStrategy> each = new ArrayList<>();
            each.add(null);
            each.addAll(strategies);
            for (CampaignStrategy strategy : each) {
                futures.add(executor.submit(() -> {
                    Run r = runOne(registry, seed, scenario, strategy);
                    onDone.run();
                    return r;
                }));
            }
        }
        List<Run> runs = new ArrayList<>(futures.size());
        for (Future<Run> f : futures) {
            try {
                runs.add(f.get());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                if (e.getCause() instanceof Error error) {
                    throw error; // out of memory is said as such, not as 'a campaign run failed'
                }
                throw new IllegalStateException("a campaign run failed", e.getCause());
            }
        }
        return runs;
    }

    /** One run: the scenario alone ({@code strategy} null) or with the campaign under {@code strategy}. */
    public Run runOne(PolicyRegistry registry, Long seed, Scenario scenario, CampaignStrategy strategy) {
        Simulator.Options options = Simulator.Options.defaults().withCheck(check);
        CampaignDriver driver = strategy == null ? null : new CampaignDriver(campaign, strategy);
        if (driver != null) {
            options = options.withAgent(driver);
        }
        SimulationResult result = new Simulator(scenario, registry, policy, options).run();
        return new Run(seed, strategy, result,
                driver == null ? null : driver.outcome(result.run().endSeconds()));
    }

    /**
     * The paid fraction of every allocation but {@code exceptLeaf} together over hours {@code [fromHour, toHour)}:
     * the sum over those allocations and hours of min(received allocated, owed) over the sum of owed, owed as
     * {@link MetricsCollector#owedGpuSeconds} counts it. NaN when nothing was owed.
     */
    public static double othersPaidFraction(HourlyUsage hourly, List<Double> entitlements, int exceptLeaf,
                                            int fromHour, int toHour) {
        double owed = 0;
        double paid = 0;
        for (int l = 0; l < entitlements.size(); l++) {
            if (l == exceptLeaf) {
                continue;
            }
            for (int h = fromHour; h < toHour; h++) {
                double o = MetricsCollector.owedGpuSeconds(entitlements.get(l), hourly.healthy().get(h),
                        hourly.demand().get(l).get(h));
                owed += o;
                paid += Math.min(hourly.receivedAllocated().get(l).get(h), o);
            }
        }
        return owed > 0 ? paid / owed : Double.NaN;
    }
}
