package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Unhealthy hosts on a real Slurm: a node Allot finds unhealthy is drained in Slurm at once and its work is moved off
 * as soon as its minimum runtime has passed; a node whose slurmd dies is seen down, and the work Slurm requeues is
 * taken back by Allot (cancelled in Slurm, started again as a new attempt where Allot chooses).
 */
class SlurmNodeHealthTest extends SlurmStories {
    private static final Duration WAIT = Duration.ofSeconds(90);

    private String killed;

    @AfterEach
    void restartKilledNode() {
        if (killed != null) {
            slurm.startNode(killed);
        }
    }

    /** The one node an attempt runs on, from its placement. */
    private String nodeOf(String id, int attempt) throws Exception {
        JsonNode placement = story.attempts(id).get(attempt - 1).path("placement");
        assertThat(placement).hasSize(1);
        return placement.get(0).path("node").asText();
    }

    @Test
    void aNodeMarkedUnhealthyIsDrainedInSlurmAndItsWorkMovesOffOnceItsMinimumRuntimeHasPassed() throws Exception {
        story = new Story(slurm, dir.resolve("data"), "it-drain").seed().start();
        String id = story.submit("alice", "lab/a", 8, "6s", true, "sleep 600");
        Story.await(id + " runs in Slurm", WAIT, () -> story.runningInSlurm(id, 1));
        String node = nodeOf(id, 1);

        story.setHealth(node, false, "GPU 3 fell off the bus");

        // Slurm drains it at once, with Allot's reason; the workload keeps running while it is protected.
        Story.await("Slurm drains " + node, WAIT, () -> slurm.node(node).drained());
        assertThat(slurm.node(node).reason()).startsWith("allot: GPU 3 fell off the bus");
        // Once its minimum runtime has passed, it is moved off: requeued, and run again elsewhere.
        Story.await(id + " runs again as attempt 2", WAIT, () -> story.runningInSlurm(id, 2));
        List<JsonNode> attempts = story.attempts(id);
        assertThat(attempts.get(0).path("outcome").asText()).isEqualTo("requeued");
        Instant started = Instant.parse(attempts.get(0).path("startedAt").asText());
        Instant ended = Instant.parse(attempts.get(0).path("endedAt").asText());
        // The loop keeps time in whole seconds (a start at 10:00:00.9 is protected from 10:00:00), so the 6 s of
        // protection end up to a second before 6 s have passed since the stored, millisecond start.
        assertThat(Duration.between(started, ended)).as("protected for its minimum runtime, to the loop's second")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(nodeOf(id, 2)).isNotEqualTo(node);
        // Empty and drained: Slurm shows it ready for repair.
        Story.await(node + " is drained and idle in Slurm", WAIT, () -> {
            SlurmCluster.NodeState s = slurm.node(node);
            return s.drained() && s.state().equals("idle");
        });

        story.setHealth(node, true, null);
        Story.await("Slurm resumes " + node, WAIT, () -> !slurm.node(node).drained());
        // Slurm shows a node it has just resumed NOT_RESPONDING until its slurmd answers (about a second): that is no
        // sign of a broken node, and Allot neither marks it unhealthy nor drains it again (it did both, and resumed it
        // 2 s later). Its node sync runs every few seconds; watched over three of them.
        Story.during(node + " stays healthy in Allot and resumed in Slurm", Duration.ofSeconds(8),
                () -> !slurm.node(node).drained() && healthyInAllot(node));
    }

    private boolean healthyInAllot(String node) throws Exception {
        for (JsonNode n : story.nodes().path("nodes")) {
            if (n.path("name").asText().equals(node)) {
                return n.path("healthy").asBoolean();
            }
        }
        return false;
    }

    @Test
    void whenANodesSlurmdDiesAllotTakesBackTheJobSlurmRequeuesAndRunsItElsewhere() throws Exception {
        story = new Story(slurm, dir.resolve("data"), "it-nodefail").seed().start();
        String id = story.submit("alice", "lab/a", 8, "1m", true, "sleep 600");
        Story.await(id + " runs in Slurm", WAIT, () -> story.runningInSlurm(id, 1));
        String node = nodeOf(id, 1);
        long firstJob = story.jobs(id, 1).get(0).id();

        slurm.killNode(node);
        killed = node;

        // Slurm marks the node down and requeues the job; Allot cancels the requeued job and starts attempt 2.
        Story.await(id + " runs again as attempt 2", Duration.ofSeconds(120), () -> story.runningInSlurm(id, 2));
        assertThat(nodeOf(id, 2)).isNotEqualTo(node);
        JsonNode first = story.attempts(id).get(0);
        assertThat(first.path("outcome").asText()).isEqualTo("lost");
        assertThat(first.path("reason").asText()).contains("requeued by Slurm");
        Story.until(node + " is unhealthy in Allot", WAIT, () -> {
            for (JsonNode n : story.nodes().path("nodes")) {
                if (n.path("name").asText().equals(node)) {
                    return !n.path("healthy").asBoolean() && n.path("reason").asText().startsWith("slurm: ");
                }
            }
            return false;
        });
        // The requeued job never ran again: Slurm ended it cancelled, and attempt 1 has no second job.
        Story.await("Slurm's requeued job " + firstJob + " ends", WAIT, () -> story.jobs(id, 1).stream()
                .allMatch(j -> j.state().equals("CANCELLED")));
        assertThat(story.jobs(id, 1)).hasSize(1);
        assertThat(slurm.completions().stream().filter(l -> l.contains("JobId=" + firstJob + " "))
                .map(l -> l.replaceAll(".*JobState=(\\S+).*", "$1")).toList())
                .as("Slurm's record of job %s", firstJob).containsExactly("NODE_FAIL", "CANCELLED");

        slurm.startNode(node);
        killed = null;
        Story.until(node + " is healthy again in Allot", WAIT, () -> healthyInAllot(node));
    }
}
