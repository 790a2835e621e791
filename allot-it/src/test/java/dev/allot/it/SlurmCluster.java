package dev.allot.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real Slurm test cluster the tests run against: the one {@code .ci/slurm.sh} starts with
 * {@code tools/slurm-cluster.sh} (4 nodes n1-n4 with 8 GPUs each, partitions {@code allot} and {@code allot-free}),
 * found through {@code ALLOT_TEST_SLURM_*}. Without them the tests are skipped, unless {@code ALLOT_REQUIRE_SLURM=1}
 * (CI sets it), where a missing cluster fails. Reads Slurm with the real commands (never through Allot) as the
 * tests' ground truth, and resets the cluster between tests: every job cancelled, every node back in service.
 */
final class SlurmCluster {
    private static final ObjectMapper JSON = new ObjectMapper();

    final Path conf;
    final Path base;
    final Path script;
    final String restUrl;
    final Path restTokenFile;

    private SlurmCluster(Path conf, Path base, Path script, String restUrl, Path restTokenFile) {
        this.conf = conf;
        this.base = base;
        this.script = script;
        this.restUrl = restUrl;
        this.restTokenFile = restTokenFile;
    }

    /** The cluster from the environment; skips the test when there is none (fails under ALLOT_REQUIRE_SLURM=1). */
    static SlurmCluster fromEnvironment() {
        String conf = System.getenv("ALLOT_TEST_SLURM_CONF");
        boolean required = "1".equals(System.getenv("ALLOT_REQUIRE_SLURM"));
        if (conf == null || conf.isBlank()) {
            if (required) {
                throw new AssertionError("ALLOT_REQUIRE_SLURM=1 but ALLOT_TEST_SLURM_CONF is not set: start the cluster"
                        + " with .ci/slurm.sh (start_test_slurm)");
            }
            assumeTrue(false, "no Slurm test cluster (ALLOT_TEST_SLURM_CONF unset); .ci/run starts one");
        }
        String rest = System.getenv("ALLOT_TEST_SLURM_REST_URL");
        String token = System.getenv("ALLOT_TEST_SLURM_REST_TOKEN_FILE");
        return new SlurmCluster(Path.of(conf), Path.of(System.getenv("ALLOT_TEST_SLURM_BASE")),
                Path.of(System.getenv("ALLOT_TEST_SLURM_SCRIPT")), rest, token == null ? null : Path.of(token));
    }

    /**
     * One job as {@code squeue --json} shows it; {@code endEpochSeconds} is its {@code end_time}: when it ended once
     * ended, when its time limit runs out while it runs, 0 while pending.
     */
    record Job(long id, String name, String comment, String state, int restarts, String nodes, List<String> gres,
               String partition, String stdout, long startEpochSeconds, String reason, long endEpochSeconds) {
    }

    /**
     * Every job slurmctld holds (ended ones stay an hour: MinJobAge=3600). A heterogeneous job (Allot's uneven
     * placements), which Slurm lists as one job per component, is one job here, its leader's, with every
     * component's nodes and GPUs in order ({@code nodes} "n4,n3", {@code gres} one entry per node).
     */
    List<Job> jobs() {
        JsonNode root = json(run(List.of("squeue", "--json")));
        List<Job> out = new ArrayList<>();
        java.util.Map<Long, java.util.TreeMap<Integer, JsonNode>> components = new java.util.HashMap<>();
        for (JsonNode j : root.path("jobs")) {
            long het = j.path("het_job_id").asLong(0);
            if (het != 0) {
                components.computeIfAbsent(het, k -> new java.util.TreeMap<>()).put(j.path("het_job_offset").asInt(), j);
            }
        }
        for (JsonNode j : root.path("jobs")) {
            long het = j.path("het_job_id").asLong(0);
            if (het != 0 && het != j.path("job_id").asLong()) {
                continue;
            }
            List<String> gres = new ArrayList<>();
            List<String> nodes = new ArrayList<>();
            for (JsonNode part : het == 0 ? List.of(j) : components.get(het).values()) {
                part.path("gres_detail").forEach(g -> gres.add(g.asText()));
                nodes.add(part.path("nodes").asText());
            }
            out.add(new Job(j.path("job_id").asLong(), j.path("name").asText(), j.path("comment").asText(),
                    j.path("job_state").asText(), j.path("restart_cnt").asInt(), String.join(",", nodes), gres,
                    j.path("partition").asText(), j.path("standard_output").asText(), j.path("start_time").asLong(),
                    j.path("state_reason").asText(), j.path("end_time").asLong()));
        }
        return out;
    }

