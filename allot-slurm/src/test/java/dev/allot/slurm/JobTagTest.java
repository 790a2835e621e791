package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JobTagTest {
    @Test
    void namesParseBackToTheirAttempt() {
        for (String workload : new String[] {"w-17", "w-1", "train.llama_7b", "a#b"}) {
            for (int attempt = 1; attempt <= 12; attempt++) {
                AttemptKey key = new AttemptKey(workload, attempt);
                assertThat(JobTag.parse(JobTag.name(key))).contains(key);
            }
        }
        AttemptKey big = new AttemptKey("w-17", 999_999_999);
        assertThat(JobTag.parse(JobTag.name(big))).contains(big);
    }

    @Test
    void theNameIsWhatAPersonReadsInSqueue() {
        assertThat(JobTag.name(new AttemptKey("w-17", 3))).isEqualTo("allot:w-17#3");
        assertThat(JobTag.comment("inst1")).isEqualTo("allot:inst1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"allot:lock", "allot:w-1#0", "allot:w-1#", "other:w-1#1", "allot:#3", "allot:w-1#-1",
            "allot:w-1#x", "allot:w-1#1234567890", "wrap", "", "allot:"})
    void namesThatAreNotAnAttemptAreNotAllots(String name) {
        assertThat(JobTag.parse(name)).isEmpty();
    }

    @Test
    void onlyTheCanonicalNameOfAnAttemptIsItsName() {
        // observe() groups jobs by parse() while start() looks a job up by name(): both must agree on one name
        assertThat(JobTag.parse("allot:w-1#01")).isEmpty();
        assertThat(JobTag.parse("allot:w-1#\u0663")).isEmpty(); // ARABIC-INDIC DIGIT THREE
        assertThat(JobTag.parse("allot:w-1#\uff11")).isEmpty(); // FULLWIDTH DIGIT ONE
    }

    @Test
    void aMissingNameIsNotAllots() {
        assertThat(JobTag.parse(null)).isEmpty();
    }

    @Test
    void theCommentNamesTheInstance() {
        assertThat(JobTag.instance("allot:inst1")).contains("inst1");
        assertThat(JobTag.instance(JobTag.comment("29888dd93f1a"))).contains("29888dd93f1a");
        assertThat(JobTag.instance("allot:")).isEmpty();
        assertThat(JobTag.instance("")).isEmpty();
        assertThat(JobTag.instance("(null)")).isEmpty();
        assertThat(JobTag.instance("someone's comment")).isEmpty();
        assertThat(JobTag.instance(null)).isEmpty();
    }

    @Test
    void aStopNoteAfterTheInstanceKeepsTheJobItsInstances() {
        String c = JobTag.comment("inst1", "preempted  by\nw-7");

        assertThat(c).isEqualTo("allot:inst1 preempted by w-7");
        assertThat(JobTag.instance(c)).contains("inst1");
        assertThat(JobTag.comment("inst1", " ")).isEqualTo("allot:inst1");
        assertThat(JobTag.instance("allot: preempted")).isEmpty();
    }
}
