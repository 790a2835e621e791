package dev.allot.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WordsTest {
    @Test
    void oneIsSingularAndEveryOtherCountPlural() {
        assertThat(Words.count(1, "node")).isEqualTo("1 node");
        assertThat(Words.count(0, "node")).isEqualTo("0 nodes");
        assertThat(Words.count(2, "whole node")).isEqualTo("2 whole nodes");
        assertThat(Words.count(1, "GPU")).isEqualTo("1 GPU");
        assertThat(Words.count(3, "health event")).isEqualTo("3 health events");
        assertThat(Words.verb(1, "is", "are")).isEqualTo("is");
        assertThat(Words.verb(0, "is", "are")).isEqualTo("are");
    }

    @Test
    void placesTakeTheirEnglishSuffix() {
        assertThat(java.util.stream.LongStream.of(1, 2, 3, 4, 11, 12, 13, 21, 22, 25, 101, 111, 800)
                .mapToObj(Words::ordinal)).containsExactly("1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st",
                "22nd", "25th", "101st", "111th", "800th");
    }
}
