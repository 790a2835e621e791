package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Uneven placements on the real Slurm cluster (4 nodes x 8 GPUs; its gres.conf names a device file per GPU, so Slurm
 * shows indexes): Slurm runs each with exactly Allot's GPUs per node, and a job Allot then places on the GPUs left
 * next to it starts at once. Before, a hostfile layout let Slurm take 7 + 1 for a 6 + 2 placement, and the next job
 * pended in Slurm behind the GPU it had taken.
 *
 * <p>Allot's placer spreads a workload that fits no single node over the emptiest nodes first, finishing on the node
 * that fits the remainder best; each split below is made by fillers (allocated, protected, run as Slurm jobs like any
 * workload) that leave exactly the free GPUs that force it, with one GPU to spare on the finishing node.
 */
class SlurmPlacementTest extends SlurmStories {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Slurm schedules every 1-2 s here (sched_interval=2, bf_interval=1): a job that does not pend runs by then. */
    private static final Duration AT_ONCE = Duration.ofSeconds(10);

    /** A filler: {@code gpus} GPUs, as a gang of {@code perNode} per node (0: any packing). */
    private record Filler(int gpus, int perNode) {
    }

    /**
     * @param name     the split, for messages
     * @param fillers  submitted in order, each placed before the next (Allot's best fit decides where)
     * @param gpus     the uneven workload's size
     * @param expected the GPUs per node Allot places it on (in Slurm's node names)
     * @param spare    the node left with one free GPU, where the next one-GPU job goes
     */
    private record Split(String name, List<Filler> fillers, int gpus, Map<String, Integer> expected, String spare) {
    }

    private static final List<Split> SPLITS = List.of(
            // n1, n2 full; n3, n4 2 used each; 3 more on n3: free n3 3, n4 6.
            new Split("6+2", List.of(new Filler(16, 8), new Filler(4, 2), new Filler(3, 0)), 8,
                    Map.of("n4", 6, "n3", 2), "n3"),
            new Split("5+3", List.of(new Filler(16, 8), new Filler(6, 3), new Filler(1, 0)), 8,
                    Map.of("n4", 5, "n3", 3), "n3"),
            new Split("1+7", List.of(new Filler(16, 8), new Filler(2, 1), new Filler(5, 0)), 8,
                    Map.of("n3", 1, "n4", 7), "n3"),
            // n1 full; n2-n4 4 used each; then n2 and n3 one more each, n2 one more again: free n2 2, n3 3, n4 4.
            new Split("4+3+1", List.of(new Filler(8, 0), new Filler(12, 4), new Filler(2, 1), new Filler(1, 0)), 8,
                    Map.of("n4", 4, "n3", 3, "n2", 1), "n2"));

    @Test
    void givenUnevenSplitsWhenAllotPlacesThemThenSlurmRunsEachWithExactlyItsGpusPerNodeAndTheNextJobStartsAtOnce()
            throws Exception {
        story = new Story(slurm, dir.resolve("data"), "it-place").seed().start();
        for (Split split : SPLITS) {
            run(split);
        }
    }

    private void run(Split split) throws Exception {
        List<String> ids = new ArrayList<>();
        for (Filler f : split.fillers()) {
            String id = story.submitShaped("alice", "lab/a", f.gpus(), f.perNode(), "sleep 600");
            ids.add(id);
            Story.until(split.name() + ": filler " + id + " is placed", WAIT, () -> !story.attempts(id).isEmpty());
        }
        String uneven = story.submitShaped("bob", "lab/b", split.gpus(), 0, "sleep 600");
        ids.add(uneven);
        Story.until(split.name() + ": " + uneven + " is placed", WAIT, () -> !story.attempts(uneven).isEmpty());
        // The GPU left on the finishing node: the next job Allot places there must run at once, not pend in Slurm
        // behind a GPU Slurm gave the uneven one. Submitted now, Slurm considers both in the same pass.
        String next = story.submitShaped("alice", "lab/a", 1, 0, "sleep 600");
        ids.add(next);
        Story.await(split.name() + ": " + uneven + " runs in Slurm", WAIT, () -> {
            List<SlurmCluster.Job> parts = story.jobs(uneven, 1);
            return !parts.isEmpty() && parts.stream().allMatch(j -> j.state().equals("RUNNING"));
        });

        Map<String, List<Integer>> placed = placement(uneven);
        Map<String, Integer> counts = new TreeMap<>();
        placed.forEach((node, gpus) -> counts.put(node, gpus.size()));
        assertThat(counts).as("Allot's placement of the %s split", split.name())
                .containsExactlyInAnyOrderEntriesOf(split.expected());

        // What Slurm allocated, node by node: exactly those GPUs.
        Map<String, String> slurmGres = new TreeMap<>();
        SlurmCluster.Job job = story.jobs(uneven, 1).get(0);
        assertThat(story.jobs(uneven, 1)).hasSize(1);
        List<String> nodes = dev.allot.slurm.HostList.expand(job.nodes());
        assertThat(job.gres()).hasSameSizeAs(nodes);
        for (int i = 0; i < nodes.size(); i++) {
            slurmGres.put(nodes.get(i), job.gres().get(i));
        }
        Map<String, String> expectedGres = new TreeMap<>();
        placed.forEach((node, gpus) -> expectedGres.put(node, "gpu:" + gpus.size() + "(IDX:" + ranges(gpus) + ")"));
        assertThat(slurmGres).as("Slurm's allocation of the %s split", split.name()).isEqualTo(expectedGres);

        Story.await(split.name() + ": " + next + " runs in Slurm at once", AT_ONCE,
                () -> story.runningInSlurm(next, 1));
        assertThat(placement(next)).as("where Allot placed the next job").containsOnlyKeys(split.spare());
        assertThat(story.jobs(uneven, 1)).allMatch(j -> j.state().equals("RUNNING"));
        // Allot checked Slurm's allocation against its placement (cycles have passed since it ran) and found it.
        assertThat(story.state(uneven)).isEqualTo("running");
        assertThat(story.metrics()).contains("allot_backend_events_total{backend=\"slurm\",event=\"allocation_mismatches\"} 0");

        for (String id : ids) {
            story.cancel(id.equals(uneven) ? "bob" : "alice", id);
        }
        for (String id : ids) {
            Story.until(split.name() + ": " + id + " is cancelled", WAIT, () -> story.state(id).equals("cancelled"));
        }
    }

    /** Node to GPU indexes of a workload's first attempt. */
    private Map<String, List<Integer>> placement(String id) throws Exception {
        JsonNode attempt = story.attempts(id).get(0);
        Map<String, List<Integer>> out = new TreeMap<>();
        attempt.path("placement").forEach(p -> {
            List<Integer> gpus = new ArrayList<>();
            p.path("gpus").forEach(g -> gpus.add(g.asInt()));
            out.put(p.path("node").asText(), gpus);
        });
        return out;
    }

    /** Indexes as Slurm writes them: {@code 0-5}, {@code 4-5}, {@code 0,2-3}. */
    private static String ranges(List<Integer> idx) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < idx.size()) {
            int j = i;
            while (j + 1 < idx.size() && idx.get(j + 1) == idx.get(j) + 1) {
                j++;
            }
            b.append(i > 0 ? "," : "").append(idx.get(i)).append(j > i ? "-" + idx.get(j) : "");
            i = j + 1;
        }
        return b.toString();
    }
}
