package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The life of workloads on a real Slurm cluster (4 nodes x 8 GPUs) driven by Allot: start on the chosen nodes with
 * the right GPUs, complete, cancel, and preemption with requeue, checked against what Slurm itself shows.
 */
class SlurmLifecycleTest extends SlurmStories {
    private static final Duration WAIT = Duration.ofSeconds(60);


    /** How Allot reads Slurm: both are run through the same stories. */
    enum Observing {
        COMMANDS, SLURMRESTD
    }

    private Story story(String name, Observing observing) throws Exception {
        Story s = new Story(slurm, dir.resolve("data"), name);
        if (observing == Observing.SLURMRESTD) {
            s.observingWithRest();
        }
        return s.seed().start();
    }

    @ParameterizedTest
    @EnumSource(Observing.class)
    void aWorkloadRunsAsOneSlurmJobOnTheNodesAllotChoseWithItsGpusAndCompletes(Observing observing) throws Exception {
        story = story("it-lifecycle", observing);

        // 12 GPUs cannot fit one node: Allot places 8 + 4 (a heterogeneous job in Slurm, one component per node,
        // read as one job here); the unallocated one goes to the preemptible partition. It runs 2 s: long enough for
        // this test to read its GPUs per node from Slurm (polled every 100 ms) while it runs.
        String big = story.submit("alice", "lab/a", 12, "1m", false, "echo gpus=$CUDA_VISIBLE_DEVICES; sleep 2");
        String free = story.submit("bob", "lab/b", 2, "0s", false, "sleep 1; exit 3");
        // Slurm shows the GPUs per node only while the job runs.
        List<String> gresWhileRunning = new ArrayList<>();
        Story.await(big + " runs in Slurm", WAIT, () -> story.jobs(big, 1).stream()
                .filter(j -> j.state().equals("RUNNING")).findFirst()
                .map(j -> gresWhileRunning.addAll(j.gres())).orElse(false));

        Story.until(big + " completes", WAIT, () -> story.state(big).equals("completed"));
        Story.until(free + " ends", WAIT, () -> story.state(free).equals("failed"));

        JsonNode attempt = story.attempts(big).get(0);
        Map<String, Integer> placed = new TreeMap<>();
        attempt.path("placement").forEach(p -> placed.put(p.path("node").asText(), p.path("gpus").size()));
        assertThat(placed.values()).containsExactlyInAnyOrder(8, 4);

        List<SlurmCluster.Job> jobs = story.jobs(big, 1);
        assertThat(jobs).hasSize(1);
        SlurmCluster.Job job = jobs.get(0);
        assertThat(job.state()).isEqualTo("COMPLETED");
        assertThat(job.partition()).isEqualTo("allot");
        assertThat(job.comment()).isEqualTo("allot:" + story.instance);
        // Slurm ran it on exactly Allot's nodes, with as many GPUs on each.
        List<String> nodes = dev.allot.slurm.HostList.expand(job.nodes());
        assertThat(nodes).containsExactlyInAnyOrderElementsOf(placed.keySet());
        List<Integer> gresPerNode = new ArrayList<>();
        gresWhileRunning.forEach(g -> gresPerNode.add(Integer.parseInt(g.replaceAll("^gpu:(\\d+).*$", "$1"))));
        assertThat(gresPerNode).containsExactlyInAnyOrderElementsOf(placed.values());

        SlurmCluster.Job freeJob = story.jobs(free, 1).get(0);
        assertThat(freeJob.partition()).isEqualTo("allot-free");
        assertThat(freeJob.state()).isEqualTo("FAILED");
        assertThat(story.attempts(free).get(0).path("reason").asText()).contains("exited with code 3");
    }

    @Test
    void cancellingARunningWorkloadEndsItsSlurmJob() throws Exception {
        story = new Story(slurm, dir.resolve("data"), "it-cancel").seed().start();
        String id = story.submit("alice", "lab/a", 4, "10m", false, "sleep 600");
        Story.await(id + " runs in Slurm", WAIT, () -> story.jobs(id, 1).stream()
                .anyMatch(j -> j.state().equals("RUNNING")));

        story.cancel("alice", id);

        Story.until(id + " is cancelled", WAIT, () -> story.state(id).equals("cancelled"));
        assertThat(story.jobs(id, 1)).singleElement().satisfies(j -> assertThat(SlurmCluster.ended(j.state()))
                .as("Slurm job state %s", j.state()).isTrue());
    }

    @ParameterizedTest
    @EnumSource(Observing.class)
    void anUnderServedTeamPreemptsAResumableWorkloadWhichRunsAgainAsANewAttempt(Observing observing) throws Exception {
        story = story("it-preempt", observing);
        // Alice fills the cluster with four resumable 8-GPU workloads protected for 2 s.
        List<String> alice = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            alice.add(story.submit("alice", "lab/a", 8, "2s", true, "sleep 600"));
        }
        Story.await("Alice's four jobs run in Slurm", WAIT, () -> alice.stream().allMatch(id ->
                story.jobs(id, 1).stream().anyMatch(j -> j.state().equals("RUNNING"))));

        // Bob, at 0% of his half, asks for 8 GPUs: one of Alice's workloads is preempted and requeued.
        String bob = story.submit("bob", "lab/b", 8, "1m", false, "sleep 1");
        Story.until(bob + " completes", WAIT, () -> story.state(bob).equals("completed"));

        List<String> preempted = new ArrayList<>();
        for (String id : alice) {
            List<JsonNode> attempts = story.attempts(id);
            if (attempts.get(0).path("outcome").asText().equals("requeued")) {
                preempted.add(id);
            }
        }
        assertThat(preempted).as("Alice's workloads preempted for Bob").hasSize(1);
        String victim = preempted.get(0);
        assertThat(story.attempts(victim).get(0).path("reason").asText()).contains(bob);
        // Slurm's own records say that Allot preempted it: the comment names the preemptor, and the job ended
        // CANCELLED, not FAILED (JobLaunchFailure, 0:15) as a job killed by scancel --signal=TERM was recorded.
        // This cluster has no slurmdbd (no sacct): jobcomp/filetxt is Slurm's record of how each job ended.
        assertThat(story.jobs(victim, 1)).hasSize(1);
        SlurmCluster.Job victimJob = story.jobs(victim, 1).get(0);
        assertThat(victimJob.comment()).isEqualTo("allot:" + story.instance + " preempted by " + bob);
        assertThat(victimJob.state()).isEqualTo("CANCELLED");
        Story.await("Slurm's completion log to record job " + victimJob.id(), WAIT,
                () -> slurm.completionState(victimJob.id()) != null);
        assertThat(slurm.completionState(victimJob.id())).isEqualTo("CANCELLED");
        // Bob is done, so the victim runs again: a second attempt, a new Slurm job.
        Story.await(victim + " runs again as attempt 2", WAIT, () -> story.jobs(victim, 2).stream()
                .anyMatch(j -> j.state().equals("RUNNING")));
        assertThat(story.state(victim)).isEqualTo("running");
        assertThat(story.jobs(victim, 2)).hasSize(1);
    }
}
