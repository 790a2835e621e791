package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.legacy.LegacyPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Mistakes in {@code policy.yaml}: keys come from the registry, settings are checked by each policy's specs. */
class PolicyYamlTest {
    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void folder() {
        dir = Folders.copy("basic", tmp);
    }

    private InputException policy(String text) {
        Folders.write(dir, "policy.yaml", text);
        return Folders.error(dir);
    }

    @Test
    void unknownTopLevelKeyListsSharedKeysAndPolicies() {
        assertThat(policy("lookbak: 3d\n").getMessage()).isEqualTo("policy.yaml:1:1: field 'lookbak': unknown key;"
                + " valid keys here: lookback, max-min-runtime, usage-bucket, allocation, legacy, slurm, kueue");
    }

    @Test
    void theValidSectionsComeFromTheRegistry() {
        Folders.write(dir, "policy.yaml", "allocation:\n  reservation: false\n");
        PolicyRegistry legacyOnly = new PolicyRegistry().register(LegacyPolicy.FACTORY);
        assertThatThrownBy(() -> ScenarioReader.read(dir, false, legacyOnly))
                .isInstanceOf(InputException.class)
                .hasMessage("policy.yaml:1:1: field 'allocation': unknown key; valid keys here: lookback,"
                        + " max-min-runtime, usage-bucket, legacy");
    }

    @Test
    void unknownSettingIsLocatedAtItsKey() {
        assertThat(policy("lookback: 3d\nallocation:\n  reservation: true\n  reservaton: false\n").getMessage())
                .isEqualTo("policy.yaml:4:3: field 'allocation': unknown setting 'reservaton'; valid settings:"
                        + " burst-reserve, burst-short-protection, fairshare-recheck, max-reservations, min-turn, placement,"
                        + " ranking, reclaim-margin, reservation, shortcuts, starvation-limit, waste-limit");
    }

    @Test
    void badSettingValueIsLocatedAtTheValue() {
        assertThat(policy("allocation:\n  reservation: maybe\n").getMessage()).isEqualTo(
                "policy.yaml:2:16: field 'allocation': setting 'reservation': cannot read 'maybe' as true or false");
        assertThat(policy("legacy:\n  non-preemptible-min-runtime: soon\n").getMessage()).startsWith(
                "policy.yaml:2:32: field 'legacy': setting 'non-preemptible-min-runtime': cannot read 'soon' as a"
                        + " duration");
    }

    @Test
    void aValueThatReadsButIsOutOfRangeIsLocatedAtTheValueToo() {
        // the policy's own checks (run when it is made) are met when the file is read, with the file's line
        assertThat(policy("lookback: 3d\nallocation:\n  reclaim-margin: -1\n").getMessage()).isEqualTo(
                "policy.yaml:3:19: field 'allocation': setting 'reclaim-margin': must be a number >= 0, got -1");
        assertThat(policy("allocation:\n  reservation: true\n  max-reservations: -3\n").getMessage()).isEqualTo(
                "policy.yaml:3:21: field 'allocation': setting 'max-reservations': must be 1 to 1000, got -3");
    }

    @Test
    void aNumberBeyondAnyNumberSaysWhyAndTheRangeOfTheSetting() {
        // 'cannot read '1e400' as a number', which it is
        assertThat(policy("allocation:\n  reclaim-margin: 1e400\n").getMessage()).isEqualTo("policy.yaml:2:19:"
                + " field 'allocation': setting 'reclaim-margin': expected a finite number >= 0, got 1e400 (beyond the"
                + " largest number, about 1.8e308)");
        assertThat(policy("allocation:\n  max-reservations: \"1e400\"\n").getMessage()).isEqualTo("policy.yaml:2:21:"
                + " field 'allocation': setting 'max-reservations': expected a whole number from 1 to 1000, got 1e400"
                + " (beyond the largest number, about 1.8e308)");
        // beyond an int but not a long: it was clamped and said as 'got 2147483647'
        assertThat(policy("allocation:\n  max-reservations: 99999999999\n").getMessage()).isEqualTo("policy.yaml:2:21:"
                + " field 'allocation': setting 'max-reservations': must be 1 to 1000, got 99999999999");
    }

