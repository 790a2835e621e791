package dev.allot.core.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one rule for allocation and node names, and the one rule for shares. */
class NamesAndSharesTest {
    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "a/b", "/", " lab", "lab ", "la\tb", "la\nb", "\u0000", "la\u007fb"})
    void aNameThatIsNotOneSegmentIsRefused(String name) {
        Violation v = Names.check("name", name).orElseThrow();

        assertThat(v.field()).isEqualTo("name");
        assertThat(v.expected()).isEqualTo(Names.NAME_EXPECTED);
        assertThat(v.got()).doesNotContain("\n", "\t", "\u0000");
    }

    @Test
    void ordinaryNamesAreAccepted() {
        for (String name : new String[] {"lab", "gpu-01", "n.1", "...", "a..b", "x".repeat(Names.MAX_NAME), "é"}) {
            assertThat(Names.check("name", name)).as(name).isEmpty();
        }
        assertThat(Names.check("name", "x".repeat(Names.MAX_NAME + 1))).isPresent();
    }

    @Test
    void aPathIsNamesJoinedBySlashes() {
        assertThat(Names.checkPath("path", "lab/nlp/pretrain")).isEmpty();
        for (String path : new String[] {"lab/../admin", "lab/./x", "..", "/lab", "lab/", "lab//nlp", "", " lab/x"}) {
            Violation v = Names.checkPath("path", path).orElseThrow();
            assertThat(v.expected()).as(path).isEqualTo(Names.PATH_EXPECTED);
        }
        assertThat(Names.checkPath("path", "").orElseThrow().got()).isEqualTo("an empty name");
    }

    @Test
    void aShareIsAFiniteNumberFromZero() {
        assertThat(Shares.check(0)).isEmpty();
        assertThat(Shares.check(2.5)).isEmpty();
        for (double bad : new double[] {-1, -0.001, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            Violation v = Shares.check(bad).orElseThrow();
            assertThat(v.field()).isEqualTo("share");
            assertThat(v.expected()).isEqualTo(Shares.EXPECTED);
        }
        assertThat(Shares.check(-2).orElseThrow().got()).isEqualTo("-2");
    }

    @Test
    void aShareTypedTooLargeForADoubleIsNamedAsTypedNotAsInfinity() {
        assertThat(Shares.check("2.5")).isEmpty();
        assertThat(Shares.check(" 0 ")).isEmpty();
        assertThat(Shares.check("1e400").orElseThrow().toString()).isEqualTo("field 'share': expected " + Shares.EXPECTED
                + ", got 1e400 (beyond the largest number, about 1.8e308)");
        assertThat(Shares.check("NaN").orElseThrow().got()).isEqualTo("NaN (not a number)");
        assertThat(Shares.check("-1").orElseThrow().got()).isEqualTo("-1");
        assertThat(Shares.check("two").orElseThrow().got()).isEqualTo("'two'");
    }

    @Test
    void siblingsNeedOnePositiveShare() {
        assertThat(Shares.checkSiblings("lab", 0.5)).isEmpty();
        assertThat(Shares.checkSiblings("lab", 0).orElseThrow().toString()).isEqualTo("field 'share': expected at"
                + " least one positive share among the children of 'lab', got shares summing to 0");
        assertThat(Shares.checkSiblings(null, 0).orElseThrow().expected()).contains("top of the tree");
    }

    @Test
    void siblingsWhoseSharesSumToInfinityAreToldSoNotToGiveAPositiveShare() {
        // two shares of 1e308 each are valid alone; their sum overflows, and the message said "expected at least one
        // positive share ..., got shares summing to Infinity"
        assertThat(Shares.checkSiblings("lab", 1e308 + 1e308).orElseThrow().toString()).isEqualTo("field 'share':"
                + " expected shares among the children of 'lab' that sum to a finite number (at most about 1.8e308),"
                + " got shares summing to Infinity");
    }
}
