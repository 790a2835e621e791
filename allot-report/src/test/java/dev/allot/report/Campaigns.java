package dev.allot.report;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.campaign.CampaignComparison;
import dev.allot.sim.campaign.CampaignSpec;
import dev.allot.sim.campaign.CampaignTable;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import dev.allot.sim.input.ScenarioReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * Test fixture: campaign comparisons as {@code allot campaign simulate} runs them, every strategy plus the baseline
 * per seed. {@link #twoGpus} is the CLI test's scenario, small enough to work out by hand; {@link #lab} the lab preset
 * with the example campaign.
 */
final class Campaigns {
    /** The runs and their summary. */
    record Comparison(CampaignTable.Summary summary, List<CampaignComparison.Run> runs) {
    }

    private Campaigns() {
    }

    /**
     * Two 1-GPU nodes, B holding one for 12 hours from 0, and a campaign of three restore shards (30h, 25h and
     * 6h15m of 25-minute units) with one slot, in folder {@code dir}; {@code scenarioName} names it in the heading.
     */
    static Comparison twoGpus(Path dir, String scenarioName) {
        try {
            Path scenario = Files.createDirectories(dir.resolve("two-gpus"));
            Files.writeString(scenario.resolve("cluster.yaml"), "node-groups:\n  - {name-prefix: n, count: 2, gpus: 1}\n");
            Files.writeString(scenario.resolve("allocations.yaml"),
                    "name: lab\nchildren:\n  - {name: A, share: 1}\n  - {name: B, share: 1}\n");
            Files.writeString(scenario.resolve("workloads.csv"),
                    "id,submit,allocation,user,gpus,gpus_per_node,duration,min_runtime,resumable,priority,checkpoint_every,kind\n"
                            + "b1,0,B,bo,1,,12h,8h,false,normal,,train\n");
            Path campaign = dir.resolve("c.yaml");
            Files.writeString(campaign, "name: c\nallocation: A\nmin-runtime: 8h\nprotected-shards: 1\n"
                    + "families: {restore: 25m}\n"
                    + "shards:\n  - {family: restore, units: 72}\n  - {family: restore, units: 60}\n"
                    + "  - {family: restore, units: 15}\n");
            PolicyRegistry registry = PolicyRegistry.standard();
            Scenario s = ScenarioReader.read(scenario, false, registry);
            CampaignSpec spec = ScenarioReader.readCampaign(campaign, s.tree());
            return compare(spec, s.tree(), java.util.Collections.singletonList(null), seed -> s, scenarioName, 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lab preset over {@code seeds} with {@code examples/campaign/oracle-eval.yaml}. */
    static Comparison lab(List<Long> seeds, int threads) {
        // 8 days, not the preset's 14: the campaign (submitted on day 3) ends within them under every strategy, and the
        // page's test needs no more background than that
        GeneratorSpec preset = GeneratorSpec.preset("lab").withDays(8);
        Function<Long, Scenario> scenarioFor = seed -> ScenarioGenerator.generate(preset, seed).toScenario("lab-" + seed);
        AllocationTree tree = ScenarioGenerator.generate(preset, seeds.get(0)).tree();
        CampaignSpec spec = ScenarioReader.readCampaign(Reports.EXAMPLES.resolve("campaign/oracle-eval.yaml"), tree);
        return compare(spec, tree, seeds, scenarioFor, "lab preset, seeds " + seeds, threads);
    }

    private static Comparison compare(CampaignSpec spec, AllocationTree tree, List<Long> seeds,
                                      Function<Long, Scenario> scenarioFor, String name, int threads) {
        CampaignComparison comparison = new CampaignComparison(spec, CampaignStrategy.all(), "allocation", false);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CampaignComparison.Run> runs = comparison.run(PolicyRegistry.standard(), seeds, scenarioFor, pool,
                    () -> { });
            return new Comparison(CampaignTable.summarize(runs, spec, tree, name, "allocation"), runs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            pool.shutdownNow();
        }
    }
}
