package dev.allot.core.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.campaign.RateEstimator.Estimate;
import dev.allot.core.campaign.RateEstimator.Source;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A shard's remaining time is its units left times the most specific rate measured so far: its own, else its
 * family's (pooled over the family), else the campaign's (pooled over every shard), else the declared one, else one
 * second per unit.
 */
class RateEstimatorTest {
    private static final double DECLARED = 50;

    private static ShardView measured(int index, String family, long total, long done, long seconds) {
        return new ShardView(index, family, 1, total, done, seconds, ShardPhase.RUNNING, ShardTier.UNALLOCATED);
    }

    private static ShardView fresh(int index, String family, long total) {
        return new ShardView(index, family, 1, total, 0, 0, ShardPhase.WAITING, ShardTier.UNALLOCATED);
    }

    /**
     * Family "a": shard 0 at 100 s/unit (10 units in 1,000s) and shard 1 at 300 s/unit (30 units in 9,000s); shard 2
     * of family "a" has reported nothing; shard 3 has no family, at 500 s/unit (5 units in 2,500s); shard 4 of family
     * "b" (nothing measured in "b") and shard 5 without a family have reported nothing.
     */
    private static final List<ShardView> MIXED = List.of(
            measured(0, "a", 100, 10, 1_000),
            measured(1, "a", 50, 30, 9_000),
            fresh(2, "a", 40),
            measured(3, null, 20, 5, 2_500),
            fresh(4, "b", 10),
            fresh(5, null, 7));

    @Test
    void givenAShardThatReportedUnitsItsOwnRateBeatsItsFamilysTheCampaignsAndTheDeclaredOne() {
        Map<Integer, Estimate> e = RateEstimator.estimate(MIXED, DECLARED);

        assertThat(e.get(0)).isEqualTo(new Estimate(100.0, 90 * 100, Source.SHARD));
        assertThat(e.get(1)).isEqualTo(new Estimate(300.0, 20 * 300, Source.SHARD));
        assertThat(e.get(3)).isEqualTo(new Estimate(500.0, 15 * 500, Source.SHARD));
    }

    @Test
    void givenAShardThatReportedNothingItsFamilysRatePooledOverTheFamilyStandsIn() {
        Map<Integer, Estimate> e = RateEstimator.estimate(MIXED, DECLARED);

        // pooled: 10,000s over 40 units = 250 s/unit (not the mean of the shards' rates, 200)
        assertThat(e.get(2).source()).isEqualTo(Source.FAMILY);
        assertThat(e.get(2).secondsPerUnit()).isEqualTo(250.0);
        assertThat(e.get(2).remainingSeconds()).isEqualTo(40 * 250);
    }

    @Test
    void givenAFamilyWithNothingMeasuredTheCampaignsRatePooledOverEveryShardStandsIn() {
        Map<Integer, Estimate> e = RateEstimator.estimate(MIXED, DECLARED);

        // every measured shard, with a family or not: 12,500s over 45 units
        double campaign = 12_500.0 / 45;
        assertThat(e.get(4).source()).isEqualTo(Source.CAMPAIGN);
        assertThat(e.get(4).secondsPerUnit()).isCloseTo(campaign, within(1e-9));
        assertThat(e.get(4).remainingSeconds()).isEqualTo(Math.round(campaign * 10));
        // a shard without a family goes straight to the campaign's rate
        assertThat(e.get(5).source()).isEqualTo(Source.CAMPAIGN);
        assertThat(e.get(5).remainingSeconds()).isEqualTo(Math.round(campaign * 7));
    }

    @Test
    void givenNothingMeasuredTheDeclaredRateStandsIn() {
        List<ShardView> shards = List.of(fresh(0, "a", 40), fresh(1, null, 12));

        Map<Integer, Estimate> e = RateEstimator.estimate(shards, 120);

        assertThat(e.get(0)).isEqualTo(new Estimate(120.0, 40 * 120, Source.DECLARED));
        assertThat(e.get(1)).isEqualTo(new Estimate(120.0, 12 * 120, Source.DECLARED));
    }

