package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code allot queue} prints for waiting work the server's queue lists without a place. */
class QueueRenderTest {
    @Test
    void givenADeferredStart_whenTheQueueIsShown_thenItsStateSaysItIsAboutToStartBesideItsPlaceOfDash() throws Exception {
        // the scheduler decided to start w-2 on GPUs that stopped work still holds: the store has it pending, the
        // queue no place for it; 'allot queue' showed "-  pending" as for work the scheduler had not seen yet, while
        // 'allot explain' said "w-2 is pending and about to start"
        String answer = "{\"workloads\": [{\"id\": \"w-1\", \"state\": \"pending\"}, {\"id\": \"w-2\","
                + " \"state\": \"pending\"}, {\"id\": \"w-3\", \"state\": \"pending\"}],"
                + " \"queue\": {\"seenByScheduler\": true, \"entries\": [{\"id\": \"w-1\", \"position\": 1,"
                + " \"positionInAllocation\": 1}, {\"id\": \"w-2\", \"position\": null, \"aboutToStart\": true},"
                + " {\"id\": \"w-3\", \"position\": null}]}, \"limit\": 1000, \"moreWaiting\": 0}";
        StringWriter s = new StringWriter();
        try (PrintWriter out = new PrintWriter(s)) {
            new QueueCommand().render(new ObjectMapper().readTree(answer), out);
        }
        List<String> lines = s.toString().lines().toList();
        assertThat(lines.get(2)).startsWith("w-2").contains(" -  ").contains("pending (about to start)");
        assertThat(lines.get(3)).startsWith("w-3").contains("pending").doesNotContain("about to start");
    }

    @Test
    void givenAWorkloadThatNoLongerFitsTheCluster_whenTheQueueIsShown_thenItsStateAndANoteSaySoWithTheNumbers()
            throws Exception {
        // a node set smaller under a waiting 8-GPU workload: 'allot queue' showed "-  pending" as for work the
        // scheduler had not seen yet, while it will not start as it is
        String why = "It cannot fit the cluster as it is now: it asks for 8 GPUs, and the cluster has 4 GPUs on 1 node"
                + " (the largest node has 4). It can run once the cluster has 8 GPUs (a node with 8 GPUs, or more"
                + " nodes), or if it is resubmitted asking for at most 4 GPUs.";
        String answer = "{\"workloads\": [{\"id\": \"w-2\", \"state\": \"pending\"}],"
                + " \"queue\": {\"seenByScheduler\": true, \"entries\": [{\"id\": \"w-2\", \"position\": null,"
                + " \"cannotRun\": \"" + why + "\"}]}, \"limit\": 1000, \"moreWaiting\": 0}";
        StringWriter s = new StringWriter();
        try (PrintWriter out = new PrintWriter(s)) {
            new QueueCommand().render(new ObjectMapper().readTree(answer), out);
        }
        List<String> lines = s.toString().lines().toList();
        assertThat(lines.get(1)).startsWith("w-2").contains("pending (cannot fit)");
        assertThat(lines.get(2)).isEqualTo("(w-2: " + why + ")");
    }
}
