package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Faults between Allot and Slurm. Every Slurm command Allot runs goes through {@code tools/slurm-faults} wrappers:
 * 30% of probes fail (connection reset, timeout, empty output, truncated JSON) and 20% of actions fail, half of those
 * after Slurm carried them out (sbatch submitted, yet the caller sees an error). A mix of {@link #WORKLOADS} workloads
 * is submitted, and Allot is killed with SIGKILL halfway and started again. Checked against Slurm's own records: no
 * attempt ever became two jobs, no job was requeued, nothing was taken for lost, and every workload ends in the state
 * its command and its story call for.
 *
 * <p>The story used to submit for 150 seconds (86 workloads on CI); it now submits those 86 at twice that pace
 * ({@link #PACE}): pauses between submissions and every command's sleep are half what they were, so the cluster is as
 * loaded (GPU-seconds asked per second) and every workload goes through as many state changes (submitted, started,
 * preempted, ended, cancelled), each read by probes that fail 30% of the time as before, in about 75 seconds. What
 * shrinks is the number of quiet ticks between them. The random draws are the same, in the same order.
 *
 * <p>It asserts no timing (every wait is for a state, with minutes to spare), so it runs beside the model agreement
 * story, which drives a Slurm of its own ({@link Machine}); first of the stories, so that both start together.
 */
@Machine.Shares
@Order(1)
class SlurmFaultsTest extends SlurmStories {
    /** How many workloads are submitted; Allot is killed and restarted after half of them. */
    private static final int WORKLOADS = Integer.getInteger("allot.it.faultWorkloads", 86);
    /** The story's pace: every sleep (commands and pauses between submissions) is this fraction of its first one. */
    private static final double PACE = 0.5;

    /** What a workload was asked to do, hence how it must end. */
    enum Kind {
        /** Exits 0 after a few seconds: completed (or preempted, if unallocated and not resumable). */
        SHORT,
        /** Exits 1: failed. */
        FAILING,
        /** Resumable, protected briefly: may be preempted and requeued, ends completed. */
        RESUMABLE,
        /** Unallocated (min runtime 0): completed or preempted. */
        FREE,
        /** Runs for ten minutes and is cancelled: cancelled. */
        CANCELLED
    }

    @Test
    void withThirtyPercentOfProbesFailingAndARestartNoAttemptRunsTwiceAndEveryWorkloadEndsRight() throws Exception {
        Path faults = faultWrappers(dir.resolve("faults"));
        story = new Story(slurm, dir.resolve("data"), "it-faults").withSlurmBin(faults.resolve("bin")).seed();
        story.startProcess();

        Random random = new Random(20261201);
        Map<String, Kind> kinds = new TreeMap<>();
        List<String> toCancel = new ArrayList<>();
        boolean restarted = false;
        for (int submitted = 0; submitted < WORKLOADS; submitted++) {
            if (!restarted && submitted == WORKLOADS / 2) {
                story.kill();
                story.startProcess();
                restarted = true;
            }
            String user = random.nextBoolean() ? "alice" : "bob";
            String allocation = user.equals("alice") ? "lab/a" : "lab/b";
            int gpus = List.of(1, 2, 4, 8, 12).get(random.nextInt(5));
            Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
            int seconds = 3 + random.nextInt(12);
            String id = switch (kind) {
                case SHORT -> story.submit(user, allocation, gpus, "1m", false, "sleep " + paced(seconds));
                case FAILING -> story.submit(user, allocation, gpus, "1m", false, "sleep " + paced(2) + "; exit 1");
                // Protected for whole seconds only (the loop's clock): 2 s for half of 3 s.
                case RESUMABLE -> story.submit(user, allocation, gpus, "2s", true, "sleep " + paced(seconds + 5));
                case FREE -> story.submit(user, allocation, gpus, "0s", false, "sleep " + paced(seconds));
                case CANCELLED -> story.submit(user, allocation, gpus, "1m", false, "sleep 600");
            };
            kinds.put(id, kind);
            if (kind == Kind.CANCELLED) {
                toCancel.add(id);
            }
            if (toCancel.size() > 1) {
                story.cancel(user.equals("alice") ? "root" : "root", toCancel.remove(0));
            }
            Thread.sleep(Math.round(PACE * (1000 + random.nextInt(1500))));
        }
        for (String id : toCancel) {
            story.cancel("root", id);
        }
        assertThat(restarted).isTrue();

        Story.until("every workload to end", Duration.ofMinutes(5), () -> kinds.keySet().stream()
                .allMatch(id -> ended(state(id))));

        // Slurm's own records: every attempt of this instance is at most one job, never requeued.
        List<SlurmCluster.Job> jobs = slurm.jobs().stream()
                .filter(j -> SlurmCluster.ofInstance(j, story.instance) && !j.name().equals("allot:lock")).toList();
        Map<String, Long> jobsPerAttempt = jobs.stream().collect(Collectors.groupingBy(SlurmCluster.Job::name,
                TreeMap::new, Collectors.counting()));
        assertThat(jobsPerAttempt).as("Slurm jobs per attempt").allSatisfy((name, n) -> assertThat(n).isEqualTo(1));
        assertThat(jobs).as("jobs Slurm requeued").allSatisfy(j -> assertThat(j.restarts()).isZero());
        String workDir = "WorkDir=" + story.slurmConfig().workDir() + " ";
        Map<String, List<String>> completed = new TreeMap<>();
        for (String line : slurm.completions()) {
            // A heterogeneous job (an uneven placement) has a line per component: its leader's (offset 0) stands
            // for it.
            if (line.contains(workDir) && !line.contains("Name=allot:lock ")
                    && !line.matches(".* HetJobOffset=[1-9]\\d* .*")) {
                completed.computeIfAbsent(line.replaceAll(".* Name=(\\S+) .*", "$1"), k -> new ArrayList<>())
                        .add(line.replaceAll("^JobId=(\\d+) .*", "$1"));
            }
        }
        assertThat(completed).as("Slurm's completion log, job ids per attempt")
                .allSatisfy((name, ids) -> assertThat(ids).hasSize(1));

        // Allot's records agree: each launched attempt is one of those jobs; nothing lost; every workload ends right.
        int attempts = 0;
        for (Map.Entry<String, Kind> e : kinds.entrySet()) {
            String id = e.getKey();
            List<JsonNode> as = story.attempts(id);
            for (JsonNode a : as) {
                assertThat(a.path("outcome").asText()).as("%s attempt %s: %s", id, a.path("attempt").asInt(),
                        a.path("reason").asText()).isNotEqualTo("lost");
                String name = "allot:" + id + "#" + a.path("attempt").asInt();
                if (!a.path("reason").asText().contains("never started")) {
                    assertThat(jobsPerAttempt).as("a Slurm job for %s (%s)", name, a.path("reason").asText())
                            .containsKey(name);
                    attempts++;
                }
            }
            String state = state(id);
            switch (e.getValue()) {
                case SHORT, RESUMABLE -> assertThat(state).as(id + " " + e.getValue()).isEqualTo("completed");
                case FAILING -> assertThat(state).as(id + " " + e.getValue()).isEqualTo("failed");
                case FREE -> assertThat(state).as(id + " " + e.getValue()).isIn("completed", "preempted");
                case CANCELLED -> assertThat(state).as(id + " " + e.getValue()).isEqualTo("cancelled");
            }
        }
        assertThat(jobsPerAttempt).as("every Slurm job of this instance is an attempt Allot recorded")
                .hasSize(attempts);

        // The faults happened, and Allot saw them.
        List<String> injected = Files.readAllLines(dir.resolve("faults/faults.log"), StandardCharsets.UTF_8);
        long probes = injected.stream().filter(l -> l.contains(" probe ")).count();
        long applied = injected.stream().filter(l -> l.contains(" applied ")).count();
        System.out.printf("fault run: %d workloads, %d attempts, %d faults injected (%d of probes, %d actions applied"
                + " but reported failed)%n", kinds.size(), attempts, injected.size(), probes, applied);
        assertThat(probes).isGreaterThan(20);
        assertThat(applied).isGreaterThan(0);
        assertThat(story.metrics()).containsPattern("allot_backend_events_total\\{[^}]*event=\"probe_failures\"[^}]*} [1-9]");
    }

    /** {@code seconds} at the story's pace, as {@code sleep} takes it (e.g. 2.5). */
    private static String paced(int seconds) {
        return java.math.BigDecimal.valueOf(Math.round(seconds * PACE * 10), 1).toPlainString();
    }

    private String state(String id) {
        try {
            return story.state(id);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static boolean ended(String state) {
        return List.of("completed", "failed", "cancelled", "preempted").contains(state);
    }

    /**
     * Fault-injecting Slurm commands in {@code dir/bin}: {@code tools/slurm-faults/make-shims.sh}'s wrappers, each
     * behind a one-line script that points it at this test's configuration and log.
     */
    private Path faultWrappers(Path dir) throws Exception {
        Path shims = dir.resolve("shims");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path script = slurm.script.getParent().resolve("slurm-faults/make-shims.sh");
        Process p = new ProcessBuilder("bash", script.toString(), shims.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0).as("make-shims.sh: " + out).isTrue();
        Path conf = dir.resolve("faults.conf");
        Files.writeString(conf, "probe_rate=0.3\naction_rate=0.2\nseed=42\ntimeout_seconds=3\n");
        for (String cmd : List.of("sbatch", "squeue", "scontrol", "scancel", "sacct", "sinfo")) {
            Path w = bin.resolve(cmd);
            Files.writeString(w, "#!/usr/bin/env bash\nexport ALLOT_FAULTS_FILE='" + conf + "' ALLOT_FAULTS_LOG='"
                    + dir.resolve("faults.log") + "'\nexec '" + shims.resolve(cmd) + "' \"$@\"\n");
            w.toFile().setExecutable(true);
        }
        return dir;
    }
}
