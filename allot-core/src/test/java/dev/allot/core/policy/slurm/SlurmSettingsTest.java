package dev.allot.core.policy.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SlurmSettingsTest {

    private static SlurmPolicy create(Map<String, String> given) {
        return (SlurmPolicy) SlurmPolicy.FACTORY.create(Settings.parse(SlurmPolicy.FACTORY.settings(), given, "test"));
    }

    @Test
    void theDefaultsAreSlurmsOrItsConfigurationExample() {
        SlurmPolicy.Config c = SlurmPolicy.withDefaults().config();
        assertThat(c.weightFairshare()).isEqualTo(10_000);
        assertThat(c.weightAge()).isEqualTo(1_000);
        assertThat(c.weightQos()).isEqualTo(10_000);
        assertThat(c.maxAge()).isEqualTo(Duration.ofDays(7));
        assertThat(c.decayHalfLife()).isEqualTo(Duration.ofDays(7));
        assertThat(c.calcPeriod()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.preemptibleUsageFactor()).isEqualTo(1.0);
        assertThat(c.timeLimitFactor()).isEqualTo(1.0);
        assertThat(c.backfillMaxJobs()).isEqualTo(500);
        assertThat(c.preemptExemptTime()).isZero();
        assertThat(c.graceTime()).isZero();
    }

    @Test
    void everySettingSaysWhatItIs() {
        for (SettingSpec s : SlurmPolicy.FACTORY.settings()) {
            assertThat(s.description()).as(s.key()).hasSizeGreaterThan(40);
        }
        assertThat(new PolicyRegistry().register(SlurmPolicy.FACTORY).names()).containsExactly("slurm");
        assertThat(PolicyRegistry.standard().names()).containsExactly("allocation", "legacy", "slurm", "kueue");
    }

    @Test
    void impossibleValuesAreRejectedWithTheReason() {
        assertThatThrownBy(() -> create(Map.of("time-limit-factor", "0.5")))
                .hasMessageContaining("time-limit-factor must be a number >= 1");
        assertThatThrownBy(() -> create(Map.of("calc-period", "0s"))).hasMessageContaining("calc-period must be positive");
        assertThatThrownBy(() -> create(Map.of("max-age", "0"))).hasMessageContaining("max-age must be positive");
        assertThatThrownBy(() -> create(Map.of("weight-age", "-1"))).hasMessageContaining("weight-age must be a whole number >= 0");
        assertThatThrownBy(() -> create(Map.of("preemptible-usage-factor", "-0.5"))).hasMessageContaining("must be a number >= 0");
        assertThat(create(Map.of("grace-time", "90s", "preempt-exempt-time", "10m")).config().graceTime())
                .isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void numbersBeyondAnyValueOrOutOfRangeAreSaidWithTheSettingsRange() {
        // '1e400' said only 'expected a finite number', and a negative weight 'weights must not be negative'
        assertThatThrownBy(() -> create(Map.of("time-limit-factor", "1e400"))).hasMessage("test: setting"
                + " 'time-limit-factor': expected a finite number >= 1 (jobs are never killed at their limit), got 1e400"
                + " (beyond the largest number, about 1.8e308)");
        assertThatThrownBy(() -> create(Map.of("preemptible-usage-factor", "-1e400"))).hasMessage("test: setting"
                + " 'preemptible-usage-factor': expected a finite number >= 0, got -1e400 (beyond the largest number,"
                + " about 1.8e308)");
        assertThatThrownBy(() -> create(Map.of("weight-age", "1e30"))).hasMessage("test: setting 'weight-age':"
                + " expected a whole number >= 0, got 1e30 (beyond the largest whole number, 9,223,372,036,854,775,807)");
        assertThatThrownBy(() -> create(Map.of("weight-age", "-1")))
                .hasMessage("weight-age must be a whole number >= 0, got -1");
        assertThatThrownBy(() -> create(Map.of("preemptible-usage-factor", "-0.5")))
                .hasMessage("preemptible-usage-factor must be a number >= 0, got -0.5");
        assertThatThrownBy(() -> create(Map.of("time-limit-factor", "0.5"))).hasMessage("time-limit-factor must be a"
                + " number >= 1 (jobs are never killed at their limit), got 0.5");
        assertThatThrownBy(() -> create(Map.of("backfill-max-jobs", "-3")))
                .hasMessage("backfill-max-jobs must be a whole number >= 0 (0: no backfill), got -3");
    }

    @Test
    void timeLimitsAreTheDurationTimesTheFactorInWholeMinutesAsSlurmKeepsThem() {
        SlurmPolicy p = SlurmPolicy.withDefaults();
        assertThat(p.timeLimitSeconds(1)).isEqualTo(60);
        assertThat(p.timeLimitSeconds(25)).isEqualTo(60);
        assertThat(p.timeLimitSeconds(60)).isEqualTo(60);
        assertThat(p.timeLimitSeconds(61)).isEqualTo(120);
        assertThat(p.timeLimitSeconds(4 * 3600)).isEqualTo(4 * 3600);
        SlurmPolicy twice = create(Map.of("time-limit-factor", "1.5"));
        assertThat(twice.timeLimitSeconds(40)).isEqualTo(60); // 60 s
        assertThat(twice.timeLimitSeconds(41)).isEqualTo(120); // 61.5 s
    }

    @Test
    void factorsInReasonsHaveThreeDecimals() {
        assertThat(MultifactorPriority.thousandths(2.0 / 3)).isEqualTo("0.667");
        assertThat(MultifactorPriority.thousandths(1.0)).isEqualTo("1.000");
        assertThat(MultifactorPriority.thousandths(0.05)).isEqualTo("0.050");
    }
}
