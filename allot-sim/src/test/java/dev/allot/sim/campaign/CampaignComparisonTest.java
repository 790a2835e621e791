package dev.allot.sim.campaign;

import static dev.allot.sim.campaign.CampaignStoryTest.campaign;
import static dev.allot.sim.campaign.CampaignStoryTest.twoGpusOneBusyFor12h;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** How {@link CampaignComparison} hands its runs' failures to the caller. */
class CampaignComparisonTest {

    @Test
    void anErrorInARunReachesTheCallerAsItselfNotWrapped() {
        // a run out of memory reached the user as 'unexpected IllegalStateException: a campaign run failed'
        Scenario scenario = twoGpusOneBusyFor12h().scenario();
        CampaignComparison comparison = new CampaignComparison(campaign(1, 15), List.of(CampaignStrategy.ALLOT),
                "allocation", false);
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            assertThatThrownBy(() -> comparison.run(PolicyRegistry.standard(), java.util.Collections.singletonList(null),
                    seed -> scenario, pool, () -> {
                        throw new OutOfMemoryError("Java heap space");
                    }))
                    .isInstanceOf(OutOfMemoryError.class).hasMessage("Java heap space");
        } finally {
            pool.shutdownNow();
        }
    }
}
