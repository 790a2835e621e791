package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SeedsTest {

    @Test
    void aLoneNumberIsHowManySeedsFromOne_inSweepAndCampaignSimulateAlike() {
        // campaign simulate --seeds 5 ran seed 5 alone where sweep --seeds 5 ran seeds 1 to 5
        assertThat(Seeds.parse("5")).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(Seeds.parse("1")).containsExactly(1L);
    }

    @Test
    void rangesAndListsNameTheirSeedsInTheOrderGiven() {
        assertThat(Seeds.parse("7-7")).containsExactly(7L);
        assertThat(Seeds.parse("0-2")).containsExactly(0L, 1L, 2L);
        assertThat(Seeds.parse("3,1,9")).containsExactly(3L, 1L, 9L);
        assertThat(Seeds.parse(" 9, 2-3 ")).containsExactly(9L, 2L, 3L);
    }

    @Test
    void badSeedsAreRefusedNamingTheTextAndTheGrammar() {
        assertThatThrownBy(() -> Seeds.parse("3-1")).hasMessage("--seeds: expected N (seeds 1 to N), A-B (A <= B)"
                + " or a comma-separated list of seeds and ranges (one seed K: K-K), whole numbers >= 0, got '3-1'");
        assertThatThrownBy(() -> Seeds.parse("five")).hasMessageContaining("got 'five'");
        assertThatThrownBy(() -> Seeds.parse("1,,2")).hasMessageContaining("got '1,,2'");
        assertThatThrownBy(() -> Seeds.parse("-2")).hasMessageContaining("got '-2'");
        assertThatThrownBy(() -> Seeds.parse("0")).hasMessage("--seeds N runs seeds 1 to N and expects N >= 1, got 0"
                + " (one particular seed K: --seeds K-K)");
        assertThatThrownBy(() -> Seeds.parse("1-3,2")).hasMessage("--seeds names seed 2 twice: '1-3,2'");
    }

    @Test
    void moreSeedsThanTheLimitAreRefusedBeforeAnyListIsBuilt() {
        assertThatThrownBy(() -> Seeds.parse("99999999999")).hasMessage("--seeds expects at most 10,000 (each seed is a"
                + " generated scenario simulated once per setting and policy), got 99,999,999,999");
        assertThatThrownBy(() -> Seeds.parse("1-5000,6000-12000")).hasMessageContaining("got 11,001");
        assertThatThrownBy(() -> Seeds.parse("0-9223372036854775807")).hasMessageStartingWith("--seeds expects at"
                + " most 10,000");
        assertThat(Seeds.parse("1-10000")).hasSize(10_000);
    }

    @Test
    void aRangeOneSeedPastTheLimitIsRefusedAndTheMessageCountsItsSeedsExactly() {
        // 1-10001 (10,001 seeds) passed the limit, and 1-20000 was refused as 'got 19,999': the range was counted
        // as B - A once it reached the limit
        assertThatThrownBy(() -> Seeds.parse("1-10001")).hasMessageEndingWith("got 10,001");
        assertThatThrownBy(() -> Seeds.parse("1-20000")).hasMessageEndingWith("got 20,000");
        assertThatThrownBy(() -> Seeds.parse("20000,1-10000")).hasMessageEndingWith("got 10,001");
        assertThatThrownBy(() -> Seeds.parse("0-9223372036854775807")).hasMessageEndingWith(
                "got 9,223,372,036,854,775,808");
    }
}
