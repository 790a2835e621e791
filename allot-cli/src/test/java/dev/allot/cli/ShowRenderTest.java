package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** What {@code allot show} prints for a waiting workload the scheduler cannot take in. */
class ShowRenderTest {
    @Test
    void givenAWorkloadThatNoLongerFitsTheCluster_whenShown_thenItsStateAndALineSaySoAsTheQueueDoes() throws Exception {
        // 'allot queue' said "pending (cannot fit)" and why; 'allot show' said "pending", as for work about to start
        String why = "It cannot fit the cluster as it is now: it asks for 8 GPUs, and the cluster has 4 GPUs on 1 node"
                + " (the largest node has 4). It can run once the cluster has 8 GPUs (a node with 8 GPUs, or more"
                + " nodes), or if it is resubmitted asking for at most 4 GPUs.";
        String answer = "{\"workload\": {\"id\": \"w-2\", \"state\": \"pending\", \"gpus\": 8, \"command\": [\"sleep\","
                + " \"300\"], \"environment\": {}}, \"attempts\": [], \"campaign\": null, \"cannotRun\": \"" + why + "\"}";

        String shown = render(answer);

        assertThat(shown).contains("\n  state        pending (cannot fit)\n  cannot fit   " + why + "\n");
        assertThat(render(answer.replace("\"" + why + "\"", "null"))).contains("\n  state        pending\n")
                .doesNotContain("cannot fit");
    }

    private static String render(String answer) throws Exception {
        StringWriter s = new StringWriter();
        try (PrintWriter out = new PrintWriter(s)) {
            new ShowCommand().render(new ObjectMapper().readTree(answer), out);
        }
        return s.toString();
    }
}
