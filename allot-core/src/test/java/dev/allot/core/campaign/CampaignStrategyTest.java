package dev.allot.core.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The five strategies by name, and the protected slots each uses of what the campaign declared. */
class CampaignStrategyTest {
    @Test
    void theFiveStrategiesAreFoundByNameAllotsFirst() {
        assertThat(CampaignStrategy.names()).containsExactly("allot", "v4", "v4.1", "all-protected", "all-unallocated");
        assertThat(CampaignStrategy.all()).first().isEqualTo(CampaignStrategy.ALLOT);
        assertThat(CampaignStrategy.named("v4.1")).contains(CampaignStrategy.V4_1);
        assertThat(CampaignStrategy.named("lpt")).isEmpty();
    }

    @Test
    void allotParksTheLongestFirstAndPromotesInPlaceWhereTheSeedsVersionsRestart() {
        assertThat(CampaignStrategy.ALLOT.parking()).isEqualTo(ParkingOrder.LPT);
        assertThat(CampaignStrategy.ALLOT.moves()).isEqualTo(CampaignStrategy.MoveMode.IN_PLACE);
        assertThat(CampaignStrategy.V4.parking()).isEqualTo(ParkingOrder.FIFO);
        assertThat(CampaignStrategy.V4.moves()).isEqualTo(CampaignStrategy.MoveMode.RESTART);
        assertThat(CampaignStrategy.V4_1.parking()).isEqualTo(ParkingOrder.LPT);
        assertThat(CampaignStrategy.V4_1.moves()).isEqualTo(CampaignStrategy.MoveMode.RESTART);
    }

    @Test
    void givenTwoDeclaredSlotsEachStrategyUsesItsOwnNumber() {
        ProtectedSlots two = ProtectedSlots.shards(2);
        assertThat(CampaignStrategy.ALLOT.slots().apply(two)).isEqualTo(two);
        assertThat(CampaignStrategy.V4.slots().apply(two)).isEqualTo(two);
        assertThat(CampaignStrategy.ALL_PROTECTED.slots().apply(two)).isEqualTo(ProtectedSlots.unlimited());
        assertThat(CampaignStrategy.ALL_UNALLOCATED.slots().apply(two)).isEqualTo(ProtectedSlots.none());
    }

    @Test
    void protectedSlotsCountShardsOrGpusAndDescribeThemselves() {
        assertThat(ProtectedSlots.shards(2).fits(1, 40, 8)).isTrue();
        assertThat(ProtectedSlots.shards(2).fits(2, 0, 1)).isFalse();
        assertThat(ProtectedSlots.gpus(16).fits(5, 8, 8)).isTrue();
        assertThat(ProtectedSlots.gpus(16).fits(5, 9, 8)).isFalse();
        assertThat(ProtectedSlots.none().fits(0, 0, 1)).isFalse();
        assertThat(ProtectedSlots.unlimited().fits(1_000, 1_000_000, 8)).isTrue();

        assertThat(ProtectedSlots.shards(1).describe()).isEqualTo("1 shard");
        assertThat(ProtectedSlots.shards(2).describe()).isEqualTo("2 shards");
        assertThat(ProtectedSlots.gpus(16).describe()).isEqualTo("16 GPUs");
        assertThat(new ProtectedSlots(2, 16).describe()).isEqualTo("2 shards, 16 GPUs");
        assertThat(ProtectedSlots.none().describe()).isEqualTo("none");
        assertThat(ProtectedSlots.gpus(0).describe()).isEqualTo("none");
        assertThat(ProtectedSlots.unlimited().describe()).isEqualTo("all");
    }

    @Test
    void negativeProtectedSlotsAreRefused() {
        assertThatThrownBy(() -> ProtectedSlots.shards(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("protected slots must be at least 0, got -1 shards and " + ProtectedSlots.UNLIMITED + " GPUs");
    }

    @Test
    void labelsAreLowerCaseNames() {
        assertThat(ShardTier.UNALLOCATED.label()).isEqualTo("unallocated");
        assertThat(ShardPhase.BRAKED.label()).isEqualTo("braked");
        assertThat(ParkingOrder.LPT.label()).isEqualTo("lpt");
        assertThat(ShardPhase.WAITING.live()).isTrue();
        assertThat(ShardPhase.DONE.live()).isFalse();
        assertThat(ShardPhase.BRAKED.live()).isFalse();
    }
}
