package dev.allot.core.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A cap is a brake, not a budget: a shard is held once its spending reached a cap, and runs again only when the cap
 * is raised above what it spent; asked again with the same numbers, the answer stays the same (no release by itself,
 * no loop of resubmissions).
 */
class ShardBrakesTest {
    private static final long H = 3600;
    private static final String ONLY_WHEN_RAISED = "; it runs again only when the cap is raised above what it spent";

    private static ShardBrakes shardCap(double gpuHours) {
        return new ShardBrakes(gpuHours, null, null, null, null);
    }

    @Test
    void givenAShardUnderItsGpuHourCapItRuns() {
        assertThat(shardCap(10).heldReason(9 * H + 3599, 0, 9 * H)).isNull();
    }

    @Test
    void givenAShardThatReachedItsGpuHourCapExactlyItIsHeldAndToldWhy() {
        assertThat(shardCap(10).heldReason(10 * H, 0, 10 * H))
                .isEqualTo("the shard used 10.0 GPU-hours, its cap is 10" + ONLY_WHEN_RAISED);
    }

    @Test
    void givenAShardHeldAfterOverrunningItsCapItIsReleasedOnlyWhenTheCapIsRaisedAboveWhatItSpent() {
        long spent = 12 * H; // its last attempt finished past the cap of 10
        assertThat(shardCap(10).heldReason(spent, 0, spent)).isNotNull();
        // asked again and again with the same numbers: still held, never released by itself
        for (int i = 0; i < 3; i++) {
            assertThat(shardCap(10).heldReason(spent, 0, spent)).isNotNull();
        }
        // raised to what it spent: still held; raised above: it runs
        assertThat(shardCap(12).heldReason(spent, 0, spent)).isEqualTo("the shard used 12.0 GPU-hours, its cap is 12"
                + ONLY_WHEN_RAISED);
        assertThat(shardCap(12.5).heldReason(spent, 0, spent)).isNull();
        // and once it has spent the new cap it is held again, saying the new cap
        assertThat(shardCap(12.5).heldReason(spent + H / 2, 0, spent + H / 2))
                .isEqualTo("the shard used 12.5 GPU-hours, its cap is 12.5" + ONLY_WHEN_RAISED);
    }

    @Test
    void givenARequeueCapOf2AShardMayGoBackToTheQueueTwiceButNotThreeTimes() {
        ShardBrakes b = new ShardBrakes(null, 2, null, null, null);

        assertThat(b.heldReason(0, 2, 0)).isNull();
        assertThat(b.heldReason(0, 3, 0)).isEqualTo("the shard went back to the queue 3 times, its cap is 2"
                + ONLY_WHEN_RAISED);
        assertThat(new ShardBrakes(null, 0, null, null, null).heldReason(0, 1, 0))
                .startsWith("the shard went back to the queue once, its cap is 0");
    }

    @Test
    void givenTheCampaignReachedItsGpuHourCapEveryShardIsHeldWhateverItSpentItself() {
        ShardBrakes b = new ShardBrakes(null, null, 100.0, null, null);

        assertThat(b.heldReason(0, 0, 99 * H)).isNull();
        assertThat(b.heldReason(0, 0, 100 * H)).isEqualTo("the campaign used 100.0 GPU-hours, its cap is 100"
                + ONLY_WHEN_RAISED);
    }

    @Test
    void givenACostCapTheCampaignIsHeldOnceItsGpuHoursAtThePriceReachIt() {
        ShardBrakes b = new ShardBrakes(null, null, null, 100.0, 2.5);

        assertThat(b.heldReason(0, 0, 39 * H)).isNull();
        assertThat(b.heldReason(0, 0, 40 * H)).isEqualTo("the campaign cost 100.00 at 2.5 per GPU-hour, its cap is 100"
                + ONLY_WHEN_RAISED);
    }

    @Test
    void givenSeveralCapsReachedEveryReasonIsGivenInOneSentence() {
        ShardBrakes b = new ShardBrakes(1.0, 0, 2.0, 10.0, 5.0);

        assertThat(b.heldReason(H, 1, 2 * H)).isEqualTo("the shard used 1.0 GPU-hours, its cap is 1; "
                + "the shard went back to the queue once, its cap is 0; "
                + "the campaign used 2.0 GPU-hours, its cap is 2; "
                + "the campaign cost 10.00 at 5 per GPU-hour, its cap is 10" + ONLY_WHEN_RAISED);
    }

    @Test
    void givenNoCapNothingIsEverHeld() {
        assertThat(ShardBrakes.NONE.heldReason(Long.MAX_VALUE / 2, Integer.MAX_VALUE, Long.MAX_VALUE / 2)).isNull();
        // a price alone caps nothing
        assertThat(new ShardBrakes(null, null, null, null, 3.0).heldReason(1_000 * H, 5, 1_000 * H)).isNull();
    }

    @Test
    void givenAZeroCapTheShardIsHeldBeforeItSpendsAnything() {
        assertThat(shardCap(0).heldReason(0, 0, 0)).startsWith("the shard used 0.0 GPU-hours, its cap is 0");
    }

    @Test
    void anInvalidCapIsRefusedNamingItsField() {
        assertThatThrownBy(() -> new ShardBrakes(-1.0, null, null, null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("shard-gpu-hours must be a finite number >= 0, got -1");
        assertThatThrownBy(() -> new ShardBrakes(null, -1, null, null, null))
                .hasMessage("shard-requeues must be at least 0, got -1");
        assertThatThrownBy(() -> new ShardBrakes(null, null, Double.NaN, null, null))
                .hasMessage("campaign-gpu-hours must be a finite number >= 0, got NaN");
        assertThatThrownBy(() -> new ShardBrakes(null, null, null, -5.0, 1.0))
                .hasMessage("campaign-cost must be a finite number >= 0, got -5");
        assertThatThrownBy(() -> new ShardBrakes(null, null, null, null, Double.POSITIVE_INFINITY))
                .hasMessage("price-per-gpu-hour must be a finite number >= 0, got Infinity");
        assertThatThrownBy(() -> new ShardBrakes(null, null, null, 100.0, null))
                .hasMessage("campaign-cost needs price-per-gpu-hour; give both or neither");
    }
}
