package dev.allot.core.campaign;

import static dev.allot.core.campaign.Shards.H;
import static dev.allot.core.campaign.Shards.running;
import static dev.allot.core.campaign.Shards.shard;
import static dev.allot.core.campaign.Shards.unqueued;
import static dev.allot.core.campaign.Shards.waiting;
import static dev.allot.core.campaign.ShardTier.PROTECTED;
import static dev.allot.core.campaign.ShardTier.UNALLOCATED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When each shard and the campaign should end: running shards after their remaining time, waiting ones list-scheduled
 * onto the protected slots as they free, longest first; unknown without a slot or with a shard braked.
 */
class CampaignEtaTest {
    private static final long NOW = 1_000;

    private static CampaignEta.Eta eta(List<ShardView> shards, ProtectedSlots slots) {
        SlotPlanner.Plan plan = SlotPlanner.plan(shards, slots, CampaignStrategy.ALLOT, 0);
        return CampaignEta.estimate(shards, plan, slots, NOW);
    }

    @Test
    void givenRunningShardsEachEndsAfterItsRemainingTimeAndTheCampaignWithTheLast() {
        List<ShardView> shards = List.of(running(0, 5, PROTECTED), running(1, 3, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.shards(1));

        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 5 * H), entry(1, NOW + 3 * H));
        assertThat(e.campaignEndSeconds()).isEqualTo(NOW + 5 * H);
    }

    @Test
    void givenWaitingShardsTheyTakeTheSlotsAsTheyFreeLongestFirst() {
        // 2 slots, one held by a shard with 2h left: the 10h shard starts now, the 4h one at 2h, the 3h one at 6h
        List<ShardView> shards = List.of(running(0, 2, PROTECTED), waiting(1, 3, UNALLOCATED), unqueued(2, 10),
                waiting(3, 4, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.shards(2));

        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 2 * H), entry(1, NOW + 9 * H),
                entry(2, NOW + 10 * H), entry(3, NOW + 6 * H));
        assertThat(e.campaignEndSeconds()).isEqualTo(NOW + 10 * H);
    }

    @Test
    void givenAShardRunningUnallocatedItHoldsNoSlotForTheShardsWaiting() {
        List<ShardView> shards = List.of(running(0, 8, UNALLOCATED), waiting(1, 3, PROTECTED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.shards(1));

        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 8 * H), entry(1, NOW + 3 * H));
    }

    @Test
    void givenNoProtectedSlotAWaitingShardHasNoEtaAndNeitherHasTheCampaign() {
        List<ShardView> shards = List.of(running(0, 2, UNALLOCATED), waiting(1, 3, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.none());

        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 2 * H));
        assertThat(e.campaignEndSeconds()).isEqualTo(-1);
    }

    @Test
    void givenABrakedShardTheCampaignHasNoEtaButTheOthersKeepTheirs() {
        List<ShardView> shards = List.of(running(0, 2, PROTECTED), shard(1, 1, 30, ShardPhase.BRAKED, UNALLOCATED),
                waiting(2, 1, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.shards(1));

        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 2 * H), entry(2, NOW + 3 * H));
        assertThat(e.campaignEndSeconds()).isEqualTo(-1);
    }

    @Test
    void givenEveryShardDoneTheCampaignEndsNowAndNoShardHasAnEta() {
        ShardView done = new ShardView(0, null, 1, 4, 4, 4 * H, ShardPhase.DONE, PROTECTED);

        CampaignEta.Eta e = eta(List.of(done), ProtectedSlots.shards(1));

        assertThat(e.shardEndSeconds()).isEmpty();
        assertThat(e.campaignEndSeconds()).isEqualTo(NOW);
    }

    @Test
    void givenEverySlotUnlimitedEveryWaitingShardStartsNow() {
        List<ShardView> shards = List.of(waiting(0, 3, PROTECTED), unqueued(1, 7), waiting(2, 5, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.unlimited());

        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 3 * H), entry(1, NOW + 7 * H), entry(2, NOW + 5 * H));
        assertThat(e.campaignEndSeconds()).isEqualTo(NOW + 7 * H);
    }

    @Test
    void givenSlotsOf8GpusFour4GpuShardsRunTwoAtATime() {
        List<ShardView> shards = List.of(shard(0, 4, 10, ShardPhase.WAITING, UNALLOCATED),
                shard(1, 4, 10, ShardPhase.WAITING, UNALLOCATED), shard(2, 4, 6, ShardPhase.WAITING, UNALLOCATED),
                shard(3, 4, 6, ShardPhase.WAITING, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.gpus(8));

        // longest first: shards 0 and 1 now; 2 and 3 when those end
        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 10 * H), entry(1, NOW + 10 * H),
                entry(2, NOW + 16 * H), entry(3, NOW + 16 * H));
        assertThat(e.campaignEndSeconds()).isEqualTo(NOW + 16 * H);
    }

    @Test
    void givenSlotsOf8GpusTheGpusOfShardsRunningProtectedCountAgainstThem() {
        // 6 of 8 GPUs held for 3h more: the 4-GPU shard waits until they free
        List<ShardView> shards = List.of(shard(0, 6, 3, ShardPhase.RUNNING, PROTECTED),
                shard(1, 4, 5, ShardPhase.WAITING, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.gpus(8));

        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 3 * H), entry(1, NOW + 8 * H));
    }

    @Test
    void givenSlotsOf8GpusA4GpuShardThatDoesNotFitWaitsWhileALaterSmallerShardStartsNow() {
        // as the planner fills the slots: 30h on 6 GPUs and 10h on 2 GPUs now; 20h on 4 GPUs when the 6 GPUs free
        List<ShardView> shards = List.of(shard(0, 6, 30, ShardPhase.WAITING, UNALLOCATED),
                shard(1, 4, 20, ShardPhase.WAITING, UNALLOCATED), shard(2, 2, 10, ShardPhase.WAITING, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.gpus(8));

        assertThat(e.shardEndSeconds()).containsOnly(entry(0, NOW + 30 * H), entry(1, NOW + 50 * H),
                entry(2, NOW + 10 * H));
        assertThat(e.campaignEndSeconds()).isEqualTo(NOW + 50 * H);
    }

    @Test
    void givenAShardLargerThanTheGpuSlotsItHasNoEtaAndNeitherHasTheCampaign() {
        List<ShardView> shards = List.of(shard(0, 16, 3, ShardPhase.WAITING, UNALLOCATED),
                shard(1, 4, 5, ShardPhase.WAITING, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.gpus(8));

        assertThat(e.shardEndSeconds()).containsOnly(entry(1, NOW + 5 * H));
        assertThat(e.campaignEndSeconds()).isEqualTo(-1);
    }

    @Test
    void givenMoreShardsRunningProtectedThanSlotsAWaitingShardStartsOnlyWhenASlotIsTrulyFree() {
        // the slots went down to 1 while 2 shards ran protected: the waiting shard starts when both have ended
        List<ShardView> shards = List.of(running(0, 1, PROTECTED), running(1, 5, PROTECTED), waiting(2, 2, UNALLOCATED));

        CampaignEta.Eta e = eta(shards, ProtectedSlots.shards(1));

        assertThat(e.shardEndSeconds()).containsEntry(2, NOW + 7 * H);
        assertThat(e.campaignEndSeconds()).isEqualTo(NOW + 7 * H);
    }
}
