package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SlurmActionsTest {
    private static final Path WORK = Path.of("/srv/allot");
    private static final SlurmConfig CONFIG = SlurmConfig.defaults(null, WORK, "inst1");

    static Launch launch(String workload, int attempt, Launch.Terms terms, Object... nodesAndGpus) {
        List<Launch.NodeGpus> placement = new ArrayList<>();
        for (int i = 0; i < nodesAndGpus.length; i += 2) {
            List<Integer> gpus = new ArrayList<>();
            for (int g = 0; g < (Integer) nodesAndGpus[i + 1]; g++) {
                gpus.add(g);
            }
            placement.add(new Launch.NodeGpus((String) nodesAndGpus[i], gpus));
        }
        return new Launch(new AttemptKey(workload, attempt), placement, List.of("python", "train.py"),
                new TreeMap<>(), null, terms);
    }

    private static List<String> args(SlurmConfig config, Launch launch) {
        return new SlurmActions(new Commands(config), config).sbatchArgs(launch);
    }

    @Test
    void aUniformPlacementPinsTheNodesAndAsksTheSameGpusOnEach() {
        List<String> a = args(CONFIG, launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 3, "n2", 3));

        assertThat(a).containsExactly("--parsable", "--job-name=allot:w-1#1", "--comment=allot:inst1",
                "--partition=allot", "--nodelist=n1,n2", "--nodes=2", "--gres=gpu:3", "--requeue",
                "--chdir=/srv/allot", "--output=/srv/allot/allot-%j.out", "--wrap='python' 'train.py'");
    }

    @Test
    void aNonUniformPlacementIsOneTaskPerGpuLaidOutByAHostfileSoEachNodeGetsExactlyItsCount() {
        Launch launch = launch("w-2", 3, Launch.Terms.ALLOCATED, "n1", 8, "n2", 4);
        List<String> a = args(CONFIG, launch);

        assertThat(a).contains("--job-name=allot:w-2#3", "--nodelist=n1,n2", "--nodes=2", "--ntasks=12",
                "--gpus-per-task=1", "--distribution=arbitrary").noneMatch(s -> s.startsWith("--gres"))
                .noneMatch(s -> s.startsWith("--gpus="));
        assertThat(SlurmActions.hostfile(launch)).isEqualTo("n1\n".repeat(8) + "n2\n".repeat(4));
        assertThat(SlurmActions.uniform(launch)).isFalse();
    }

    @Test
    void unallocatedWorkGoesToTheFreePartition() {
        List<String> a = args(CONFIG, launch("w-3", 1, new Launch.Terms(true, true), "n4", 1));

        assertThat(a).contains("--partition=allot-free", "--nodelist=n4", "--nodes=1", "--gres=gpu:1")
                .doesNotContain("--partition=allot").noneMatch(s -> s.startsWith("--qos"));
    }

    @Test
    void qosAccountAndExtraArgumentsAreAddedWhenConfigured() {
        SlurmConfig c = CONFIG.withQos("protected", "scavenger").withAccount("proj-7")
                .withExtraSbatchArgs(List.of("--mem=0", "--exclusive"));

        List<String> allocated = args(c, launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 2));
        List<String> free = args(c, launch("w-1", 2, new Launch.Terms(true, false), "n1", 2));

        assertThat(allocated).contains("--qos=protected", "--account=proj-7", "--mem=0", "--exclusive");
        assertThat(free).contains("--qos=scavenger", "--account=proj-7", "--partition=allot-free");
        assertThat(allocated.get(allocated.size() - 1)).startsWith("--wrap=");
        assertThat(allocated.indexOf("--mem=0")).isLessThan(allocated.size() - 1);
    }

    @Test
    void aQosOnlyConfigurationNamesNoPartition() {
        SlurmConfig c = CONFIG.withQos("protected", "scavenger").withPartitions(null, null);

        assertThat(args(c, launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 1)))
                .noneMatch(s -> s.startsWith("--partition")).contains("--qos=protected");
    }

    @Test
    void theJobGetsTheWorkloadsEnvironmentAndItsAttempt() {
        Launch l = new Launch(new AttemptKey("w-9", 4), List.of(new Launch.NodeGpus("n1", List.of(0))),
                List.of("x"), new TreeMap<>(java.util.Map.of("SEED", "7")), null);

        assertThat(SlurmActions.environment(l)).containsEntry("SEED", "7").containsEntry("ALLOT_WORKLOAD_ID", "w-9")
                .containsEntry("ALLOT_ATTEMPT", "4");
    }

    @Test
    void theWrappedCommandGivesTheProgramExactlyItsArguments() throws Exception {
        List<String> command = List.of("python", "train.py", "--name", "two words", "it's", "say \"hi\"", "$HOME",
                "`id`", "$(echo no)", "back\\slash", "", "semi;colon", "*", "new\nline", "'", "''", "tab\there");

        assertThat(run("bash", SlurmActions.shellCommand(command))).isEqualTo(command);
        assertThat(run("sh", SlurmActions.shellCommand(command))).isEqualTo(command); // sbatch --wrap uses sh
    }

    /** Runs {@code printf '%s\0' <line>} in a shell and splits what it printed. */
    private static List<String> run(String shell, String line) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(shell, "-c", "printf '%s\\0' " + line).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return Arrays.asList(out.substring(0, out.length() - 1).split("\0", -1));
    }
}
