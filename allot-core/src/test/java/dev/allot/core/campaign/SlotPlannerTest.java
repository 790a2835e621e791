package dev.allot.core.campaign;

import static dev.allot.core.campaign.Shards.H;
import static dev.allot.core.campaign.Shards.running;
import static dev.allot.core.campaign.Shards.shard;
import static dev.allot.core.campaign.Shards.unqueued;
import static dev.allot.core.campaign.Shards.waiting;
import static dev.allot.core.campaign.ShardTier.PROTECTED;
import static dev.allot.core.campaign.ShardTier.UNALLOCATED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.campaign.CampaignMove.Promote;
import dev.allot.core.campaign.CampaignMove.Queue;
import dev.allot.core.campaign.CampaignMove.Restart;
import dev.allot.core.campaign.CampaignMove.Retier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which shards hold the protected slots and the moves that get them there: running protected shards keep theirs,
 * the rest go by the strategy's parking order (longest estimated remaining work first for Allot), a move of a running
 * shard is a promotion in place or a restart, and the plan depends only on its inputs.
 */
class SlotPlannerTest {
    private static SlotPlanner.Plan plan(List<ShardView> shards, ProtectedSlots slots, CampaignStrategy strategy) {
        return SlotPlanner.plan(shards, slots, strategy, 0);
    }

    @Test
    void given3ShardsOf30h6hAnd20hAnd2SlotsThe30hAnd20hShardsGetTheSlots() {
        List<ShardView> shards = List.of(unqueued(0, 30), unqueued(1, 6), unqueued(2, 20));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(2), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(0, 2);
        assertThat(p.moves()).containsExactly(new Queue(0, PROTECTED), new Queue(1, UNALLOCATED), new Queue(2, PROTECTED));
        assertThat(p.estimates().get(0).remainingSeconds()).isEqualTo(30 * H);
    }

    @Test
    void givenTheSameShardsTheSeedsV4TakesTheFirstTwoInSubmissionOrder() {
        List<ShardView> shards = List.of(unqueued(0, 30), unqueued(1, 6), unqueued(2, 20));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(2), CampaignStrategy.V4);