    @Test
    void wrongTypesInSections() {
        assertThat(policy("legacy: 5\n").getMessage()).isEqualTo(
                "policy.yaml:1:9: field 'legacy': expected a mapping of setting names to values, got '5'");
        assertThat(policy("allocation:\n  reservation: [true]\n").getMessage()).isEqualTo(
                "policy.yaml:2:16: field 'reservation': expected a value for the setting, got a list");
        assertThat(policy("- lookback: 3d\n").getMessage()).startsWith(
                "policy.yaml:1:1: expected a mapping with keys lookback, max-min-runtime, usage-bucket, allocation,"
                        + " legacy, slurm, kueue, got a list");
    }

    @Test
    void aSharedDurationWrittenWithoutAValueIsRefusedNotTakenAsTheDefault() {
        assertThat(policy("lookback:\n").getMessage())
                .isEqualTo("policy.yaml:1:10: field 'lookback': expected a value, got nothing");
        assertThat(policy("lookback: 3d\nmax-min-runtime: ~\n").getMessage())
                .isEqualTo("policy.yaml:2:18: field 'max-min-runtime': expected a value, got nothing");
    }

    @Test
    void badSharedDurations() {
        assertThat(policy("lookback: soon\n").getMessage()).isEqualTo("policy.yaml:1:11: field 'lookback': expected"
                + " a duration such as 90s, 15m, 8h, 2d, 1h30m or plain seconds, got 'soon'");
        assertThat(policy("max-min-runtime: {h: 8}\n").getMessage()).isEqualTo("policy.yaml:1:18: field"
                + " 'max-min-runtime': expected a duration such as 90s, 15m, 8h, 2d, 1h30m or plain seconds, got a"
                + " mapping");
    }

    @Test
    void schedulerConfigComplaintsAreLocatedAtTheKeyTheyName() {
        assertThat(policy("lookback: 2h\nusage-bucket: 3h\n").getMessage()).isEqualTo("policy.yaml:2:15: field"
                + " 'usage-bucket': usage-bucket must be positive and at most the lookback (2h), got 3h");
        assertThat(policy("max-min-runtime: 1h\nlookback: 0s\n").getMessage())
                .isEqualTo("policy.yaml:2:11: field 'lookback': lookback must be positive, got 0s");
    }

    @Test
    void aLookbackOfMoreBucketsThanTheWindowHoldsIsRefusedNotAFaultWhenTheWindowIsMade() {
        // 20,000 days in hours: 480,000 buckets per allocation, more than a window holds (a longer lookback than
        // about 68 years is refused as a duration first)
        assertThat(policy("lookback: 20000d\n").getMessage()).isEqualTo("policy.yaml:1:11: field 'lookback':"
                + " lookback 20000d in usage-bucket 1h steps is 480,000 buckets; at most 100,000 (shorten the"
                + " lookback or widen usage-bucket)");
        assertThat(policy("lookback: 100000000d\n").getMessage()).isEqualTo("policy.yaml:1:11: field 'lookback':"
                + " lookback must be a duration of at most 24855d3h14m7s (2,147,483,647 seconds, about 68 years), got"
                + " 100000000d");
        Folders.write(dir, "policy.yaml", "lookback: 20000d\nusage-bucket: 1d\n"); // 20,000 buckets
        assertThat(Folders.read(dir).policyConfig().scheduler().lookback()).isEqualTo(java.time.Duration.ofDays(20000));
    }

    @Test
    void syntaxError() {
        InputException e = policy("allocation:\n  reservation: \"false\n");
        assertThat(e.file()).isEqualTo("policy.yaml");
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.problem()).startsWith("YAML syntax error: while scanning a quoted scalar");
    }

    @Test
    void theParsersLimitsAreSaidWithoutItsJavaNames() {
        // it said "... exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)"
        assertThat(ParserMessages.plain("Document nesting depth (1001) exceeds the maximum allowed (1000, from"
                + " `StreamReadConstraints.getMaxNestingDepth()`)"))
                .isEqualTo("Document nesting depth (1001) exceeds the maximum allowed (1000)");
        assertThat(ParserMessages.plain("Unexpected character ('b' (code 98))")).isEqualTo("Unexpected character ('b'"
                + " (code 98))");
        assertThat(ParserMessages.plain(null)).isNull();
    }
}