    @Test
    void givenNothingMeasuredNorDeclaredUnitsLeftStandInForSecondsSoShardsOfOneSpeedStillOrderRightly() {
        List<ShardView> shards = List.of(fresh(0, "a", 40), measured(1, "a", 30, 0, 0));

        Map<Integer, Estimate> e = RateEstimator.estimate(shards, 0);

        assertThat(e.get(0)).isEqualTo(new Estimate(1.0, 40, Source.NONE));
        assertThat(e.get(1)).isEqualTo(new Estimate(1.0, 30, Source.NONE));
        assertThat(Source.NONE.label()).isEqualTo("none");
    }

    @Test
    void givenAShardThatRanWithoutReportingAUnitItHasNoRateOfItsOwnAndTeachesNobodyOne() {
        // shard 0 ran 5,000s but reported no unit; shard 1 reported 4 units but no running time (both say nothing)
        List<ShardView> shards = List.of(measured(0, "a", 10, 0, 5_000), measured(1, "a", 10, 4, 0),
                measured(2, "b", 10, 2, 600));

        Map<Integer, Estimate> e = RateEstimator.estimate(shards, DECLARED);

        // family "a" has no measurement: both fall to the campaign's rate, which only shard 2 (300 s/unit) makes
        assertThat(e.get(0)).isEqualTo(new Estimate(300.0, 10 * 300, Source.CAMPAIGN));
        assertThat(e.get(1)).isEqualTo(new Estimate(300.0, 6 * 300, Source.CAMPAIGN));
    }

    @Test
    void givenADoneShardItsRateStillTeachesItsFamilyAndItHasNothingLeft() {
        ShardView done = new ShardView(0, "a", 1, 20, 20, 4_000, ShardPhase.DONE, ShardTier.PROTECTED);
        ShardView braked = new ShardView(1, "a", 1, 20, 0, 0, ShardPhase.BRAKED, ShardTier.UNALLOCATED);

        Map<Integer, Estimate> e = RateEstimator.estimate(List.of(done, braked), DECLARED);

        assertThat(e.get(0)).isEqualTo(new Estimate(200.0, 0, Source.SHARD));
        assertThat(e.get(1)).isEqualTo(new Estimate(200.0, 20 * 200, Source.FAMILY));
    }

    @Test
    void givenAFractionalRateTheRemainingSecondsAreTheRateTimesTheUnitsLeftRounded() {
        // 1,000s for 3 units: 333.3 s/unit; 2 units left is 666.7s
        Map<Integer, Estimate> e = RateEstimator.estimate(List.of(measured(0, null, 5, 3, 1_000)), 0);

        assertThat(e.get(0).remainingSeconds()).isEqualTo(667);
    }

    @Test
    void givenAnEstimateForEveryShardTheMapHasOneEntryPerIndex() {
        assertThat(RateEstimator.estimate(MIXED, DECLARED)).containsOnlyKeys(0, 1, 2, 3, 4, 5);
        assertThat(RateEstimator.estimate(List.of(), DECLARED)).isEmpty();
    }

    @Test
    void aShardViewRefusesUnitsThatDoNotAddUpAndNamesTheShard() {
        assertThatThrownBy(() -> new ShardView(7, null, 1, 10, 11, 0, ShardPhase.WAITING, ShardTier.UNALLOCATED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("shard 7: units done 11 of 10; expected 0 <= done <= total and total >= 1");
        assertThatThrownBy(() -> new ShardView(7, null, 1, 0, 0, 0, ShardPhase.WAITING, ShardTier.UNALLOCATED))
                .hasMessageContaining("shard 7: units done 0 of 0");
        assertThatThrownBy(() -> new ShardView(3, null, 0, 10, 0, 0, ShardPhase.WAITING, ShardTier.UNALLOCATED))
                .hasMessage("shard 3: gpus 0, measured seconds 0; expected gpus >= 1 and seconds >= 0");
        assertThatThrownBy(() -> new ShardView(3, null, 1, 10, 0, -1, ShardPhase.WAITING, ShardTier.UNALLOCATED))
                .hasMessageContaining("measured seconds -1");
        assertThatThrownBy(() -> new ShardView(3, null, 1, 10, 0, 0, null, ShardTier.UNALLOCATED))
                .hasMessage("phase");
    }
}