        assertThat(p.chosen()).containsExactly(0, 1);
        assertThat(p.moves()).containsExactly(new Queue(0, PROTECTED), new Queue(1, PROTECTED), new Queue(2, UNALLOCATED));
    }

    @Test
    void givenAShardRunningProtectedItKeepsItsSlotThoughShorterThanTheShardsWaiting() {
        List<ShardView> shards = List.of(running(0, 2, PROTECTED), waiting(1, 30, UNALLOCATED),
                waiting(2, 20, UNALLOCATED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(2), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(1);
        assertThat(p.moves()).containsExactly(new Retier(1, PROTECTED));
    }

    @Test
    void givenMoreShardsRunningProtectedThanSlotsNoneIsTakenBackAndNoneIsAdded() {
        List<ShardView> shards = List.of(running(0, 2, PROTECTED), running(1, 3, PROTECTED), waiting(2, 40, UNALLOCATED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).isEmpty();
        assertThat(p.moves()).isEmpty();
    }

    @Test
    void givenAWaitingProtectedShardThatIsNoLongerTheLongestItGoesBackToUnallocatedAndTheLongestTakesItsSlot() {
        // the 5h shard was chosen on earlier estimates; measurements now say shard 1 has 40h left
        List<ShardView> shards = List.of(waiting(0, 5, PROTECTED), waiting(1, 40, UNALLOCATED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(1);
        assertThat(p.moves()).containsExactly(new Retier(0, UNALLOCATED), new Retier(1, PROTECTED));
    }

    @Test
    void givenAChosenShardAlreadyWaitingProtectedItNeedsNoMove() {
        List<ShardView> shards = List.of(waiting(0, 40, PROTECTED), waiting(1, 5, UNALLOCATED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(0);
        assertThat(p.moves()).isEmpty();
    }

    @Test
    void givenTheLongestShardRunningUnallocatedAllotPromotesItInPlace() {
        List<ShardView> shards = List.of(running(0, 30, UNALLOCATED), waiting(1, 5, UNALLOCATED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(0);
        assertThat(p.moves()).containsExactly(new Promote(0));
    }

    @Test
    void givenTheLongestShardRunningUnallocatedTheSeedsV41RestartsIt() {
        List<ShardView> shards = List.of(running(0, 30, UNALLOCATED), waiting(1, 5, UNALLOCATED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.V4_1);

        assertThat(p.chosen()).containsExactly(0);
        assertThat(p.moves()).containsExactly(new Restart(0));
    }

    @Test
    void givenAShardRunningUnallocatedThatIsNotChosenItKeepsRunningOnIdleGpusWithoutAMove() {
        List<ShardView> shards = List.of(running(0, 3, UNALLOCATED), unqueued(1, 30));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(1);
        assertThat(p.moves()).containsExactly(new Queue(1, PROTECTED));
    }

    @Test
    void givenUnqueuedShardsEachIsQueuedUnderTheTierItGets() {
        List<ShardView> shards = List.of(unqueued(0, 1), unqueued(1, 9), unqueued(2, 4), unqueued(3, 2));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT);

        assertThat(p.moves()).containsExactly(new Queue(0, UNALLOCATED), new Queue(1, PROTECTED),
                new Queue(2, UNALLOCATED), new Queue(3, UNALLOCATED));
    }

    @Test
    void givenSlotsOf8GpusA4GpuShardThatDoesNotFitIsSkippedAndALaterSmallerShardTakesTheRest() {
        // longest first: 30h on 6 GPUs takes 6; 20h on 4 GPUs would make 10; 10h on 2 GPUs makes 8
        List<ShardView> shards = List.of(shard(0, 6, 30, ShardPhase.UNQUEUED, UNALLOCATED),
                shard(1, 4, 20, ShardPhase.UNQUEUED, UNALLOCATED), shard(2, 2, 10, ShardPhase.UNQUEUED, UNALLOCATED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.gpus(8), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(0, 2);
        assertThat(p.moves()).containsExactly(new Queue(0, PROTECTED), new Queue(1, UNALLOCATED), new Queue(2, PROTECTED));
    }

    @Test
    void givenSlotsOf8GpusTheGpusOfShardsRunningProtectedCountAgainstThem() {
        List<ShardView> shards = List.of(shard(0, 4, 1, ShardPhase.RUNNING, PROTECTED),
                shard(1, 6, 30, ShardPhase.WAITING, UNALLOCATED), shard(2, 4, 5, ShardPhase.WAITING, UNALLOCATED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.gpus(8), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(2);
        assertThat(p.moves()).containsExactly(new Retier(2, PROTECTED));
    }

    @Test
    void givenAllProtectedEveryLiveShardIsProtectedWhateverTheDeclaredSlots() {
        List<ShardView> shards = List.of(unqueued(0, 3), waiting(1, 2, UNALLOCATED), running(2, 1, UNALLOCATED),
                running(3, 9, PROTECTED), waiting(4, 8, PROTECTED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALL_PROTECTED);

        // submission order among the candidates; the running protected shard holds its slot without a move
        assertThat(p.chosen()).containsExactly(0, 1, 2, 4);
        assertThat(p.moves()).containsExactly(new Queue(0, PROTECTED), new Retier(1, PROTECTED), new Promote(2));
    }

    @Test
    void givenAllUnallocatedNoShardIsProtectedButOneRunningProtectedIsNotTakenBack() {
        List<ShardView> shards = List.of(unqueued(0, 3), waiting(1, 2, PROTECTED), running(2, 1, UNALLOCATED),
                running(3, 9, PROTECTED));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(3), CampaignStrategy.ALL_UNALLOCATED);

        assertThat(p.chosen()).isEmpty();
        assertThat(p.moves()).containsExactly(new Queue(0, UNALLOCATED), new Retier(1, UNALLOCATED));
    }

    @Test
    void givenDoneAndBrakedShardsTheyGetNoMoveAndHoldNoSlot() {
        ShardView done = new ShardView(0, null, 1, 10, 10, 10 * H, ShardPhase.DONE, PROTECTED);
        ShardView braked = shard(1, 1, 100, ShardPhase.BRAKED, UNALLOCATED);
        ShardView brakedProtected = shard(2, 1, 90, ShardPhase.BRAKED, PROTECTED);
        List<ShardView> shards = List.of(done, braked, brakedProtected, unqueued(3, 1));

        SlotPlanner.Plan p = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT);

        assertThat(p.chosen()).containsExactly(3);
        assertThat(p.moves()).containsExactly(new Queue(3, PROTECTED));
        assertThat(plan(List.of(done, braked), ProtectedSlots.shards(1), CampaignStrategy.ALL_PROTECTED).moves()).isEmpty();
    }

    @Test
    void givenShardsOfEqualRemainingWorkTheLowestIndexesGetTheSlotsWhateverTheInputOrder() {
        List<ShardView> shards = new ArrayList<>(List.of(unqueued(0, 10), unqueued(1, 10), unqueued(2, 10),
                unqueued(3, 10)));
        SlotPlanner.Plan first = plan(shards, ProtectedSlots.shards(2), CampaignStrategy.ALLOT);
        assertThat(first.chosen()).containsExactly(0, 1);

        Collections.reverse(shards);
        SlotPlanner.Plan reversed = plan(shards, ProtectedSlots.shards(2), CampaignStrategy.ALLOT);

        assertThat(reversed).isEqualTo(first);
        assertThat(reversed.moves()).extracting(CampaignMove::shard).containsExactly(0, 1, 2, 3);
    }

    @Test
    void givenEstimatesFromTheDeclaredRateTheLongestShardIsTheOneWithMostUnitsLeft() {
        List<ShardView> shards = List.of(new ShardView(0, null, 1, 100, 0, 0, ShardPhase.UNQUEUED, UNALLOCATED),
                new ShardView(1, null, 1, 300, 0, 0, ShardPhase.UNQUEUED, UNALLOCATED));

        SlotPlanner.Plan p = SlotPlanner.plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT, 36);

        assertThat(p.chosen()).containsExactly(1);
        assertThat(p.estimates().get(1)).isEqualTo(new RateEstimator.Estimate(36.0, 300 * 36, RateEstimator.Source.DECLARED));
    }

    @Test
    void underAllotTheLiveShardsStandLongestRemainingWorkFirstInTheQueue_underTheSeedsInSubmissionOrder() {
        List<ShardView> shards = List.of(waiting(0, 6, UNALLOCATED), running(1, 30, PROTECTED),
                Shards.shard(2, 1, 12, ShardPhase.DONE, UNALLOCATED), waiting(3, 20, UNALLOCATED),
                Shards.shard(4, 1, 40, ShardPhase.BRAKED, UNALLOCATED));

        SlotPlanner.Plan allot = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.ALLOT);
        SlotPlanner.Plan v41 = plan(shards, ProtectedSlots.shards(1), CampaignStrategy.V4_1);

        assertThat(SlotPlanner.queueOrder(shards, allot, CampaignStrategy.ALLOT)).containsExactly(1, 3, 0);
        assertThat(SlotPlanner.queueOrder(shards, v41, CampaignStrategy.V4_1)).isEmpty();
    }
}
