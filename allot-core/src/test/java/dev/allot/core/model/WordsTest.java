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
}
