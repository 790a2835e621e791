package dev.allot.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.explain.WaitExplanation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's queue shows, beside the badge of what a workload waits for, the last sentence of its explanation
 * that is not one of the others, which {@code queue.js} tells by how they begin. A sentence added after the one of
 * what it waits for must be among them: the unhealthy hosts' sentence replaced it in every row while a host was down.
 */
class QueueSentencesTest {
    @Test
    void theQueuePageKnowsTheUnhealthyHostsSentenceAsNotTheOneOfWhatWorkWaitsFor() throws IOException {
        String js;
        try (InputStream in = QueueSentencesTest.class.getResourceAsStream("/dev/allot/server/dashboard/queue.js")) {
            assertThat(in).isNotNull();
            js = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String others = js.substring(js.indexOf("OTHER_SENTENCES = ["), js.indexOf("];", js.indexOf("OTHER_SENTENCES")));
        assertThat(others).contains("'" + WaitExplanation.HOSTS_SENTENCE + " '");
    }
}
