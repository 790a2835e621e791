package dev.allot.sim.campaign;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.campaign.ProtectedSlots;
import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Campaign stories on tiny clusters: which shard holds the slot, promotion in place, the seed's restarts. */
class CampaignStoryTest {
    private static final long M = 60;
    private static final long H = 3600;

    /** One family of 25 minutes per unit; shards of the given units, submitted at 0 to A with {@code slots}. */
    static CampaignSpec campaign(int slots, long... units) {
        TreeMap<String, Long> families = new TreeMap<>();
        families.put("restore", 25 * M);
        List<CampaignSpec.Shard> shards = new java.util.ArrayList<>();
        for (int i = 0; i < units.length; i++) {
            shards.add(new CampaignSpec.Shard(i, "restore", units[i], 1.0));
        }
        return new CampaignSpec("c", "A", 0, 1, Duration.ofHours(8), ProtectedSlots.shards(slots), 0, families, shards);
    }

    /** Two 1-GPU nodes; B holds one for 12 hours from 0, so the campaign's unallocated shards wait for it. */
    static ScenarioBuilder twoGpusOneBusyFor12h() {
        return given().nodes(2, 1)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("b1").in("B").gpus(1).runs("12h").minRuntime("8h").at("0s"));
    }

    @Test
    void theLongestShardHoldsTheSlotAndTheLongestRunningOneIsPromotedInPlaceWhenItFrees() {
        // shards of 30h (72 units), 6h15m (15) and 20h (48); one protected slot
        CampaignDriver driver = new CampaignDriver(campaign(1, 72, 15, 48), CampaignStrategy.ALLOT);
        Run run = twoGpusOneBusyFor12h().run("allocation", driver);
        System.out.println(run.story());
        CampaignOutcome o = driver.outcome(run.result().run().endSeconds());
        System.out.println(o);
    }

    @Test
    void underV41TheSameMoveRestartsTheShardAndLosesItsPartialUnit() {
        CampaignDriver driver = new CampaignDriver(campaign(1, 72, 15, 48), CampaignStrategy.V4_1);
        Run run = twoGpusOneBusyFor12h().run("allocation", driver);
        System.out.println(run.story());
        CampaignOutcome o = driver.outcome(run.result().run().endSeconds());
        System.out.println(o);
    }
}