    /** The jobs of one attempt of one Allot instance, by its tag (ended jobs of earlier tests stay listed). */
    List<Job> jobsOf(String instance, String workloadId, int attempt) {
        String name = "allot:" + workloadId + "#" + attempt;
        return jobs().stream().filter(j -> j.name().equals(name) && ofInstance(j, instance)).toList();
    }

    /**
     * Whether a job's comment names this Allot instance: {@code allot:<instance>}, to which Allot adds why it stopped
     * the job ({@code allot:<instance> preempted by w-7}, {@code ... cancelled}).
     */
    static boolean ofInstance(Job j, String instance) {
        String comment = "allot:" + instance;
        return j.comment().equals(comment) || j.comment().startsWith(comment + " ");
    }

    /** The JobState= of job {@code id}'s line in Slurm's completion log, or null while it has none. */
    String completionState(long id) {
        for (String line : completions()) {
            if (line.startsWith("JobId=" + id + " ")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile(" JobState=(\\S+)").matcher(line);
                return m.find() ? m.group(1) : "";
            }
        }
        return null;
    }

    /** Slurm's completion log: one line per job end (JobId=, JobName=, JobState=, NodeList=, ...). */
    List<String> completions() {
        try {
            Path log = base.resolve("log/jobcomp.log");
            return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Node name to its state and flags, e.g. {@code idle+DRAIN}, with its reason. */
    record NodeState(String name, String state, List<String> flags, String reason) {
        boolean drained() {
            return flags.contains("DRAIN");
        }
    }

    List<NodeState> nodes() {
        JsonNode root = json(run(List.of("sinfo", "--json")));
        List<NodeState> out = new ArrayList<>();
        for (JsonNode n : root.path("nodes")) {
            List<String> flags = new ArrayList<>();
            n.path("state_flags").forEach(f -> flags.add(f.asText()));
            out.add(new NodeState(n.path("name").asText(), n.path("state").asText(), flags, n.path("reason").asText()));
        }
        return out;
    }

    NodeState node(String name) {
        return nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    /** SIGKILLs a node's slurmd (and the job processes it started), as a node failure. */
    void killNode(String node) {
        script("kill-node", node);
    }

    void startNode(String node) {
        script("start-node", node);
    }

    /**
     * Back to a clean cluster: every job cancelled (Allot's lock jobs too), every node resumed and idle. Waits until
     * Slurm shows it; a cluster found clean already (as the story before left it) is not listed a second time.
     */
    void reset() throws InterruptedException {
        List<Job> jobs = jobs();
        List<NodeState> nodes = nodes();
        if (clean(jobs, nodes)) {
            return;
        }
        for (Job j : jobs) {
            if (!ended(j.state())) {
                run(List.of("scancel", Long.toString(j.id())));
            }
        }
        for (NodeState n : nodes) {
            if (n.drained()) {
                run(List.of("scontrol", "update", "nodename=" + n.name(), "state=resume"));
            }
        }
        Story.await("Slurm to have no live job and every node idle", Duration.ofSeconds(60),
                () -> clean(jobs(), nodes()));
    }

    private static boolean clean(List<Job> jobs, List<NodeState> nodes) {
        return jobs.stream().allMatch(j -> ended(j.state()))
                && nodes.stream().allMatch(n -> n.state().equals("idle") && n.flags().isEmpty());
    }

    static boolean ended(String state) {
        return List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
                "DEADLINE", "OUT_OF_MEMORY").contains(state);
    }

    private void script(String verb, String node) {
        List<String> cmd = List.of("bash", script.toString(), verb, node);
        String out = exec(cmd, true);
        if (out == null) {
            throw new AssertionError(cmd + " failed");
        }
    }

    /** Runs a Slurm command against this cluster; fails the test if it fails. */
    String run(List<String> cmd) {
        String out = exec(cmd, false);
        if (out == null) {
            throw new AssertionError(cmd + " failed");
        }
        return out;
    }

    private String exec(List<String> cmd, boolean withBase) {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().put("SLURM_CONF", conf.toString());
            if (withBase) {
                pb.environment().put("BASE", base.toString());
            }
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                System.err.println(cmd + ": " + new String(out, StandardCharsets.UTF_8));
                return null;
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("Slurm printed no JSON: " + text, e);
        }
    }
}
