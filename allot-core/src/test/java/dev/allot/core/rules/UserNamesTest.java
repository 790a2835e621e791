package dev.allot.core.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one rule for the name of a user made from now on: what a Unix account name is made of, and '@'. */
class UserNamesTest {
    @ParameterizedTest
    @ValueSource(strings = {"alice smith", "alice ", " alice", "al\tice", "al\nice", "al\u0000ice", "smith,j", "x/y",
            "-rf", ".hidden", "@lab", "josé", "a:b", ""})
    void aNameWithBlanksControlCharactersOrOtherSignsIsRefusedSayingWhatIsExpected(String name) {
        Violation v = UserNames.check("name", name).orElseThrow();

        assertThat(v.field()).isEqualTo("name");
        assertThat(v.expected()).isEqualTo(UserNames.EXPECTED);
        assertThat(v.got()).doesNotContain("\n", "\t", "\u0000");
    }

    @Test
    void theNamesOfLoginsAndOfMappedPeopleAreAccepted() {
        for (String name : new String[] {"alice", "smith.j", "ana@lab.org", "svc_ci-2", "_build", "42", "Mia",
                "x".repeat(UserNames.MAX_NAME)}) {
            assertThat(UserNames.check("name", name)).as(name).isEmpty();
        }
        assertThat(UserNames.check("name", "x".repeat(UserNames.MAX_NAME + 1))).isPresent();
        assertThat(UserNames.check("name", "alice smith").orElseThrow().got()).isEqualTo("'alice smith'");
    }
}
