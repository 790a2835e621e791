package dev.allot.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Settings parse text values, keep defaults, and name the valid keys when one is unknown. */
class SettingsTest {
    private static final List<SettingSpec> SPECS = List.of(
            SettingSpec.text("allocation-by", "user", "user or group"),
            SettingSpec.integer("seed", 1, "seed"));

    @Test
    void textValuesAreTrimmedAndDefaulted() {
        assertThat(Settings.defaults(SPECS).text("allocation-by")).isEqualTo("user");
        assertThat(Settings.parse(SPECS, Map.of("allocation-by", " group "), "here").text("allocation-by"))
                .isEqualTo("group");
    }

    @Test
    void emptyTextAndUnknownKeysAreErrors() {
        assertThatThrownBy(() -> Settings.parse(SPECS, Map.of("allocation-by", " "), "here"))
                .hasMessage("here: setting 'allocation-by': cannot read ' ' as non-empty text");
        assertThatThrownBy(() -> Settings.parse(SPECS, Map.of("by", "x"), "here"))
                .hasMessage("here: unknown setting 'by'; valid settings: allocation-by, seed");
    }

    @Test
    void aNumberBeyondItsTypeSaysWhyAndTheRange() {
        // '1e400' read "cannot read '1e400' as a number", which it is, without why or what would do
        List<SettingSpec> specs = List.of(SettingSpec.number("margin", 0.1, "m").withRange(">= 0"),
                SettingSpec.number("factor", 1, "f"), SettingSpec.integer("gangs", 2, "g").withRange("from 1 to 1000"),
                SettingSpec.integer("seed", 1, "s"));
        assertThatThrownBy(() -> Settings.parse(specs, Map.of("margin", "1e400"), "here")).hasMessage("here: setting"
                + " 'margin': expected a finite number >= 0, got 1e400 (beyond the largest number, about 1.8e308)");
        assertThatThrownBy(() -> Settings.parse(specs, Map.of("factor", "-1e400"), "here")).hasMessage("here:"
                + " setting 'factor': expected a finite number, got -1e400 (beyond the largest number, about 1.8e308)");
        assertThatThrownBy(() -> Settings.parse(specs, Map.of("factor", "NaN"), "here")).hasMessage("here: setting"
                + " 'factor': expected a finite number, got NaN (not a number)");
        assertThatThrownBy(() -> Settings.parse(specs, Map.of("gangs", "1e400"), "here")).hasMessage("here: setting"
                + " 'gangs': expected a whole number from 1 to 1000, got 1e400 (beyond the largest number, about"
                + " 1.8e308)");
        assertThatThrownBy(() -> Settings.parse(specs, Map.of("seed", "99999999999999999999"), "here"))
                .hasMessage("here: setting 'seed': expected a whole number of at most 9,223,372,036,854,775,807, got"
                        + " 99999999999999999999 (beyond the largest whole number, 9,223,372,036,854,775,807)");
        // not beyond: still not read as a whole number
        assertThatThrownBy(() -> Settings.parse(specs, Map.of("seed", "2.5"), "here"))
                .hasMessage("here: setting 'seed': cannot read '2.5' as a whole number");
    }

    @Test
    void valuesAreReportedInOneFormHoweverTheyWereWritten() {
        // '--set allocation.fairshare-recheck=300s' was echoed '300s' beside the defaults' '5m', 'ENTITLEMENT' as typed
        List<SettingSpec> specs = List.of(SettingSpec.duration("recheck", java.time.Duration.ofMinutes(5), "r"),
                SettingSpec.duration("turn", java.time.Duration.ofHours(1), "t"),
                SettingSpec.number("margin", 0.1, "m"), SettingSpec.bool("reservation", true, "b"),
                SettingSpec.choice("ranking", "entitlement", List.of("entitlement", "lookback"), "c"),
                SettingSpec.integer("seed", 1, "s"));
        Settings given = Settings.parse(specs, Map.of("recheck", "300s", "turn", " 90m", "margin", "0.10",
                "reservation", "yes", "ranking", "LOOKBACK", "seed", "007"), "here");
        assertThat(given.asText()).containsExactly(Map.entry("margin", "0.1"), Map.entry("ranking", "lookback"),
                Map.entry("recheck", "5m"), Map.entry("reservation", "true"), Map.entry("seed", "7"),
                Map.entry("turn", "1h30m"));
        assertThat(Settings.defaults(specs).asText()).containsEntry("recheck", "5m").containsEntry("margin", "0.1");
    }
}
