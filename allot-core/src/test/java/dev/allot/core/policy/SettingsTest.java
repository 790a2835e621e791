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
}
